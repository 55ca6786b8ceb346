package table

import (
	"errors"
	"strings"
)

// InputError reports a bad input file: missing, empty, truncated or corrupt,
// not Parquet or Arrow, of another row kind, or with a schema that does not
// match the row struct. Commands map it to exit code 2. Its message is one
// line, "PATH: problem".
type InputError struct {
	Path    string // the file as named by the user ("-" for stdin)
	Problem string // what is wrong, one line
	Err     error  // the underlying error, if any
}

func (e *InputError) Error() string {
	p := e.Path
	if p == "-" {
		p = "stdin"
	}
	return p + ": " + e.Problem
}

// Unwrap gives the underlying error, so errors.Is(err, fs.ErrNotExist) works.
func (e *InputError) Unwrap() error { return e.Err }

// IsInputError reports whether err is, or wraps, an *InputError.
func IsInputError(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}

// inputErr builds an *InputError; when err is non-nil its text (flattened to
// one line) follows problem after a colon.
func inputErr(path, problem string, err error) *InputError {
	if err != nil {
		problem += ": " + OneLine(err.Error())
	}
	return &InputError{Path: path, Problem: problem, Err: err}
}

// OneLine is a message on one line, as every refusal is printed: its
// line breaks become "; ", its ends trimmed.
func OneLine(s string) string {
	s = strings.TrimSpace(s)
	s = strings.ReplaceAll(s, "\r", "")
	return strings.ReplaceAll(s, "\n", "; ")
}

package table

import (
	"io"

	"github.com/pats-rl/pats/lib/output"
)

// AtomicWrite writes the file at path through fn so that no reader ever sees
// a half-written file: fn writes to a temporary file ".NAME.tmp-PID-*" in
// the same directory (created if missing), which is synced and renamed over
// path only when fn and every write succeed. On any error, or a panic in fn,
// the temporary file is removed and an existing file at path is left
// untouched. An existing path that is not a regular file is refused, and a
// symbolic link to one is written through (see lib/output). The writer
// given to fn is buffered. A path of "-" makes fn write to stdout (refused
// when stdout is a terminal). The new file has mode 0644.
func AtomicWrite(path string, fn func(w io.Writer) error) error {
	return output.Write(path, fn)
}

package table

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pats-rl/pats/lib/output"
)

// Format is an on-disk or on-pipe table format.
type Format int

const (
	Parquet     Format = iota // Parquet file (files at rest)
	ArrowStream               // Arrow IPC stream (pipes)
	ArrowFile                 // Arrow IPC file (random access, .arrow)
)

func (f Format) String() string {
	switch f {
	case Parquet:
		return "parquet"
	case ArrowStream:
		return "arrow-stream"
	case ArrowFile:
		return "arrow-file"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// Magic bytes that identify the formats.
var (
	magicParquet = []byte("PAR1")
	magicArrow   = []byte("ARROW1")
	markerStream = []byte{0xff, 0xff, 0xff, 0xff}
	eosStream    = []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}
)

// Write writes rows of a registered row kind T to w in the given format,
// with meta as Parquet key-value or Arrow schema metadata. Meta.Kind and
// Meta.SchemaVersion are filled in from T's registration when empty; a
// Meta.Kind naming another kind is an error. Every row must pass the checks
// ReadFiles applies (RowChecker, RowKeyer): a row the readers would refuse
// is an error and nothing is written. Meta.Command and the Extra values
// are written through Scrub. The bytes depend only on rows
// and meta.
func Write[T any](w io.Writer, format Format, rows []T, meta Meta) error {
	return write(w, format, rows, meta, true)
}

// WriteUnchecked writes rows to a Parquet file as WriteFile does but
// without the readers' checks: for tests and tools that make broken inputs
// on purpose (no command calls it).
func WriteUnchecked[T any](path string, rows []T, meta Meta) error {
	var u output.Unit
	defer u.Abort()
	if err := u.File(path, func(w io.Writer) error { return write(w, Parquet, rows, meta, false) }); err != nil {
		return err
	}
	return u.Commit()
}

func write[T any](w io.Writer, format Format, rows []T, meta Meta, check bool) error {
	k, cols, err := schemaOf[T]()
	if err != nil {
		return err
	}
	if meta.Kind == "" {
		meta.Kind = k.Name
	} else if meta.Kind != k.Name {
		return fmt.Errorf("table: Meta.Kind %q for rows of kind %q", meta.Kind, k.Name)
	}
	if meta.SchemaVersion == 0 {
		meta.SchemaVersion = k.Version
	}
	if check {
		if err := checkWritten(rows); err != nil {
			return err
		}
	}
	// Metadata travels with the file: no credential from a command line,
	// a URL or a remote message goes into it.
	meta.Command = Scrub(meta.Command)
	if len(meta.Extra) > 0 {
		extra := make(map[string]string, len(meta.Extra))
		for k, v := range meta.Extra {
			extra[k] = Scrub(v)
		}
		meta.Extra = extra
	}
	switch format {
	case Parquet:
		return writeParquet(w, rows, meta)
	case ArrowStream:
		return writeArrow(w, false, rows, cols, meta)
	case ArrowFile:
		return writeArrow(w, true, rows, cols, meta)
	}
	return fmt.Errorf("table: unknown format %v", format)
}

// WriteFile writes rows to path atomically (see AtomicWrite): as Parquet, or
// as an Arrow IPC file when the name ends in ".arrow". A path of "-" writes
// an Arrow IPC stream to stdout instead, and refuses a terminal.
func WriteFile[T any](path string, rows []T, meta Meta) error {
	var u output.Unit
	defer u.Abort()
	if err := Stage(&u, path, rows, meta); err != nil {
		return err
	}
	return u.Commit()
}

// Stage writes rows as WriteFile does, as one output of the run u: the
// file is complete in a temporary sibling when Stage returns and reaches
// path at u.Commit.
func Stage[T any](u *output.Unit, path string, rows []T, meta Meta) error {
	format := ArrowStream
	if path != "-" {
		format = Parquet
		if strings.HasSuffix(path, ".arrow") {
			format = ArrowFile
		}
	}
	return u.File(path, func(w io.Writer) error {
		if err := Write(w, format, rows, meta); err != nil && path != "-" {
			return fmt.Errorf("%s: %w", path, err)
		} else if err != nil {
			return err
		}
		return nil
	})
}

// ReadFiles reads rows of the registered row kind T from each path and
// concatenates them in order (shards of one table). A path is a Parquet file,
// an Arrow IPC file or stream, "-" for stdin, or a directory, which stands for
// its *.parquet and *.arrow files sorted by name (hidden files, such as the
// temporary files of a running writer, are skipped). The format is told by
// the first bytes, not the name. It returns one Meta per file read, in order,
// with Meta.Path set.
//
// Every file must hold rows of T's kind: a file of another kind, a newer
// schema version, or a missing or mistyped column is an *InputError, as is a
// missing, empty, truncated or unrecognised file. A file without pats
// metadata (written by another tool) is accepted when its columns match.
// Empty lists are read as nil slices.
//
// ReadFiles reads "-" from the process's stdin; ReadFilesFrom reads it
// from a reader of the caller's (a stage's standard input), and Read reads
// one table from a reader.
func ReadFiles[T any](paths ...string) ([]T, []Meta, error) {
	return ReadFilesFrom[T](os.Stdin, paths...)
}

// Read reads one table of the registered row kind T from r (a Parquet
// file, an Arrow IPC file or stream), as ReadFiles reads a file; name is
// the input's name in messages and Meta.Path ("-" for stdin).
func Read[T any](r io.Reader, name string) ([]T, Meta, error) {
	k, cols, err := schemaOf[T]()
	if err != nil {
		return nil, Meta{}, err
	}
	rows, m, err := readAll[T](r, name, k, cols)
	if err != nil {
		return nil, Meta{}, err
	}
	upgradeRows(rows, m, k)
	if err := checkRows(name, rows, map[string]string{}); err != nil {
		return nil, Meta{}, err
	}
	return rows, m, nil
}

// ReadFilesFrom is ReadFiles with "-" read from stdin.
func ReadFilesFrom[T any](stdin io.Reader, paths ...string) ([]T, []Meta, error) {
	k, cols, err := schemaOf[T]()
	if err != nil {
		return nil, nil, err
	}
	if len(paths) == 0 {
		return nil, nil, fmt.Errorf("table: no input files")
	}
	files, err := inputFiles(stdin, paths)
	if err != nil {
		return nil, nil, err
	}
	var rows []T
	metas := make([]Meta, 0, len(files))
	seen := map[string]string{}
	for _, f := range files {
		var r []T
		var m Meta
		if f == "-" {
			if stdin == nil {
				return nil, nil, inputErr(f, "no standard input to read", nil)
			}
			r, m, err = readAll[T](stdin, f, k, cols)
		} else {
			r, m, err = readOne[T](f, k, cols)
		}
		if err != nil {
			return nil, nil, err
		}
		upgradeRows(r, m, k)
		if err := checkRows(f, r, seen); err != nil {
			return nil, nil, err
		}
		if rows == nil {
			rows = r
		} else {
			rows = append(rows, r...)
		}
		metas = append(metas, m)
	}
	return rows, metas, nil
}

// Distinct checks the inputs of one table read in parts (one ReadFiles
// call per input) as ReadFiles checks its inputs: every file, a folder's
// files and stdin's file counted once, compared by identity. A file named
// twice, through a link, inside a named folder too, or redirected to
// stdin as well is an *InputError.
func Distinct(stdin io.Reader, paths ...string) error {
	_, err := inputFiles(stdin, paths)
	return err
}

// inputFiles expands paths into the files to read ("-" kept; a folder
// stands for its data files) and refuses a file that comes twice.
func inputFiles(stdin io.Reader, paths []string) ([]string, error) {
	var files []string
	nstdin := 0
	for _, p := range paths {
		if p == "-" {
			if nstdin++; nstdin > 1 {
				return nil, inputErr(p, "stdin named more than once", nil)
			}
			files = append(files, p)
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, inputErr(p, "cannot read", unwrapPath(err))
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		inDir, err := dataFiles(p)
		if err != nil {
			return nil, err
		}
		if len(inDir) == 0 {
			return nil, inputErr(p, "directory has no .parquet or .arrow files", nil)
		}
		files = append(files, inDir...)
	}
	if err := sameFiles(stdin, files); err != nil {
		return nil, err
	}
	return files, nil
}

// sameFiles refuses a file read twice in one read: named twice, through
// a link, as a name and inside a named folder, or as a name and on stdin
// (a file redirected to stdin). Files are compared by identity (device
// and inode), not by name; its rows would otherwise be counted twice.
func sameFiles(stdin io.Reader, files []string) error {
	type read struct {
		name string
		fi   os.FileInfo
	}
	var done []read
	for _, f := range files {
		var fi os.FileInfo
		if f == "-" {
			sf, ok := stdin.(*os.File)
			if !ok {
				continue
			}
			st, err := sf.Stat()
			if err != nil || !st.Mode().IsRegular() {
				continue // a pipe or a terminal is no file given twice
			}
			fi = st
		} else {
			st, err := os.Stat(f)
			if err != nil {
				continue // readOne reports it
			}
			fi = st
		}
		for _, d := range done {
			if os.SameFile(d.fi, fi) {
				if d.name == f {
					return inputErr(f, "named twice (an input counts once)", nil)
				}
				prev := d.name
				if prev == "-" {
					prev = "stdin"
				}
				return inputErr(f, fmt.Sprintf("is the same file as %s (an input counts once)", prev), nil)
			}
		}
		done = append(done, read{f, fi})
	}
	return nil
}

// dataFiles lists the *.parquet and *.arrow files of a directory, sorted by
// name, skipping hidden files.
func dataFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, inputErr(dir, "cannot read directory", unwrapPath(err))
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if strings.HasPrefix(n, ".") || e.IsDir() {
			continue
		}
		if strings.HasSuffix(n, ".parquet") || strings.HasSuffix(n, ".arrow") {
			out = append(out, filepath.Join(dir, n))
		}
	}
	sort.Strings(out)
	return out, nil
}

// unwrapPath drops the *PathError wrapper, whose text repeats the path.
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// readerAtSeeker is what the Parquet and Arrow file readers need.
type readerAtSeeker interface {
	io.Reader
	io.ReaderAt
	io.Seeker
}

// readAll reads one table from a reader that cannot seek (stdin, a pipe):
// whole, into memory.
func readAll[T any](in io.Reader, path string, k KindInfo, cols []column) ([]T, Meta, error) {
	b, err := io.ReadAll(in)
	if err != nil {
		return nil, Meta{}, inputErr(path, "cannot read", err)
	}
	return readAt[T](bytes.NewReader(b), int64(len(b)), path, k, cols)
}

// readOne reads the file path.
func readOne[T any](path string, k KindInfo, cols []column) ([]T, Meta, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, Meta{}, inputErr(path, "is a directory", nil)
	}
	// Only a regular file is opened: a FIFO or a device is refused before
	// the open, which would wait for a FIFO's writer.
	f, st, err := output.OpenRegular(path)
	if err != nil {
		return nil, Meta{}, inputErr(path, "cannot read", unwrapPath(err))
	}
	defer f.Close()
	return readAt[T](f, st.Size(), path, k, cols)
}

// readAt reads one table of size bytes from r; the format is told by the
// first bytes.
func readAt[T any](r readerAtSeeker, size int64, path string, k KindInfo, cols []column) ([]T, Meta, error) {
	if size == 0 {
		return nil, Meta{}, inputErr(path, "empty file", nil)
	}
	head := make([]byte, min(size, 8))
	if _, err := r.ReadAt(head, 0); err != nil {
		return nil, Meta{}, inputErr(path, "cannot read", err)
	}
	tail := make([]byte, min(size, 8))
	if _, err := r.ReadAt(tail, size-int64(len(tail))); err != nil {
		return nil, Meta{}, inputErr(path, "cannot read", err)
	}
	switch {
	case bytes.HasPrefix(head, magicParquet):
		if size < 12 || !bytes.HasSuffix(tail, magicParquet) {
			return nil, Meta{}, inputErr(path, "truncated Parquet file (no footer)", nil)
		}
		return readParquet[T](path, r, size, k, cols)
	case bytes.HasPrefix(head, magicArrow):
		if size < 12 || !bytes.HasSuffix(tail, magicArrow) {
			return nil, Meta{}, inputErr(path, "truncated Arrow file (no footer)", nil)
		}
		return readArrowFile[T](path, r, k, cols)
	case bytes.HasPrefix(head, markerStream):
		if !bytes.Equal(tail, eosStream) {
			return nil, Meta{}, inputErr(path, "truncated Arrow stream (no end-of-stream marker)", nil)
		}
		return readArrowStream[T](path, r, size, k, cols)
	}
	return nil, Meta{}, inputErr(path, "not a Parquet file or Arrow IPC file or stream", nil)
}

// checkKind checks a file's metadata against the expected row kind.
func checkKind(path string, m Meta, k KindInfo) error {
	if m.Kind == "" {
		return nil // no pats metadata: the column check decides
	}
	if m.Kind != k.Name {
		return inputErr(path, fmt.Sprintf("holds %s rows, want %s rows", m.Kind, k.Name), nil)
	}
	if m.SchemaVersion < 1 {
		return inputErr(path, fmt.Sprintf("%s schema version %d is not a version (want 1 to %d)", k.Name, m.SchemaVersion, k.Version), nil)
	}
	if m.SchemaVersion > k.Version {
		return inputErr(path, fmt.Sprintf("%s schema version %d is newer than this program's %d", k.Name, m.SchemaVersion, k.Version), nil)
	}
	return nil
}

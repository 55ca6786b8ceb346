package table

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// AtomicWrite writes the file at path through fn so that no reader ever sees
// a half-written file: fn writes to a temporary file ".NAME.tmp-*" in the
// same directory (created if missing), which is synced and renamed over path
// only when fn and every write succeed. On any error, or a panic in fn, the
// temporary file is removed and an existing file at path is left untouched.
// The writer given to fn is buffered. A path of "-" makes fn write straight
// to stdout. The new file has mode 0644.
func AtomicWrite(path string, fn func(w io.Writer) error) (err error) {
	if path == "-" {
		bw := bufio.NewWriterSize(os.Stdout, 1<<16)
		if err := fn(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	if path == "" {
		return fmt.Errorf("table: empty output path")
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriterSize(tmp, 1<<16)
	if err := fn(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	done = true
	// Make the rename durable; some file systems cannot sync a directory,
	// and the file itself is already complete, so this is best effort.
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

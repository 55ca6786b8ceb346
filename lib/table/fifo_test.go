package table

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSpecialInputsRefused checks that every reader of a named input (a
// table file, a table folder's files, the content hash of an input)
// refuses a FIFO, a link to a FIFO and a device before opening it: an open
// of a FIFO with no writer would wait for one forever.
func TestSpecialInputsRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "f.parquet")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.parquet")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "parts")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(filepath.Join(folder, "a.parquet"), sampleTrajectories(3, 1), Meta{}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(folder, "b.parquet"), 0o644); err != nil {
		t.Fatal(err)
	}
	readers := map[string]func(string) error{
		"ReadFiles": func(p string) error { _, _, err := ReadFiles[Trajectory](p); return err },
		"HashFile":  func(p string) error { _, err := HashFile(p); return err },
	}
	for name, read := range readers {
		for _, in := range []struct{ path, want string }{
			{fifo, "not a regular file but a FIFO"},
			{link, "not a regular file but a FIFO"},
			{folder, "not a regular file but a FIFO"},
			{"/dev/zero", "not a regular file but a device"},
		} {
			done := make(chan error, 1)
			go func() { done <- read(in.path) }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), in.want) {
					t.Errorf("%s(%s) = %v, want an error saying %q", name, in.path, err, in.want)
				}
				if err != nil && strings.Contains(err.Error(), "\n") {
					t.Errorf("%s(%s): error of more than one line: %q", name, in.path, err)
				}
			case <-time.After(20 * time.Second):
				// Unblock the open so that the test ends.
				for _, p := range []string{fifo, filepath.Join(folder, "b.parquet")} {
					if w, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
						w.Close()
					}
				}
				t.Fatalf("%s(%s) still waits in open after 20 s", name, in.path)
			}
		}
	}
}

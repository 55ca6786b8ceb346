package output

import (
	"io/fs"
	"testing"
)

func TestFileKind(t *testing.T) {
	for _, c := range []struct {
		mode fs.FileMode
		want string
	}{
		{0o644, "a regular file"},
		{fs.ModeDir | 0o755, "a folder"},
		{fs.ModeNamedPipe, "a FIFO"},
		{fs.ModeSocket, "a socket"},
		{fs.ModeDevice | fs.ModeCharDevice, "a device"},
		{fs.ModeSymlink, "a special file"},
	} {
		if got := FileKind(c.mode); got != c.want {
			t.Errorf("FileKind(%v) = %q, want %q", c.mode, got, c.want)
		}
	}
}

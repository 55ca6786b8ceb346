//go:build unix

package output

import (
	"bufio"
	"errors"
	"os"
	"syscall"
)

func newBuffered(f *os.File) *bufio.Writer { return bufio.NewWriterSize(f, 1<<16) }

// alive reports whether a process with this id exists.
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// writable reports whether this process may create entries in dir.
func writable(dir string) bool {
	return syscall.Access(dir, 2) == nil // W_OK
}

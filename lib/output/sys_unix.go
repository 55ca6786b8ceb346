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

// openNoWait opens path for reading without waiting for a FIFO's writer
// (O_NONBLOCK); the file is put back in blocking mode.
func openNoWait(path string) (*os.File, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

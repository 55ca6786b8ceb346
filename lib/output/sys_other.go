//go:build !linux

package output

import (
	"errors"
	"os"
)

var errNoExchange = errors.New("atomic exchange not supported")

func exchange(a, b string) error { return errNoExchange }

// IsTerminal reports whether f is a character device other than /dev/null
// (the portable approximation where no terminal ioctl is used).
func IsTerminal(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	if n, err := os.Stat(os.DevNull); err == nil && os.SameFile(fi, n) {
		return false
	}
	return true
}

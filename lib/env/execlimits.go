package env

import "strconv"

// Limits of what an exec: child says beside its observations.
const (
	// MaxKeyBytes bounds a state key (Step.Key, a reset's key): a longer
	// one is replaced by its StateKey, so that equal keys stay equal and
	// a long one takes 16 bytes in every step it keys (256 bytes).
	MaxKeyBytes = 256
	// MaxErrorBytes bounds the text of an error answer quoted in a
	// message (4 KiB; its start is kept).
	MaxErrorBytes = 4096
)

// boundKey is the key recorded for a key k an exec: child sent.
func boundKey(k string) string {
	if len(k) <= MaxKeyBytes {
		return k
	}
	return StateKey(k)
}

// clipFront keeps the first n bytes of s (cut at a rune boundary) and says
// how much was left out.
func clipFront(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + "... (" + strconv.Itoa(len(s)-cut) + " more bytes)"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// BrokenError is the error of an environment that can no longer be used
// (an exec: child that crashed, timed out, wrote a malformed or too long
// answer; an environment server that stayed down or kept failing): a
// failure while running (exit 1), wherever it happens (info, tasks, reset
// or step). It wraps its cause: errors.Is(err, os.ErrDeadlineExceeded)
// holds for a step timeout, errors.Is(err, context.Canceled) for a
// cancelled wait.
type BrokenError struct {
	msg string
	err error
}

func (e *BrokenError) Error() string { return e.msg }

// Unwrap is the cause, if known.
func (e *BrokenError) Unwrap() error { return e.err }

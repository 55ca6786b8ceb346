package tokenizer

import (
	"strings"
	"unicode/utf8"
)

// ValidUTF8 returns s with every ill-formed byte sequence replaced by
// U+FFFD the way Hugging Face's decode does it (Python's
// bytes.decode("utf-8", errors="replace"), the WHATWG decoder): each
// maximal prefix of a well-formed sequence that is cut short becomes one
// U+FFFD, and a byte that can start no sequence becomes one U+FFFD of its
// own. Byte-level BPE tokens may end inside a multi-byte character, so text
// decoded from sampled ids passes through here before it reaches a file.
// Well-formed text comes back unchanged.
func ValidUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		c := s[i]
		if c < 0x80 {
			b.WriteByte(c)
			i++
			continue
		}
		need, lo, hi := 0, byte(0x80), byte(0xBF)
		switch {
		case c >= 0xC2 && c <= 0xDF:
			need = 1
		case c == 0xE0:
			need, lo = 2, 0xA0
		case c == 0xED:
			need, hi = 2, 0x9F
		case c >= 0xE1 && c <= 0xEF:
			need = 2
		case c == 0xF0:
			need, lo = 3, 0x90
		case c == 0xF4:
			need, hi = 3, 0x8F
		case c >= 0xF1 && c <= 0xF3:
			need = 3
		default: // a continuation byte or one that starts no sequence
			b.WriteRune(utf8.RuneError)
			i++
			continue
		}
		j, ok := i+1, true
		for k := 0; k < need; k++ {
			if j >= len(s) || s[j] < lo || s[j] > hi {
				ok = false
				break
			}
			lo, hi = 0x80, 0xBF
			j++
		}
		if ok {
			b.WriteString(s[i:j])
		} else {
			// The bytes consumed so far are one maximal subpart; the
			// offending byte (if any) is read again as a start.
			b.WriteRune(utf8.RuneError)
		}
		i = j
	}
	return b.String()
}

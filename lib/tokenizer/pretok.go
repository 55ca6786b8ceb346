package tokenizer

import (
	"unicode"
	"unicode/utf8"
)

// Qwen2Pattern is the pre-tokenizer regular expression of Qwen2 and Qwen3
// tokenizers. splitQwen2 implements it by hand: Go's regexp has no
// look-ahead, which the \s+(?!\S) alternative needs.
const Qwen2Pattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

func isL(r rune) bool    { return unicode.IsLetter(r) }
func isN(r rune) bool    { return unicode.IsNumber(r) }
func isS(r rune) bool    { return unicode.IsSpace(r) }
func isCRLF(r rune) bool { return r == '\r' || r == '\n' }

// runeAt decodes the rune at byte offset i; at the end it returns (-1, 0).
func runeAt(s string, i int) (rune, int) {
	if i >= len(s) {
		return -1, 0
	}
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// contractionLen returns the byte length of a contraction ('s 't 're 've 'm
// 'll 'd, case-insensitive) at s[i:], or 0. The alternatives are tried in
// the pattern's order; none is a prefix of another.
func contractionLen(s string, i int) int {
	if i >= len(s) || s[i] != '\'' {
		return 0
	}
	r1, n1 := runeAt(s, i+1)
	switch r1 {
	case 's', 'S', 'ſ': // U+017F folds to s under Unicode case folding
		return 1 + n1
	case 't', 'T', 'm', 'M', 'd', 'D':
		return 1 + n1
	}
	r2, n2 := runeAt(s, i+1+n1)
	switch {
	case (r1 == 'r' || r1 == 'R') && (r2 == 'e' || r2 == 'E'),
		(r1 == 'v' || r1 == 'V') && (r2 == 'e' || r2 == 'E'),
		(r1 == 'l' || r1 == 'L') && (r2 == 'l' || r2 == 'L'):
		return 1 + n1 + n2
	}
	return 0
}

// qwen2Next returns the end of the pre-token that starts at byte offset i
// (i < len(s)), following Qwen2Pattern's alternatives in order (leftmost
// alternative that matches wins, each greedy with backtracking).
func qwen2Next(s string, i int) int {
	// (?i:'s|'t|'re|'ve|'m|'ll|'d)
	if n := contractionLen(s, i); n > 0 {
		return i + n
	}
	r0, n0 := runeAt(s, i)
	// [^\r\n\p{L}\p{N}]?\p{L}+
	letters := func(j int) int {
		for {
			r, n := runeAt(s, j)
			if n == 0 || !isL(r) {
				return j
			}
			j += n
		}
	}
	if isL(r0) {
		return letters(i + n0)
	}
	if !isCRLF(r0) && !isN(r0) {
		if r1, n1 := runeAt(s, i+n0); n1 > 0 && isL(r1) {
			return letters(i + n0 + n1)
		}
	}
	// \p{N}
	if isN(r0) {
		return i + n0
	}
	// ` ?[^\s\p{L}\p{N}]+[\r\n]*`
	other := func(r rune) bool { return r >= 0 && !isS(r) && !isL(r) && !isN(r) }
	j := -1
	if other(r0) {
		j = i
	} else if r0 == ' ' {
		if r1, _ := runeAt(s, i+1); other(r1) {
			j = i + 1
		}
	}
	if j >= 0 {
		for {
			r, n := runeAt(s, j)
			if n == 0 || !other(r) {
				break
			}
			j += n
		}
		for j < len(s) && (s[j] == '\r' || s[j] == '\n') {
			j++
		}
		return j
	}
	// r0 is white space here. Find the maximal white-space run [i, e),
	// the end of its last CR or LF, and the size of its last rune.
	e, lastNL, lastSize := i, -1, 0
	for {
		r, n := runeAt(s, e)
		if n == 0 || !isS(r) {
			break
		}
		e += n
		lastSize = n
		if isCRLF(r) {
			lastNL = e
		}
	}
	// \s*[\r\n]+
	if lastNL >= 0 {
		return lastNL
	}
	// \s+(?!\S)
	if e == len(s) {
		return e
	}
	if e-lastSize > i {
		return e - lastSize
	}
	// \s+
	return e
}

// splitQwen2 calls emit for each pre-token of s, in order. The pieces
// concatenate back to s.
func splitQwen2(s string, emit func(string)) {
	for i := 0; i < len(s); {
		j := qwen2Next(s, i)
		emit(s[i:j])
		i = j
	}
}

package words

import (
	"strings"
	"unicode"
)

// IsWordRune reports whether r belongs inside a word of the tokenizer's
// rule: letters, marks, decimal digits and connector punctuation such as
// '_' (the \w class).
func IsWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || unicode.Is(unicode.Pc, r)
}

// isAlnum reports whether r is a letter or a digit.
func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// each cuts s into runs of runes that inWord accepts and single other
// characters; white space separates and is dropped.
func each(s string, inWord func(rune) bool, emit func(string)) {
	start := -1 // start of the current word, -1 when none
	for i, r := range s {
		if inWord(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			emit(s[start:i])
			start = -1
		}
		if !unicode.IsSpace(r) {
			emit(s[i : i+len(string(r))])
		}
	}
	if start >= 0 {
		emit(s[start:])
	}
}

// Each cuts s as it is (no lower-casing) by the tokenizer's rule: runs of
// word runes (IsWordRune) are words and every other non-space character is
// a word of its own ("in/on" -> "in" "/" "on"; "$45.00" -> "$" "45" "."
// "00").
func Each(s string, emit func(string)) { each(s, IsWordRune, emit) }

// Split returns the words of text lower-cased, by the tokenizer's rule
// (Each).
func Split(text string) []string {
	var out []string
	Each(strings.ToLower(text), func(w string) { out = append(out, w) })
	return out
}

// Alnum returns the words of text lower-cased, where only letters and
// digits join into words: every other non-space character, '_' included,
// is a word of its own.
func Alnum(text string) []string {
	var out []string
	each(strings.ToLower(text), isAlnum, func(w string) { out = append(out, w) })
	return out
}

// Set returns the set of lower-case words of text made of letters and
// digits (everything else separates words).
func Set(text string) map[string]bool {
	set := map[string]bool{}
	each(strings.ToLower(text), isAlnum, func(w string) {
		r := []rune(w)
		if len(r) > 1 || isAlnum(r[0]) {
			set[w] = true
		}
	})
	return set
}

package textindex

import (
	"strings"
	"unicode"
)

// Words splits s into lower-case words: maximal runs of letters and digits
// are words, every other non-space character is a word of its own, and
// white space only separates.
func Words(s string) []string {
	var out []string
	start := -1
	s = strings.ToLower(s)
	for i, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, s[start:i])
			start = -1
		}
		if !unicode.IsSpace(r) {
			out = append(out, string(r))
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// PhraseText joins the words of s with single spaces and pads both ends
// with a space, the form HasPhrase searches.
func PhraseText(s string) string { return " " + strings.Join(Words(s), " ") + " " }

// HasPhrase reports whether the words of phrase occur consecutively in
// padded (a PhraseText), on word boundaries: "red" is in "a red cup" but not
// in "a reddish cup". A phrase without words is only in a text without
// words.
func HasPhrase(padded, phrase string) bool {
	return strings.Contains(padded, " "+strings.Join(Words(phrase), " ")+" ")
}

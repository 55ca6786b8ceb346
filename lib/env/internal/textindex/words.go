package textindex

import (
	"strings"

	"github.com/pats-rl/pats/lib/words"
)

// PhraseText joins the words of s with single spaces and pads both ends
// with a space, the form HasPhrase searches.
func PhraseText(s string) string { return " " + strings.Join(words.Alnum(s), " ") + " " }

// HasPhrase reports whether the words of phrase occur consecutively in
// padded (a PhraseText), on word boundaries: "red" is in "a red cup" but not
// in "a reddish cup". A phrase without words is only in a text without
// words.
func HasPhrase(padded, phrase string) bool {
	return strings.Contains(padded, " "+strings.Join(words.Alnum(phrase), " ")+" ")
}

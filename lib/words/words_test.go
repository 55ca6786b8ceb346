package words

import (
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
)

func TestSplit(t *testing.T) {
	cases := []struct {
		in         string
		split, aln []string
	}{
		{"Put the Apple 1 in/on the fridge.", []string{"put", "the", "apple", "1", "in", "/", "on", "the", "fridge", "."}, []string{"put", "the", "apple", "1", "in", "/", "on", "the", "fridge", "."}},
		{"$45.00", []string{"$", "45", ".", "00"}, []string{"$", "45", ".", "00"}},
		{"read_skill heat_x", []string{"read_skill", "heat_x"}, []string{"read", "_", "skill", "heat", "_", "x"}},
		{"  \t\n", nil, nil},
		{"café, naïve", []string{"café", ",", "naïve"}, []string{"café", ",", "naïve"}},
	}
	for _, c := range cases {
		if diff := cmp.Diff(c.split, Split(c.in)); diff != "" {
			t.Errorf("Split(%q) (-want +got):\n%s", c.in, diff)
		}
		if diff := cmp.Diff(c.aln, Alnum(c.in)); diff != "" {
			t.Errorf("Alnum(%q) (-want +got):\n%s", c.in, diff)
		}
	}
}

// TestSetIsFieldsOfAlnum: Set equals the fields of the lower-cased text
// cut at every rune that is neither a letter nor a digit (an independent
// definition).
func TestSetIsFieldsOfAlnum(t *testing.T) {
	for _, s := range []string{"Take the apple; heat it!", "a_b c-d 3.5", "", "...", "Ünïcode wörds 42x"} {
		want := map[string]bool{}
		for _, f := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			want[f] = true
		}
		if diff := cmp.Diff(want, Set(s)); diff != "" {
			t.Errorf("Set(%q) (-want +got):\n%s", s, diff)
		}
	}
}

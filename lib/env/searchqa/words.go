package searchqa

import (
	"strings"
	"unicode"
)

// words splits text the way the built-in WordLevel tokenizer pre-tokenizes:
// lower case, maximal runs of letters and digits are words (numbers are
// words), every other non-space character is a token of its own.
func words(s string) []string {
	var out []string
	start := -1
	s = strings.ToLower(s)
	for i, r := range s {
		alnum := unicode.IsLetter(r) || unicode.IsDigit(r)
		if alnum {
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

// phraseText joins the words of s with single spaces and pads both ends, so
// that phrase containment is a word-boundary test: contains(phraseText(s),
// " "+phrase+" ").
func phraseText(s string) string { return " " + strings.Join(words(s), " ") + " " }

// hasPhrase reports whether phrase occurs in padded (a phraseText) on word
// boundaries.
func hasPhrase(padded, phrase string) bool {
	return strings.Contains(padded, " "+strings.Join(words(phrase), " ")+" ")
}

// rng is a small deterministic generator (splitmix64), independent of the
// standard library's algorithms so the generated data never changes.
type rng struct{ s uint64 }

func newRNG(seed uint64) *rng { return &rng{s: seed} }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// intn returns a value in [0, n).
func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

func (r *rng) perm(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	r.shuffle(n, func(i, j int) { p[i], p[j] = p[j], p[i] })
	return p
}

func (r *rng) shuffle(n int, swap func(i, j int)) {
	for i := n - 1; i > 0; i-- {
		swap(i, r.intn(i+1))
	}
}

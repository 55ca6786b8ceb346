package tokenizer

import (
	"sort"
	"strings"
)

// addedMatcher finds added (special) tokens written literally in text. It
// matches leftmost-longest: at the first position where any token starts,
// the longest token that starts there wins, as Hugging Face tokenizers do.
type addedMatcher struct {
	tokens []string         // sorted by length, longest first
	ids    map[string]int32 // token -> id
	first  [256]bool        // first bytes of the tokens
}

func newAddedMatcher(ids map[string]int32) *addedMatcher {
	m := &addedMatcher{ids: ids}
	for t := range ids {
		if t == "" {
			continue
		}
		m.tokens = append(m.tokens, t)
		m.first[t[0]] = true
	}
	sort.Slice(m.tokens, func(i, j int) bool {
		if len(m.tokens[i]) != len(m.tokens[j]) {
			return len(m.tokens[i]) > len(m.tokens[j])
		}
		return m.tokens[i] < m.tokens[j]
	})
	return m
}

// split calls text for each run of ordinary text and added for each added
// token found, in order. Empty runs are not reported.
func (m *addedMatcher) split(s string, text func(string), added func(id int32)) {
	if m == nil || len(m.tokens) == 0 {
		if s != "" {
			text(s)
		}
		return
	}
	start := 0
	for i := 0; i < len(s); i++ {
		if !m.first[s[i]] {
			continue
		}
		for _, t := range m.tokens {
			if strings.HasPrefix(s[i:], t) {
				if i > start {
					text(s[start:i])
				}
				added(m.ids[t])
				i += len(t) - 1
				start = i + 1
				break
			}
		}
	}
	if start < len(s) {
		text(s[start:])
	}
}

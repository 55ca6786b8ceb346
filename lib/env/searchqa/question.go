package searchqa

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// Task types: the number of hops.
var taskTypes = []string{"single_hop", "two_hop", "three_hop"}

// Question is one task: a chain of relations applied to a start entity.
type Question struct {
	ID     string // "searchqa/train/00042"
	Split  string
	Type   string   // single_hop, two_hop or three_hop
	Start  string   // the start entity's name
	Chain  []string // relation names, applied first to last
	Path   []string // entity names: Path[0] = Start, Path[i+1] = Chain[i](Path[i])
	Text   string
	Answer string // = Path[len(Path)-1]

	start int   // entity index
	rels  []int // relation indices
	path  []int // entity indices
}

// Hops is the number of relations in the chain.
func (q *Question) Hops() int { return len(q.Chain) }

// DefiningCombination is "<start entity>|<relation>>...": the pair a
// valid_unseen question has and no train question has.
func (q *Question) DefiningCombination() string {
	return q.Start + "|" + strings.Join(q.Chain, ">")
}

// questionText renders a chain: inner hops become noun-phrase prefixes
// around the start entity, the last hop the question form, e.g. "in which
// city was the founder of the employer of ada voss born?".
func questionText(start string, rels []int) string {
	x := start
	for _, r := range rels[:len(rels)-1] {
		x = relations[r].np + x
	}
	return fmt.Sprintf(relations[rels[len(rels)-1]].final, x)
}

var finalRes = func() []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(relations))
	for i, r := range relations {
		parts := strings.SplitN(r.final, "%s", 2)
		out[i] = regexp.MustCompile("^" + regexp.QuoteMeta(parts[0]) + "(.+)" + regexp.QuoteMeta(parts[1]) + "$")
	}
	return out
}()

// parseQuestion recovers the start entity and relation chain from a
// question's text alone (the grammar is the fixed templates above).
func parseQuestion(text string) (start string, rels []int, ok bool) {
	text = strings.TrimSpace(strings.ToLower(text))
	for fi, re := range finalRes {
		m := re.FindStringSubmatch(text)
		if m == nil {
			continue
		}
		x := m[1]
		var inner []int
		for {
			found := false
			for ri, r := range relations {
				if strings.HasPrefix(x, r.np) {
					inner = append(inner, ri)
					x = x[len(r.np):]
					found = true
					break
				}
			}
			if !found {
				break
			}
		}
		// inner holds the outermost phrase first; the chain applies innermost first.
		for i := len(inner) - 1; i >= 0; i-- {
			rels = append(rels, inner[i])
		}
		return x, append(rels, fi), x != ""
	}
	return "", nil, false
}

var articles = map[string]bool{"a": true, "an": true, "the": true}

// Normalize is the usual exact-match normalisation: lower case, punctuation
// deleted, articles (a, an, the) removed, whitespace collapsed.
func Normalize(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsSpace(r) {
			b.WriteRune(r)
		}
	}
	var out []string
	for _, w := range strings.Fields(b.String()) {
		if !articles[w] {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

// ExactMatch reports whether prediction equals the gold answer after
// Normalize.
func ExactMatch(prediction, gold string) bool {
	return Normalize(prediction) == Normalize(gold)
}

package searchqa

import (
	"regexp"
	"strings"

	"github.com/pats-rl/pats/lib/env"
)

// oracle answers from the question text and the retrieved passages only: it
// parses the question into a start entity and a relation chain, then for
// each hop searches "<current entity> <relation keyword>", reads the
// stating sentence in the returned passages to get the next entity, and
// finally answers with the last one.
type oracle struct {
	cur      string
	rels     []int
	ok       bool
	hop      int
	pending  bool
	retried  bool
	searches int
}

// NewOracle returns the searchqa oracle (also Env.Oracle()).
func NewOracle() env.Agent { return &oracle{} }

func (o *oracle) Start(goal, observation string, seed int64) {
	*o = oracle{}
	o.cur, o.rels, o.ok = parseQuestion(goal)
}

var passageSplitRe = regexp.MustCompile(`(?:^| )\[\d+\] `)

// readFact finds the object of relation r about subject in an observation.
func readFact(obs string, r int, subject string) (string, bool) {
	re := factRe(&relations[r], subject)
	for _, p := range passageSplitRe.Split(obs, -1) {
		if m := re.FindStringSubmatch(strings.TrimSpace(p)); m != nil {
			return m[1], true
		}
	}
	return "", false
}

func (o *oracle) Act(last string, admissible []string) string {
	if !o.ok {
		return "answer[unknown]"
	}
	if o.pending {
		o.pending = false
		if obj, found := readFact(last, o.rels[o.hop], o.cur); found {
			o.cur = obj
			o.hop++
			o.retried = false
		} else {
			o.retried = true
		}
	}
	if o.hop == len(o.rels) || o.searches == MaxSearches {
		return "answer[" + o.cur + "]"
	}
	o.searches++
	o.pending = true
	kw := relations[o.rels[o.hop]].keyword
	if o.retried {
		return "search[" + kw + " " + o.cur + " " + kw + "]"
	}
	return "search[" + o.cur + " " + kw + "]"
}

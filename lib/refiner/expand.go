package refiner

import (
	"fmt"
	"sort"

	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/table"
)

type candidate struct {
	feature string
	layer   string
	score   float64
	text    string
	support []string
}

func (b *RuleBased) expand(s *scopeState) ([]table.Proposal, string) {
	in := s.in
	n, tok := scaffold.ScopeTotals(in.Items, in.TaskType)
	room := in.Quota
	if in.MaxItems-n < room {
		room = in.MaxItems - n
	}
	if room <= 0 {
		return nil, "item cap reached"
	}
	covered := map[string]bool{}
	existing := map[string]bool{}
	for _, it := range in.Items {
		if scaffold.Scope(it) != in.TaskType && it.Layer != scaffold.LayerGeneral {
			continue
		}
		for _, f := range b.linked(it, s.feats) {
			covered[f] = true
		}
		if scaffold.Scope(it) == in.TaskType {
			existing[scaffold.Normalize(it.Text)] = true
		}
	}
	general := in.TaskType == ""
	var cands []candidate
	for _, f := range s.feats {
		text := b.Text(f)
		if covered[f] || text == "" {
			continue
		}
		score, ok := b.ruleHolds(s, f)
		if !ok {
			continue
		}
		c := candidate{feature: f, score: score, text: text, support: topSupport(s.support[f]), layer: scaffold.LayerTask}
		if isFailure(f) {
			c.layer = scaffold.LayerMistake
		}
		if general {
			c.layer = scaffold.LayerGeneral
		}
		cands = append(cands, c)
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].score != cands[j].score {
			return cands[i].score > cands[j].score
		}
		return cands[i].feature < cands[j].feature
	})
	var props []table.Proposal
	for _, c := range cands {
		if len(props) >= room {
			break
		}
		k := in.Count(c.text)
		norm := scaffold.Normalize(c.text)
		if k > in.MaxItemTokens || tok+k > in.MaxTokens || existing[norm] {
			continue
		}
		existing[norm] = true
		tok += k
		props = append(props, table.Proposal{Op: table.OpAdd, Layer: c.layer, Text: c.text, Support: c.support,
			Rationale: b.rationale(s, c.feature, c.support)})
	}
	if len(props) == 0 {
		return nil, "no uncovered rule holds with enough support"
	}
	return props, ""
}

// rationale is a proposal's stated evidence for feature f: the rule's
// statistic, the cards cited, and for the general layer the types where it
// holds.
func (b *RuleBased) rationale(s *scopeState, f string, support []string) string {
	r := fmt.Sprintf("%s; cites %d cards", b.statistic(s.ev, f), len(support))
	if s.in.TaskType == "" {
		_, holds := b.typeHolds(s.ev, f)
		types := map[string]bool{}
		for _, c := range s.ev.cards {
			types[c.TaskType] = true
		}
		r += fmt.Sprintf("; holds in %d of the evidence's %d task types", holds, len(types))
	}
	return r
}

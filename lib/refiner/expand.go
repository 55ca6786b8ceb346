package refiner

import (
	"fmt"
	"math"
	"sort"

	"github.com/pats-rl/pats/lib/card"
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
		if covered[f] {
			continue
		}
		sup := s.support[f]
		if len(sup) < in.MinSupport || general && (s.typesOf(sup) < 2 || !b.holdsWidely(s, f)) {
			continue
		}
		c := candidate{feature: f, support: topSupport(sup), text: b.Text(f)}
		if isFailure(f) {
			_, m := splitFeature(f)
			share := 0.0
			if s.nF > 0 {
				share = math.Max(float64(s.modes[m])/s.nF, s.pf[f])
			}
			if share < b.MinShare {
				continue
			}
			c.layer, c.score = scaffold.LayerMistake, share
		} else {
			d := s.diff(f)
			if d < b.MinLean {
				continue
			}
			c.layer, c.score = scaffold.LayerTask, d
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
		props = append(props, table.Proposal{Op: "add", Layer: c.layer, Text: c.text, Support: c.support,
			Rationale: fmt.Sprintf("%s: score %.2f over %d cards", c.feature, c.score, len(c.support))})
	}
	if len(props) == 0 {
		return nil, "no uncovered feature separates success from failure with enough support"
	}
	return props, ""
}

// holdsWidely reports whether feature f holds (see RuleBased) in at least
// GeneralShare of the task types whose cards show it, and in at least two.
func (b *RuleBased) holdsWidely(s *scopeState, f string) bool {
	byType := map[string][]table.Card{}
	for _, c := range s.cards {
		byType[c.TaskType] = append(byType[c.TaskType], c)
	}
	shown, holds := 0, 0
	for _, t := range sortedKeys(byType) {
		ps, pf, nS, nF := pooled(byType[t])
		if ps[f] == 0 && pf[f] == 0 {
			if _, m := splitFeature(f); !isFailure(f) || !hasMode(byType[t], m) {
				continue
			}
		}
		shown++
		if isFailure(f) {
			_, m := splitFeature(f)
			var n int32
			for _, c := range byType[t] {
				n += card.ModeCount(c, m)
			}
			if nF > 0 && math.Max(float64(n)/nF, pf[f]) >= b.MinShare {
				holds++
			}
		} else if nS > 0 && nF > 0 && ps[f]-pf[f] >= b.MinLean {
			holds++
		}
	}
	return holds >= 2 && float64(holds) >= b.GeneralShare*float64(shown)
}

// hasMode reports whether a card has a failed episode with mode m.
func hasMode(cards []table.Card, m string) bool {
	for _, c := range cards {
		if card.ModeCount(c, m) > 0 {
			return true
		}
	}
	return false
}

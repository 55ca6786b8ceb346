package refiner

import (
	"github.com/pats-rl/pats/lib/card"
	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/words"
)

// scopeState is what the primitives work from.
type scopeState struct {
	in      Input
	cards   []table.Card
	items   []table.ScaffoldItem
	ps, pf  map[string]float64
	nS, nF  float64
	feats   []string            // all features seen in the scope's cards, sorted
	modes   map[string]int32    // failure mode -> failed episodes
	support map[string][]string // feature ("failure:<mode>" for modes) -> supporting card ids
	links   map[string][]string // item id -> linked features
}

func (b *RuleBased) state(in Input) *scopeState {
	s := &scopeState{in: in, cards: ScopeCards(in.Cards, in.TaskType), items: ScopeItems(in.Items, in.TaskType)}
	s.ps, s.pf, s.nS, s.nF = pooled(s.cards)
	fs := map[string]bool{}
	for f := range s.ps {
		fs[f] = true
	}
	for f := range s.pf {
		fs[f] = true
	}
	s.modes = map[string]int32{}
	s.support = map[string][]string{}
	for _, c := range s.cards {
		for i, m := range c.FailureModes {
			if m == card.UnknownFailure || m == "" {
				continue
			}
			s.modes[m] += c.FailureModeCounts[i]
			fs["failure:"+m] = true
		}
	}
	s.feats = sortedKeys(fs)
	for _, f := range s.feats {
		for _, c := range s.cards {
			if supports(c, f) {
				s.support[f] = append(s.support[f], c.CardID)
			}
		}
	}
	s.links = map[string][]string{}
	for _, it := range s.items {
		s.links[it.ID] = b.linked(it, s.feats)
	}
	return s
}

// supports reports whether card c supports feature f (see RuleBased).
func supports(c table.Card, f string) bool {
	if isFailure(f) {
		_, m := splitFeature(f)
		if card.ModeCount(c, m) > 0 {
			return true
		}
		_, fl := card.Freq(c, f)
		return fl > 0
	}
	return card.Lean(c, f) > 0
}

// linked returns the features of feats linked to item it.
func (b *RuleBased) linked(it table.ScaffoldItem, feats []string) []string {
	var out []string
	itemWords := words.Set(it.Text)
	for _, f := range feats {
		fail := isFailure(f)
		if fail && it.Layer == scaffold.LayerTask || !fail && it.Layer == scaffold.LayerMistake {
			continue
		}
		if scaffold.Normalize(b.Text(f)) == scaffold.Normalize(it.Text) {
			out = append(out, f)
			continue
		}
		_, v := splitFeature(f)
		vw := words.Set(v)
		if len(vw) == 0 {
			continue
		}
		all := true
		for w := range vw {
			if !itemWords[w] {
				all = false
				break
			}
		}
		if all {
			out = append(out, f)
		}
	}
	return out
}

// current returns the scope cards currently supporting item id.
func (s *scopeState) current(id string) []string {
	var all []string
	for _, f := range s.links[id] {
		all = append(all, s.support[f]...)
	}
	return unique(all)
}

// diff is the pooled p_success(f) - p_failure(f); 0 unless both sides have
// episodes (a one-sided scope shows no contrast).
func (s *scopeState) diff(f string) float64 {
	if s.nS == 0 || s.nF == 0 {
		return 0
	}
	return s.ps[f] - s.pf[f]
}

// typesOf counts the distinct task types of card ids.
func (s *scopeState) typesOf(ids []string) int {
	t := map[string]bool{}
	for _, c := range s.cards {
		for _, id := range ids {
			if c.CardID == id {
				t[c.TaskType] = true
			}
		}
	}
	return len(t)
}

// topSupport keeps at most 8 supporting cards (sorted ids), enough to show
// the evidence without making rows long.
func topSupport(ids []string) []string {
	ids = unique(ids)
	if len(ids) > 8 {
		ids = ids[:8]
	}
	return ids
}

package refiner

import (
	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/words"
)

// scopeState is what the primitives work from.
type scopeState struct {
	in      Input
	ev      *evidence            // the scope's smoothed evidence
	cards   []table.Card         // the window's cards of the scope
	items   []table.ScaffoldItem // the scope's items
	feats   []string             // all features the cards show (failure modes as failure:<mode>), sorted
	support map[string][]string  // feature -> supporting card ids
	links   map[string][]string  // item id -> linked features
}

func (b *RuleBased) state(in Input) *scopeState {
	cards := windowCards(in.Cards, in.TaskType, in.Iteration, in.Window)
	s := &scopeState{in: in, ev: b.gather(cards, in.Iteration), cards: cards, items: ScopeItems(in.Items, in.TaskType)}
	s.feats = s.ev.features()
	s.support = map[string][]string{}
	for _, f := range s.feats {
		for _, c := range s.cards {
			if b.supports(c, f) {
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

// linked returns the features of feats linked to item it.
func (b *RuleBased) linked(it table.ScaffoldItem, feats []string) []string {
	var out []string
	itemWords := words.Set(it.Text)
	for _, f := range feats {
		fail := isFailure(f)
		if fail && it.Layer == scaffold.LayerTask || !fail && it.Layer == scaffold.LayerMistake {
			continue
		}
		if t := b.Text(f); t != "" && scaffold.Normalize(t) == scaffold.Normalize(it.Text) {
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

// ruleHolds reports whether f's rule holds in the scope with enough
// supporting cards, and for the general layer in most types (holdsWidely).
func (b *RuleBased) ruleHolds(s *scopeState, f string) (float64, bool) {
	sc, ok := b.holds(s.ev, f)
	if !ok || len(s.support[f]) < s.in.MinSupport {
		return sc, false
	}
	if s.in.TaskType == "" && (s.typesOf(s.support[f]) < 2 || !b.holdsWidely(s.ev, f)) {
		return sc, false
	}
	return sc, true
}

// typesOf counts the distinct task types of card ids.
func (s *scopeState) typesOf(ids []string) int {
	in := map[string]bool{}
	for _, id := range ids {
		in[id] = true
	}
	t := map[string]bool{}
	for _, c := range s.cards {
		if in[c.CardID] {
			t[c.TaskType] = true
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

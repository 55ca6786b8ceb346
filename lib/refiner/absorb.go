package refiner

import (
	"fmt"
	"sort"

	"github.com/pats-rl/pats/lib/card"
	"github.com/pats-rl/pats/lib/table"
)

// Absorption judges each item of scope in.TaskType against the bare replay
// of iteration k's groups (bare: the cards of the same tasks played by the
// same checkpoint with no scaffold; cards of other iterations are ignored):
// whether the behaviour the item asks for already shows in the policy's
// own bare successes. It reads nothing but the policy's episodes (through
// the cards) and the item texts: no environment rule and no oracle.
//
// An item is linked to features as the rule-based refiner links them (its
// text states the feature's rule, or names every word of its value), over
// the features of the scope's window cards and of the bare cards. A task
// or general item is shown by a bare card whose successful episodes show a
// linked feature; a mistake item by a bare card with successes whose
// failed episodes show none of its linked failure modes. BareSupport counts
// those cards, Absorbed says it reaches in.MinSupport. harmful marks the
// scope as doing worse with its items than bare for control.HarmfulAfter
// iterations running: its items that were in the snapshot for both of
// them (created at k-2 or before) are Harmful. Rows come in the scope's
// item order.
func Absorption(in Input, bare []table.Card, harmful bool) []table.ItemAbsorption {
	b := NewRuleBased().defaults()
	in = in.withDefaults()
	s := b.state(in)
	var mine []table.Card
	for _, c := range ScopeCards(bare, in.TaskType) {
		if c.Iteration == in.Iteration {
			mine = append(mine, c)
		}
	}
	feats := unique(append(append([]string{}, s.feats...), b.gather(mine, in.Iteration).features()...))
	var withSuccess []table.Card
	for _, c := range mine {
		if c.NSuccess > 0 {
			withSuccess = append(withSuccess, c)
		}
	}
	out := make([]table.ItemAbsorption, 0, len(s.items))
	for _, it := range s.items {
		links := b.linked(it, feats)
		var support int32
		for _, c := range withSuccess {
			if shownBare(c, links) {
				support++
			}
		}
		if links == nil {
			links = []string{}
		}
		out = append(out, table.ItemAbsorption{Iteration: in.Iteration, TaskType: in.TaskType, ItemID: it.ID,
			Layer: it.Layer, Text: it.Text, Features: links, BareCards: int32(len(withSuccess)), BareSupport: support,
			Absorbed: int(support) >= in.MinSupport, Harmful: harmful && it.Created+2 <= in.Iteration})
	}
	return out
}

// shownBare reports whether bare card c (with successes) shows the
// behaviour of an item linked to links: a linked success feature in its
// successful episodes, or, for failure features only, none of the linked
// failure modes in its failed episodes.
func shownBare(c table.Card, links []string) bool {
	if len(links) == 0 {
		return false
	}
	failures := 0
	for _, f := range links {
		if !isFailure(f) {
			if s, _ := card.Freq(c, f); s > 0 {
				return true
			}
			continue
		}
		failures++
		_, m := splitFeature(f)
		if _, fl := card.Freq(c, f); card.ModeCount(c, m) > 0 || fl > 0 {
			return false
		}
	}
	return failures > 0 && failures == len(links)
}

// fade is COMPRESS with an absorption signal (Input.Absorption): it
// removes the scope's items whether or not their rules still hold, harmful
// ones first, then absorbed ones (most bare support first), then, when
// neither is left, the least supported one, up to the quota; merges that
// shorten come first as in compress. Tokens never grow (deletions and
// shorter merges only; the validator refuses a COMPRESS that grows them).
func (b *RuleBased) fade(s *scopeState) ([]table.Proposal, string) {
	in := s.in
	props := b.merges(s, true, in.Quota)
	touched := map[string]bool{}
	for _, p := range props {
		for _, t := range p.Targets {
			touched[t] = true
		}
	}
	ab := map[string]table.ItemAbsorption{}
	for _, a := range in.Absorption {
		ab[a.ItemID] = a
	}
	order := s.weakest()
	rank := func(it table.ScaffoldItem) int {
		switch a := ab[it.ID]; {
		case a.Harmful:
			return 0
		case a.Absorbed:
			return 1
		}
		return 2
	}
	sort.SliceStable(order, func(i, j int) bool {
		ri, rj := rank(order[i]), rank(order[j])
		if ri != rj {
			return ri < rj
		}
		return ab[order[i].ID].BareSupport > ab[order[j].ID].BareSupport
	})
	for _, it := range order {
		if len(props) >= in.Quota {
			break
		}
		if touched[it.ID] {
			continue
		}
		a := ab[it.ID]
		why := ""
		switch {
		case a.Harmful:
			why = "harmful: the scope did better bare for two iterations running"
		case a.Absorbed:
			why = fmt.Sprintf("absorbed: its behaviour shows in %d of %d bare cards with successes", a.BareSupport, a.BareCards)
		case len(props) == 0:
			why = fmt.Sprintf("faded: the policy no longer needs the scope's items; least supported (%d current cards)", len(s.current(it.ID)))
		default:
			continue
		}
		props = append(props, table.Proposal{Op: table.OpDelete, Targets: []string{it.ID}, Layer: it.Layer, Rationale: why})
	}
	if len(props) == 0 {
		return nil, "no item to fade"
	}
	return props, ""
}

// fading reports whether COMPRESS fades (an absorption signal is given).
func (in Input) fading() bool { return in.Absorption != nil }

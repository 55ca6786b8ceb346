package refiner

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/table"
)

// corrections proposes edits of items stating a choice slot's value that
// the smoothed evidence contradicts (see RuleBased, REVISE).
func (b *RuleBased) corrections(s *scopeState, limit int) []table.Proposal {
	in := s.in
	texts := map[string]bool{}
	for _, it := range s.items {
		texts[scaffold.Normalize(it.Text)] = true
	}
	var props []table.Proposal
	for _, it := range s.items {
		if len(props) >= limit {
			break
		}
		if it.Layer == scaffold.LayerMistake {
			continue
		}
		p, v, ok := b.slotValue(it.Text)
		if !ok || !b.isChoice(p+":") {
			continue
		}
		w, _, held := b.slot(s.ev, p)
		if !held || scaffold.Normalize(humanize(w)) == v {
			continue
		}
		best := p + ":" + w
		if _, ok := b.ruleHolds(s, best); !ok {
			continue
		}
		text := b.Text(best)
		if text == "" || texts[scaffold.Normalize(text)] || in.Count(text) > in.MaxItemTokens {
			continue
		}
		texts[scaffold.Normalize(text)] = true
		old := p + ":" + strings.ReplaceAll(v, " ", "_")
		sup := topSupport(s.support[best])
		props = append(props, table.Proposal{Op: table.OpEdit, Targets: []string{it.ID}, Layer: it.Layer, Text: text,
			Support: sup,
			Rationale: fmt.Sprintf("corrected %s to %s: %s; %s in %d/%d successes and %d/%d failures; cites %d cards",
				old, best, b.statistic(s.ev, best), old, s.ev.rs[old], s.ev.rawS, s.ev.rf[old], s.ev.rawF, len(sup))})
	}
	return props
}

// differentRules reports whether two texts fill slot templates with
// different features ("Use the put action ..." and "Use the open action
// ...", or a heat and a cool rule): however many words they share, they
// are not near-duplicates.
func (b *RuleBased) differentRules(x, y string) bool {
	px, vx, okx := b.slotValue(x)
	py, vy, oky := b.slotValue(y)
	return okx && oky && (px != py || vx != vy)
}

// merges finds near-duplicate pairs (same layer), best first; each item is
// in at most one pair. keepShorter picks the text to keep.
func (b *RuleBased) merges(s *scopeState, keepShorter bool, limit int) []table.Proposal {
	return b.mergeItems(s, keepShorter, limit, nil)
}

// mergesExcept is REVISE's merges (the better-supported text kept) among
// items not in skip.
func (b *RuleBased) mergesExcept(s *scopeState, skip map[string]bool, limit int) []table.Proposal {
	if limit <= 0 {
		return nil
	}
	return b.mergeItems(s, false, limit, skip)
}

func (b *RuleBased) mergeItems(s *scopeState, keepShorter bool, limit int, skip map[string]bool) []table.Proposal {
	type pair struct {
		a, b table.ScaffoldItem
		j    float64
	}
	var pairs []pair
	for i, x := range s.items {
		for _, y := range s.items[i+1:] {
			if x.Layer != y.Layer || skip[x.ID] || skip[y.ID] {
				continue
			}
			if b.differentRules(x.Text, y.Text) {
				continue
			}
			if j := scaffold.Jaccard(x.Text, y.Text); j >= b.MergeJaccard {
				pairs = append(pairs, pair{x, y, j})
			}
		}
	}
	sort.SliceStable(pairs, func(i, j int) bool { return pairs[i].j > pairs[j].j })
	used := map[string]bool{}
	var props []table.Proposal
	for _, p := range pairs {
		if len(props) >= limit {
			break
		}
		if used[p.a.ID] || used[p.b.ID] {
			continue
		}
		used[p.a.ID], used[p.b.ID] = true, true
		keep := p.a
		if keepShorter {
			if p.b.Tokens < p.a.Tokens {
				keep = p.b
			}
		} else if ca, cb := len(s.current(p.a.ID)), len(s.current(p.b.ID)); cb > ca || cb == ca && p.b.Tokens < p.a.Tokens {
			keep = p.b
		}
		sup := append(append([]string{}, p.a.Support...), p.b.Support...)
		props = append(props, table.Proposal{Op: table.OpMerge, Targets: []string{p.a.ID, p.b.ID}, Layer: p.a.Layer,
			Text: keep.Text, Support: unique(sup),
			Rationale: fmt.Sprintf("near-duplicates (token Jaccard %.2f)", p.j)})
	}
	return props
}

func (b *RuleBased) revise(s *scopeState) ([]table.Proposal, string) {
	in := s.in
	props := b.corrections(s, in.Quota)
	touched := map[string]bool{}
	texts := map[string]bool{}
	for _, it := range s.items {
		texts[scaffold.Normalize(it.Text)] = true
	}
	for _, p := range props {
		texts[scaffold.Normalize(p.Text)] = true
		for _, t := range p.Targets {
			touched[t] = true
		}
	}
	for _, p := range b.mergesExcept(s, touched, in.Quota-len(props)) {
		props = append(props, p)
		for _, t := range p.Targets {
			touched[t] = true
		}
	}
	// Re-scope stale mistakes to the most frequent uncovered failure modes.
	covered := map[string]bool{}
	for _, it := range s.items {
		for _, f := range s.links[it.ID] {
			covered[f] = true
		}
	}
	var uncovered []string
	for _, m := range sortedKeys(s.ev.modes) {
		f := table.FailureFeature(m)
		if _, ok := b.ruleHolds(s, f); ok && !covered[f] && b.Text(f) != "" {
			uncovered = append(uncovered, m)
		}
	}
	sort.SliceStable(uncovered, func(i, j int) bool { return s.ev.modes[uncovered[i]] > s.ev.modes[uncovered[j]] })
	for _, it := range s.items {
		if len(props) >= in.Quota || len(uncovered) == 0 {
			break
		}
		if touched[it.ID] || it.Layer == scaffold.LayerTask || len(s.current(it.ID)) > 0 {
			continue
		}
		m := uncovered[0]
		text := b.Text(table.FailureFeature(m))
		if texts[scaffold.Normalize(text)] || in.Count(text) > in.MaxItemTokens {
			uncovered = uncovered[1:]
			continue
		}
		uncovered = uncovered[1:]
		touched[it.ID] = true
		texts[scaffold.Normalize(text)] = true
		props = append(props, table.Proposal{Op: table.OpEdit, Targets: []string{it.ID}, Layer: it.Layer, Text: text,
			Support:   topSupport(s.support[table.FailureFeature(m)]),
			Rationale: fmt.Sprintf("re-scoped from a failure mode that no longer occurs: %s", b.statistic(s.ev, table.FailureFeature(m)))})
	}
	// Update support to the current cards.
	for _, it := range s.items {
		if len(props) >= in.Quota {
			break
		}
		if touched[it.ID] {
			continue
		}
		cur := topSupport(s.current(it.ID))
		if len(cur) < in.MinSupport || strings.Join(cur, ",") == strings.Join(unique(it.Support), ",") {
			continue
		}
		props = append(props, table.Proposal{Op: table.OpEdit, Targets: []string{it.ID}, Layer: it.Layer, Text: it.Text,
			Support: cur, Rationale: fmt.Sprintf("support updated to %d current cards", len(cur))})
	}
	if len(props) == 0 {
		return nil, "no near-duplicate, stale mistake or outdated support to revise"
	}
	return props, ""
}

package refiner

import (
	"fmt"
	"sort"

	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/table"
)

// weakest orders items least supported first (current support, recorded
// support, last update, id).
func (s *scopeState) weakest() []table.ScaffoldItem {
	items := append([]table.ScaffoldItem(nil), s.items...)
	cur := map[string]int{}
	for _, it := range items {
		cur[it.ID] = len(s.current(it.ID))
	}
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i], items[j]
		if cur[a.ID] != cur[b.ID] {
			return cur[a.ID] < cur[b.ID]
		}
		if len(a.Support) != len(b.Support) {
			return len(a.Support) < len(b.Support)
		}
		if a.Updated != b.Updated {
			return a.Updated < b.Updated
		}
		return a.ID < b.ID
	})
	return items
}

// stillHolds reports whether item id has a linked feature whose rule
// still holds in the scope with enough support (ruleHolds).
func (b *RuleBased) stillHolds(s *scopeState, id string) bool {
	for _, f := range s.links[id] {
		if _, ok := b.ruleHolds(s, f); ok {
			return true
		}
	}
	return false
}

func (b *RuleBased) compress(s *scopeState) ([]table.Proposal, string) {
	in := s.in
	props := b.merges(s, true, in.Quota)
	touched := map[string]bool{}
	for _, p := range props {
		for _, t := range p.Targets {
			touched[t] = true
		}
	}
	for _, it := range s.weakest() {
		if len(props) >= in.Quota {
			break
		}
		if touched[it.ID] || b.stillHolds(s, it.ID) {
			continue
		}
		props = append(props, table.Proposal{Op: table.OpDelete, Targets: []string{it.ID}, Layer: it.Layer,
			Rationale: fmt.Sprintf("no linked rule holds any more (%d current cards)", len(s.current(it.ID)))})
	}
	if len(props) == 0 {
		return nil, "every item still states a rule that holds"
	}
	return props, ""
}

func (b *RuleBased) prune(s *scopeState) ([]table.Proposal, string) {
	in := s.in
	n, tok := scaffold.ScopeTotals(in.Items, in.TaskType)
	var props []table.Proposal
	for _, it := range s.weakest() {
		if len(props) > 0 && n < in.MaxItems && tok < in.MaxTokens {
			break
		}
		props = append(props, table.Proposal{Op: table.OpDelete, Targets: []string{it.ID}, Layer: it.Layer,
			Rationale: fmt.Sprintf("cap reached; least supported (%d current cards)", len(s.current(it.ID)))})
		n--
		tok -= int(it.Tokens)
	}
	if len(props) == 0 {
		return nil, "no item to prune"
	}
	return props, ""
}

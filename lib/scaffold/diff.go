package scaffold

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/words"
)

// Change is an item present in both snapshots with a different text, layer,
// type or support.
type Change struct {
	Old, New table.ScaffoldItem
}

// Merge is an item removed because it went into another item.
type Merge struct {
	From table.ScaffoldItem // the removed item
	Into table.ScaffoldItem // the item (in the new snapshot) it went into
}

// Diff is what changed from one snapshot to the next. Every list is sorted
// by item id.
type Diff struct {
	Added   []table.ScaffoldItem
	Changed []Change
	Merged  []Merge
	Removed []table.ScaffoldItem
}

// Empty reports whether the snapshots have the same items.
func (d Diff) Empty() bool {
	return len(d.Added)+len(d.Changed)+len(d.Merged)+len(d.Removed) == 0
}

// MergesFrom returns, from a validator's accepted merge proposals, the map
// removed item id -> id of the item it went into (the merge keeps its first
// target's id). decisions gives acceptance; a proposal without an accepted
// decision is ignored.
func MergesFrom(props []table.Proposal, decisions []table.Decision) map[string]string {
	ok := map[string]bool{}
	for _, d := range decisions {
		if d.Accepted {
			ok[d.ProposalID] = true
		}
	}
	m := map[string]string{}
	for _, p := range props {
		if p.Op != table.OpMerge || !ok[p.ProposalID] || len(p.Targets) < 2 {
			continue
		}
		for _, t := range p.Targets[1:] {
			m[t] = p.Targets[0]
		}
	}
	return m
}

// DiffItems compares snapshot old with its successor new. merges (removed id
// -> id it went into, e.g. from MergesFrom) classifies removed items as
// merged; when nil or silent about an item, a removed item counts as merged
// into an added or changed item whose support contains all of the removed
// item's (non-empty) support, or whose text contains all of its words, in the same layer and type; the
// first such item by id wins. Other removed items are removed.
func DiffItems(old, new []table.ScaffoldItem, merges map[string]string) Diff {
	var d Diff
	oldBy := map[string]table.ScaffoldItem{}
	newBy := map[string]table.ScaffoldItem{}
	for _, it := range old {
		oldBy[it.ID] = it
	}
	for _, it := range new {
		newBy[it.ID] = it
	}
	var touched []table.ScaffoldItem // added or changed: candidates to merge into
	for _, it := range new {
		o, ok := oldBy[it.ID]
		if !ok {
			d.Added = append(d.Added, it)
			touched = append(touched, it)
			continue
		}
		if o.Text != it.Text || o.Layer != it.Layer || o.TaskType != it.TaskType || !sameSet(o.Support, it.Support) {
			d.Changed = append(d.Changed, Change{Old: o, New: it})
			touched = append(touched, it)
		}
	}
	sort.Slice(touched, func(i, j int) bool { return touched[i].ID < touched[j].ID })
	for _, it := range old {
		if _, ok := newBy[it.ID]; ok {
			continue
		}
		if into, ok := merges[it.ID]; ok {
			if n, ok := newBy[into]; ok {
				d.Merged = append(d.Merged, Merge{From: it, Into: n})
				continue
			}
		}
		merged := false
		for _, n := range touched {
			if n.Layer != it.Layer || n.TaskType != it.TaskType {
				continue
			}
			if (len(it.Support) > 0 && subset(it.Support, n.Support)) || wordsContained(it.Text, n.Text) {
				d.Merged = append(d.Merged, Merge{From: it, Into: n})
				merged = true
				break
			}
		}
		if !merged {
			d.Removed = append(d.Removed, it)
		}
	}
	sort.Slice(d.Added, func(i, j int) bool { return d.Added[i].ID < d.Added[j].ID })
	sort.Slice(d.Changed, func(i, j int) bool { return d.Changed[i].New.ID < d.Changed[j].New.ID })
	sort.Slice(d.Merged, func(i, j int) bool { return d.Merged[i].From.ID < d.Merged[j].From.ID })
	sort.Slice(d.Removed, func(i, j int) bool { return d.Removed[i].ID < d.Removed[j].ID })
	return d
}

func sameSet(a, b []string) bool {
	return subset(a, b) && subset(b, a)
}

func subset(a, b []string) bool {
	in := map[string]bool{}
	for _, x := range b {
		in[x] = true
	}
	for _, x := range a {
		if !in[x] {
			return false
		}
	}
	return true
}

func wordsContained(small, big string) bool {
	ws, wb := words.Set(small), words.Set(big)
	if len(ws) == 0 {
		return false
	}
	for w := range ws {
		if !wb[w] {
			return false
		}
	}
	return true
}

func scopeName(it table.ScaffoldItem) string {
	if it.Layer == LayerGeneral {
		return "general"
	}
	return it.Layer + "/" + it.TaskType
}

// String is the printable form: one line per added (+), changed (~), merged
// (>) and removed (-) item, or "no change".
func (d Diff) String() string {
	if d.Empty() {
		return "no change\n"
	}
	var b strings.Builder
	for _, it := range d.Added {
		fmt.Fprintf(&b, "+ %s [%s] %s\n", it.ID, scopeName(it), it.Text)
	}
	for _, c := range d.Changed {
		fmt.Fprintf(&b, "~ %s [%s] %s\n", c.New.ID, scopeName(c.New), c.New.Text)
		if c.Old.Text != c.New.Text {
			fmt.Fprintf(&b, "    was: %s\n", c.Old.Text)
		}
		if !sameSet(c.Old.Support, c.New.Support) {
			fmt.Fprintf(&b, "    support: %d -> %d cards\n", len(c.Old.Support), len(c.New.Support))
		}
	}
	for _, m := range d.Merged {
		fmt.Fprintf(&b, "> %s [%s] merged into %s: %s\n", m.From.ID, scopeName(m.From), m.Into.ID, m.From.Text)
	}
	for _, it := range d.Removed {
		fmt.Fprintf(&b, "- %s [%s] %s\n", it.ID, scopeName(it), it.Text)
	}
	fmt.Fprintf(&b, "%d added, %d changed, %d merged, %d removed\n", len(d.Added), len(d.Changed), len(d.Merged), len(d.Removed))
	return b.String()
}

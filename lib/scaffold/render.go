package scaffold

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pats-rl/pats/lib/table"
)

// Section headings of a rendered scaffold, in order.
const (
	HeadingGeneral = "General:"
	HeadingTask    = "Task rules:"
	HeadingMistake = "Mistakes to avoid:"
)

// ForType returns the items shown for taskType: the general items and the
// task and mistake items of that type.
func ForType(items []table.ScaffoldItem, taskType string) []table.ScaffoldItem {
	var out []table.ScaffoldItem
	for _, it := range items {
		if it.Layer == LayerGeneral || it.TaskType == taskType {
			out = append(out, it)
		}
	}
	return out
}

// priority orders items highest priority first: task rules, mistakes,
// general; within a layer more support, then more recently updated, then id.
func priority(items []table.ScaffoldItem) []table.ScaffoldItem {
	rank := map[string]int{LayerTask: 0, LayerMistake: 1, LayerGeneral: 2}
	out := append([]table.ScaffoldItem(nil), items...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if rank[a.Layer] != rank[b.Layer] {
			return rank[a.Layer] < rank[b.Layer]
		}
		if len(a.Support) != len(b.Support) {
			return len(a.Support) > len(b.Support)
		}
		if a.Updated != b.Updated {
			return a.Updated > b.Updated
		}
		return a.ID < b.ID
	})
	return out
}

// layout writes items under the fixed headings, each layer's items by id.
func layout(items []table.ScaffoldItem) string {
	var b strings.Builder
	for _, sec := range []struct{ layer, head string }{
		{LayerGeneral, HeadingGeneral}, {LayerTask, HeadingTask}, {LayerMistake, HeadingMistake},
	} {
		var lines []table.ScaffoldItem
		for _, it := range items {
			if it.Layer == sec.layer {
				lines = append(lines, it)
			}
		}
		if len(lines) == 0 {
			continue
		}
		sort.SliceStable(lines, func(i, j int) bool { return lines[i].ID < lines[j].ID })
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(sec.head)
		b.WriteString("\n")
		for _, it := range lines {
			b.WriteString("- ")
			b.WriteString(it.Text)
			b.WriteString("\n")
		}
	}
	return b.String()
}

// DefaultBudget is the token budget a snapshot is rendered within by
// default: rollout's --scaffold-budget (evaluate's too) and validate show's
// --budget, so that show prints what an episode's context holds.
const DefaultBudget = 400

// Render returns the scaffold z for taskType: the general items, then the
// type's task rules, then its mistakes, under fixed headings. budget is the
// most tokens the text may have (count(text) <= budget; budget <= 0 means no
// limit); count is the run's token counter (WordCount when nil). Past the
// budget, items are dropped lowest priority first (see the package doc).
// kept lists the ids rendered, in rendering order; dropped the ids left out.
// An empty result means no item fits (or there are none).
func Render(items []table.ScaffoldItem, taskType string, budget int, count func(string) int) (text string, kept, dropped []string) {
	count = Counter(count)
	cand := priority(ForType(items, taskType))
	n := len(cand)
	if budget > 0 {
		// The longest prefix that fits. Token counts of a real tokenizer are
		// not strictly additive across lines, so each prefix is measured.
		n = 0
		for k := 1; k <= len(cand); k++ {
			if count(layout(cand[:k])) > budget {
				break
			}
			n = k
		}
	}
	shown := cand[:n]
	text = layout(shown)
	for _, l := range []string{LayerGeneral, LayerTask, LayerMistake} {
		var ids []string
		for _, it := range shown {
			if it.Layer == l {
				ids = append(ids, it.ID)
			}
		}
		sort.Strings(ids)
		kept = append(kept, ids...)
	}
	for _, it := range cand[n:] {
		dropped = append(dropped, it.ID)
	}
	return text, kept, dropped
}

// Show renders the scaffold of every task type in types (all types the
// items mention when types is empty) for reading: a "== <type> (N tokens,
// M items dropped)" line before each. The general layer alone is shown
// under "== general" when no task type exists.
func Show(items []table.ScaffoldItem, types []string, budget int, count func(string) int) string {
	count = Counter(count)
	if len(types) == 0 {
		types = TaskTypes(items)
	}
	var b strings.Builder
	if len(types) == 0 {
		text, _, dropped := Render(items, "", budget, count)
		fmt.Fprintf(&b, "== general (%d tokens, %d dropped)\n%s", count(text), len(dropped), text)
		return b.String()
	}
	for i, t := range types {
		text, _, dropped := Render(items, t, budget, count)
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "== %s (%d tokens, %d dropped)\n%s", t, count(text), len(dropped), text)
	}
	return b.String()
}

package refiner

import (
	"fmt"
	"sort"
	"strings"
)

// Prompt returns the system and user messages the OpenAI refiner sends: the
// rules of the primitive, the scope's evidence at iteration k, the rules the
// smoothed evidence of the window supports with their statistics (the
// rule-based refiner's, Statistics), up to maxCards cards of the window
// (lowest success rate first, then id) and the scope's current items.
func Prompt(in Input, maxCards int) (system, user string) {
	in = in.withDefaults()
	system = `You refine a training scaffold: short rules shown to an agent while it learns. ` +
		`Layers: "general" (all task types), "task" (steps for one task type), "mistake" (errors to avoid for one task type). ` +
		`You only propose edits; a validator accepts or rejects each one. ` +
		`Answer with one JSON object and nothing else: {"proposals": [{"op": "add|edit|merge|delete", "targets": ["item ids"], ` +
		`"layer": "general|task|mistake", "text": "one short line", "support": ["card ids"], "rationale": "why"}]}. ` +
		`Rules: add needs at least ` + fmt.Sprint(in.MinSupport) + ` supporting card ids (cards of this iteration or the earlier ones of the window, as cited in the evidence or shown) and no targets; ` +
		`state only what the evidence shows, in the words of its feature values (a place, a tool, an action): no fact the cards do not show; ` +
		`edit and delete name exactly one existing item id; merge names two or more and gives the merged text; ` +
		`texts are one line of at most ` + fmt.Sprint(in.MaxItemTokens) + ` words, concrete and not duplicates of existing items.`
	var b strings.Builder
	scope := in.TaskType
	if scope == "" {
		scope = "general layer (all task types)"
	}
	fmt.Fprintf(&b, "Scope: %s\nIteration: %d\nPrimitive: %s\n", scope, in.Iteration, in.Primitive)
	switch in.Primitive {
	case "EXPAND":
		fmt.Fprintf(&b, "EXPAND: the policy fails often. Propose at most %d additions (op add only): concrete steps that successful episodes (and failed ones that got far) share, or mistakes behind the dominant failure modes.\n", in.Quota)
	case "REVISE":
		fmt.Fprintf(&b, "REVISE: the policy is half-way. Propose at most %d edits or merges (no add, no delete): correct items the evidence now contradicts (edit the text to what it shows), merge near-duplicates, re-scope items to the current failure modes. The number of items must not grow.\n", in.Quota)
	case "COMPRESS":
		fmt.Fprintf(&b, "COMPRESS: the policy mostly succeeds. Propose at most %d deletes, merges or shortening edits: remove items the policy no longer needs. The total length must not grow.\n", in.Quota)
	case "FORCED_PRUNE":
		fmt.Fprintf(&b, "FORCED_PRUNE: the scaffold reached its cap (%d items, %d tokens). Propose deletes only, least useful items first.\n", in.MaxItems, in.MaxTokens)
	}
	e := in.Evidence
	fmt.Fprintf(&b, "\nEvidence: %d cards, %d episodes, mean success rate %.2f\n", e.NCards, e.NEpisodes, e.SuccessRate)
	if len(e.Contrast) > 0 {
		b.WriteString("Features separating success from failure (p_success - p_failure):\n")
		for i, f := range e.Contrast {
			fmt.Fprintf(&b, "  %s %+.2f\n", f, e.ContrastDiff[i])
		}
	}
	if len(e.FailureModes) > 0 {
		b.WriteString("Failure modes (episodes):")
		for i, m := range e.FailureModes {
			fmt.Fprintf(&b, " %s=%d", m, e.FailureModeCounts[i])
		}
		b.WriteString("\n")
	}
	if st := Statistics(in); len(st) > 0 {
		b.WriteString("Rules the evidence supports, smoothed over the window's iterations (newer ones count more), with the counts behind them:\n")
		for _, l := range st {
			fmt.Fprintf(&b, "  %s\n", l)
		}
	}
	cards := windowCards(in.Cards, in.TaskType, in.Iteration, in.Window)
	sort.SliceStable(cards, func(i, j int) bool { return cards[i].SuccessRate < cards[j].SuccessRate })
	if len(cards) > maxCards {
		cards = cards[:maxCards]
	}
	if len(cards) > 0 {
		b.WriteString("\nCards:\n")
	}
	for _, c := range cards {
		fmt.Fprintf(&b, "- %s iteration %d task %s (%s): success %.2f over %d episodes", c.CardID, c.Iteration, c.TaskID, c.TaskType, c.SuccessRate, c.NEpisodes)
		if len(c.Contrast) > 0 {
			b.WriteString("; contrast")
			for i, f := range c.Contrast {
				fmt.Fprintf(&b, " %s %+.2f", f, c.ContrastDiff[i])
			}
		}
		if len(c.FailureModes) > 0 {
			b.WriteString("; failures")
			for i, m := range c.FailureModes {
				fmt.Fprintf(&b, " %s=%d", m, c.FailureModeCounts[i])
			}
		}
		b.WriteString("\n")
		if c.RepSuccessSample != nil {
			fmt.Fprintf(&b, "    success example: %s\n", clip(strings.Join(c.RepSuccessActions, " ; "), 300))
		}
		if c.RepFailureSample != nil {
			fmt.Fprintf(&b, "    failure example (%s): %s\n", c.RepFailureMode, clip(strings.Join(c.RepFailureActions, " ; "), 300))
		}
	}
	items := ScopeItems(in.Items, in.TaskType)
	b.WriteString("\nCurrent items:\n")
	if len(items) == 0 {
		b.WriteString("  (none)\n")
	}
	for _, it := range items {
		fmt.Fprintf(&b, "- %s [%s] %s\n", it.ID, it.Layer, it.Text)
	}
	return system, b.String()
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + " ..."
}

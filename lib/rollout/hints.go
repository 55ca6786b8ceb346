package rollout

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/scaffold"
)

// Hint modes (rollout --hints): which of an environment's rules about a
// task (env.Hints) an episode sees in its scaffold.
const (
	HintsNone       = "none"
	HintsRight      = "right"
	HintsMisleading = "misleading"
	HintsIrrelevant = "irrelevant"
	// HintsMixed is the demonstrations' mix, drawn per task from the
	// rollout seed: no rules (1/4), the right rules (1/4), the right rules
	// and one irrelevant rule shuffled together (1/4), one irrelevant rule
	// (1/4). A policy that imitates an oracle that follows rules learns to
	// act on a rule that bears on its task and to pass over one that does
	// not.
	HintsMixed = "mixed"
)

// HintModes lists the modes in the order --help shows them.
var HintModes = []string{HintsNone, HintsRight, HintsMisleading, HintsIrrelevant, HintsMixed}

// HintText renders rules the way the scaffold renders its Task layer: the
// heading, then one "- " line per rule. No rules, no text.
func HintText(rules []string) string {
	if len(rules) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(scaffold.HeadingTask)
	b.WriteString("\n")
	for _, r := range rules {
		b.WriteString("- ")
		b.WriteString(r)
		b.WriteString("\n")
	}
	return b.String()
}

// HintFunc returns the Options.Hint of a mode for environment e (nil for
// "" and none). The environment must state rules (env.Hinter). A task the
// environment cannot state rules about gets none.
func HintFunc(e env.Env, mode string, seed int64) (func(taskID string) string, error) {
	switch mode {
	case "", HintsNone:
		return nil, nil
	case HintsRight, HintsMisleading, HintsIrrelevant, HintsMixed:
	default:
		return nil, fmt.Errorf("--hints %q: want one of %s", mode, strings.Join(HintModes, ", "))
	}
	h, ok := e.(env.Hinter)
	if !ok {
		return nil, fmt.Errorf("--hints %s: environment %s states no rules about its tasks", mode, e.Name())
	}
	return func(taskID string) string {
		hs, err := h.Hints(taskID)
		if err != nil {
			return ""
		}
		return HintText(pickHints(hs, mode, EpisodeSeed(seed, taskID, -2)))
	}, nil
}

// pickHints chooses the rules of one task under a mode.
func pickHints(hs env.Hints, mode string, seed int64) []string {
	switch mode {
	case HintsRight:
		return hs.Right
	case HintsMisleading:
		return hs.Misleading
	case HintsIrrelevant:
		return hs.Irrelevant
	case HintsMixed:
		r := rand.New(rand.NewPCG(uint64(seed), 0x68696e74))
		var rules []string
		switch r.IntN(4) {
		case 0:
			return nil
		case 1:
			rules = append(rules, hs.Right...)
		case 2:
			rules = append(rules, hs.Right...)
			if len(hs.Irrelevant) > 0 {
				rules = append(rules, hs.Irrelevant[r.IntN(len(hs.Irrelevant))])
			}
		case 3:
			if len(hs.Irrelevant) > 0 {
				rules = append(rules, hs.Irrelevant[r.IntN(len(hs.Irrelevant))])
			}
		}
		r.Shuffle(len(rules), func(i, j int) { rules[i], rules[j] = rules[j], rules[i] })
		return rules
	}
	return nil
}

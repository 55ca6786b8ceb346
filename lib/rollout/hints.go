package rollout

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/skill"
)

// Hint modes (rollout --hints): which of an environment's rules about a
// task (env.Hints) an episode sees in its scaffold.
const (
	HintsNone       = "none"
	HintsRight      = "right"
	HintsMisleading = "misleading"
	HintsIrrelevant = "irrelevant"
	// HintsMixed is the demonstrations' mix, drawn per task from the
	// rollout seed, each with chance 1/6: no rules; the right rules; the
	// right rules and one irrelevant rule, shuffled; one irrelevant rule
	// (these three in the scaffold's place); the right rules as a skill
	// body before the first action (env.Hints.Steps, in order, rendered by
	// HintBody); one irrelevant rule as a skill body. A policy that imitates an oracle that follows rules learns
	// to act on a rule that bears on its task, wherever it stands, and to
	// pass over one that does not.
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

// HintBody renders rules as a skill body: numbered lower-case steps.
func HintBody(rules []string) string {
	var b strings.Builder
	for i, r := range rules {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%d. %s", i+1, strings.ToLower(r))
	}
	return b.String()
}

// HintFuncs returns the Options.Hint and Options.HintBody of a mode for
// environment e (both nil for "" and none). The environment must state
// rules (env.Hinter). A task the environment cannot state rules about gets
// none.
func HintFuncs(e env.Env, mode string, seed int64) (scaffoldText, bodyText func(taskID string) string, err error) {
	switch mode {
	case "", HintsNone:
		return nil, nil, nil
	case HintsRight, HintsMisleading, HintsIrrelevant, HintsMixed:
	default:
		return nil, nil, badSetting("hints", "%q: want one of %s", mode, strings.Join(HintModes, ", "))
	}
	h, ok := e.(env.Hinter)
	if !ok {
		return nil, nil, badSetting("hints", "%s: environment %s states no rules about its tasks", mode, e.Name())
	}
	pick := func(taskID string) ([]string, bool) {
		hs, err := h.Hints(taskID)
		if err != nil {
			return nil, false
		}
		return pickHints(hs, mode, EpisodeSeed(seed, taskID, -2))
	}
	scaffoldText = func(taskID string) string {
		if rules, body := pick(taskID); !body {
			return HintText(rules)
		}
		return ""
	}
	if mode == HintsMixed {
		bodyText = func(taskID string) string {
			if rules, body := pick(taskID); body {
				return HintBody(rules)
			}
			return ""
		}
	}
	return scaffoldText, bodyText, nil
}

// HintFunc is HintFuncs without the body (modes other than mixed show
// rules in the scaffold's place only).
func HintFunc(e env.Env, mode string, seed int64) (func(taskID string) string, error) {
	f, _, err := HintFuncs(e, mode, seed)
	return f, err
}

// pickHints chooses the rules of one task under a mode, and whether they
// go in a skill body rather than the scaffold's place.
func pickHints(hs env.Hints, mode string, seed int64) (rules []string, body bool) {
	switch mode {
	case HintsRight:
		return hs.Right, false
	case HintsMisleading:
		return hs.Misleading, false
	case HintsIrrelevant:
		return hs.Irrelevant, false
	case HintsMixed:
		r := rand.New(rand.NewPCG(uint64(seed), 0x68696e74))
		one := func() []string {
			if len(hs.Irrelevant) == 0 {
				return nil
			}
			return []string{hs.Irrelevant[r.IntN(len(hs.Irrelevant))]}
		}
		switch r.IntN(6) {
		case 0:
			return nil, false
		case 1:
			rules = append(rules, hs.Right...)
		case 2:
			rules = append(append(rules, hs.Right...), one()...)
		case 3:
			rules = one()
		case 4:
			if rules, body = hs.Steps, true; len(rules) == 0 {
				rules = hs.Right
			}
			return rules, body // steps keep their order
		case 5:
			rules, body = one(), true
		}
		r.Shuffle(len(rules), func(i, j int) { rules[i], rules[j] = rules[j], rules[i] })
		return rules, body
	}
	return nil, false
}

// The modes of PrereadFunc: which library skill's body stands before the
// first action of an episode without a slate.
const (
	PrereadNone   = "none"
	PrereadRight  = "right"
	PrereadRandom = "random"
)

// PrereadFunc returns Options.Preread for a mode: none (or "") gives nil;
// right gives the body of the type's right skill (the first in name
// order); random the body of a library skill drawn per task from the
// rollout seed, whatever it is. A right skill's body is the one the
// environment states for the task when it is an env.BodyStater (the
// draws of household-drawn), as a read of it would show. Demonstrations
// of a base that meets skill bodies without a slate use it; a type
// without a right skill gets no body under right.
func PrereadFunc(e env.Env, lib *skill.Library, mode string, seed int64) (func(taskID, taskType string) string, error) {
	switch mode {
	case "", PrereadNone:
		return nil, nil
	case PrereadRight, PrereadRandom:
	default:
		return nil, badSetting("preread", "%q: want none, right or random", mode)
	}
	if lib == nil {
		return nil, badSetting("preread", "%s: environment %s has no skill library", mode, e.Name())
	}
	all := lib.Skills()
	if len(all) == 0 {
		return nil, badSetting("preread", "%s: the skill library of %s is empty", mode, e.Name())
	}
	stater, _ := e.(env.BodyStater)
	return func(taskID, taskType string) string {
		var s skill.Skill
		if mode == PrereadRight {
			names := lib.Right(taskType)
			if len(names) == 0 {
				return ""
			}
			sort.Strings(names)
			s, _ = lib.Get(names[0])
		} else {
			s = all[uint64(EpisodeSeed(seed, taskID, -3))%uint64(len(all))]
		}
		if stater != nil && lib.IsRight(s.Name, taskType) {
			return stater.RightBody(taskID, s.Body)
		}
		return s.Body
	}, nil
}

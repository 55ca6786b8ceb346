package rl

import (
	"github.com/pats-rl/pats/lib/table"
)

// Credit is how an episode's advantage reaches its tokens.
type Credit int

const (
	// Broadcast gives every policy-written token the episode's outcome
	// advantage (ordinary GRPO).
	Broadcast Credit = iota
	// SkillGate gives execution tokens (RoleAction) the outcome advantage
	// and skill-name tokens (RoleSkillName) the selection advantage.
	SkillGate
)

// ParseCredit reads "broadcast" or "skillgate".
func ParseCredit(s string) (Credit, error) {
	switch s {
	case "broadcast", "":
		return Broadcast, nil
	case "skillgate":
		return SkillGate, nil
	}
	return 0, badSetting("credit", "%q: want broadcast or skillgate", s)
}

func (c Credit) String() string {
	if c == SkillGate {
		return "skillgate"
	}
	return "broadcast"
}

// Credit channels of a token.
const (
	ChannelNone      int8 = 0 // no advantage reaches the token
	ChannelOutcome   int8 = 1 // the group-relative outcome advantage
	ChannelSelection int8 = 2 // the skill-selection advantage (SkillGate)
)

// SelectBaseline is how SkillGate's selection advantage is formed.
type SelectBaseline int

const (
	// SelectGroup centres each read action's utility on the group: the
	// utility is 1 when the episode's single read is the right skill, else
	// 0, and the advantage is the utility minus the mean utility of all
	// read actions of the group (GroupSelectionAdvantages). The selection
	// term of the loss is scaled by select_coef.
	SelectGroup SelectBaseline = iota
	// SelectNone is the action-local rule without a baseline:
	// +select_coef for a single right read, -select_coef otherwise
	// (SelectionAdvantage); the selection term is not scaled further.
	SelectNone
)

func (b SelectBaseline) String() string {
	if b == SelectNone {
		return "none"
	}
	return "group"
}

// ParseSelectBaseline reads "group" or "none".
func ParseSelectBaseline(s string) (SelectBaseline, error) {
	switch s {
	case "group", "":
		return SelectGroup, nil
	case "none":
		return SelectNone, nil
	}
	return 0, badSetting("select-baseline", "%q: want group or none", s)
}

// SelectionAdvantage is SkillGate's action-local advantage of an episode's
// skill reads without a baseline: +coef when it made exactly one read and
// that read was right (and not misleading); -coef when it read several
// skills, or any read was misleading or not right; 0 (no selection credit)
// without reads.
func SelectionAdvantage(right, misleading []bool, coef float64) float64 {
	if len(right) == 0 {
		return 0
	}
	if ReadUtility(right, misleading) == 1 {
		return coef
	}
	return -coef
}

// ReadUtility is the utility of each read action of an episode: 1 when
// the episode made exactly one read and it was the right skill (and not a
// misleading one), else 0. Every read of an episode shares it.
func ReadUtility(right, misleading []bool) float64 {
	if len(right) == 1 && right[0] && !(len(misleading) > 0 && misleading[0]) {
		return 1
	}
	return 0
}

// GroupSelectionAdvantages returns the group-centred selection advantage
// of every episode's read actions: episode i made reads[i] read actions of
// utility utility[i] (ReadUtility) in group groups[i]; the advantage is
// utility[i] minus the mean utility over all read actions of the group
// (an episode with three reads counts three times). A group whose read
// actions all share one utility gives exactly 0, and an episode without
// reads gets 0.
func GroupSelectionAdvantages(reads []int, utility []float64, groups []string) []float64 {
	type acc struct {
		sum, n   float64
		min, max float64
	}
	by := map[string]*acc{}
	for i, g := range groups {
		if reads[i] == 0 {
			continue
		}
		a := by[g]
		if a == nil {
			a = &acc{min: utility[i], max: utility[i]}
			by[g] = a
		}
		a.sum += float64(reads[i]) * utility[i]
		a.n += float64(reads[i])
		a.min, a.max = min(a.min, utility[i]), max(a.max, utility[i])
	}
	out := make([]float64, len(groups))
	for i, g := range groups {
		a := by[g]
		if reads[i] == 0 || a.min == a.max {
			continue
		}
		out[i] = utility[i] - a.sum/a.n
	}
	return out
}

// TokenCredit assigns per-token advantages and channels for one episode
// with roles, outcome advantage outcome and selection advantage selection.
// hasReads says whether the episode made any read: without reads its
// skill-name tokens (if any) get no credit under SkillGate. Tokens that are
// not policy-written get channel 0 and advantage 0.
func TokenCredit(roles []int8, c Credit, outcome, selection float64, hasReads bool) (adv []float32, ch []int8) {
	return TokenCreditSteps(roles, c, outcome, selection, hasReads, nil)
}

// TokenCreditSteps is TokenCredit with a step-level term: step[t] (already
// scaled by the step weight) is added to the outcome advantage of every
// outcome-channel token of turn t (TurnOf). Under SkillGate it reaches the
// execution tokens only, never the skill-name tokens. step nil adds
// nothing; otherwise it must have one value per turn.
func TokenCreditSteps(roles []int8, c Credit, outcome, selection float64, hasReads bool, step []float64) (adv []float32, ch []int8) {
	adv = make([]float32, len(roles))
	ch = make([]int8, len(roles))
	var turn []int
	if step != nil {
		turn, _ = TurnOf(roles)
	}
	for t, r := range roles {
		switch {
		case !table.PolicyWritten(r):
		case c == Broadcast || r == table.RoleAction:
			a := outcome
			if step != nil {
				a += step[turn[t]]
			}
			adv[t], ch[t] = float32(a), ChannelOutcome
		case hasReads: // SkillGate, skill-name token
			adv[t], ch[t] = float32(selection), ChannelSelection
		}
	}
	return adv, ch
}

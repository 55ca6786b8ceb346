package rl

import (
	"fmt"

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
	return 0, fmt.Errorf("unknown --credit %q: want broadcast or skillgate", s)
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

// SelectionAdvantage is SkillGate's action-local advantage of an episode's
// skill reads: +coef when it made exactly one read and that read was right
// (and not misleading); -coef when it read several skills, or any read was
// misleading or not right; 0 (no selection credit) without reads.
func SelectionAdvantage(right, misleading []bool, coef float64) float64 {
	if len(right) == 0 {
		return 0
	}
	if len(right) == 1 && right[0] && !(len(misleading) > 0 && misleading[0]) {
		return coef
	}
	return -coef
}

// TokenCredit assigns per-token advantages and channels for one episode
// with roles, outcome advantage outcome and selection advantage selection.
// hasReads says whether the episode made any read: without reads its
// skill-name tokens (if any) get no credit under SkillGate. Tokens that are
// not policy-written get channel 0 and advantage 0.
func TokenCredit(roles []int8, c Credit, outcome, selection float64, hasReads bool) (adv []float32, ch []int8) {
	adv = make([]float32, len(roles))
	ch = make([]int8, len(roles))
	for t, r := range roles {
		switch {
		case !table.PolicyWritten(r):
		case c == Broadcast || r == table.RoleAction:
			adv[t], ch[t] = float32(outcome), ChannelOutcome
		case hasReads: // SkillGate, skill-name token
			adv[t], ch[t] = float32(selection), ChannelSelection
		}
	}
	return adv, ch
}

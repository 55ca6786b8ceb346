package rl

import (
	"fmt"

	"github.com/pats-rl/pats/lib/table"
)

// StepCredit is the step-level credit added to the episode's advantage.
type StepCredit int

const (
	// StepNone adds nothing: every token of an episode gets the episode's
	// advantage (GRPO).
	StepNone StepCredit = iota
	// StepGiGPO adds GiGPO's step advantage: each turn's discounted return
	// relative to the turns of the group that acted from the same
	// anchor state (StepAdvantages).
	StepGiGPO
)

func (s StepCredit) String() string {
	if s == StepGiGPO {
		return "gigpo"
	}
	return "none"
}

// ParseStepCredit reads "none" or "gigpo".
func ParseStepCredit(s string) (StepCredit, error) {
	switch s {
	case "none", "":
		return StepNone, nil
	case "gigpo":
		return StepGiGPO, nil
	}
	return 0, badSetting("step-credit", "%q: want none or gigpo", s)
}

// ParseCredits reads the credit (broadcast, skillgate, or gigpo: broadcast
// with GiGPO's step credit) and the step credit (none or gigpo; "" when not
// given). Credit gigpo implies step credit gigpo: with a step credit of
// none given beside it the two conflict, an error rather than one silently
// overriding the other.
func ParseCredits(credit, step string) (Credit, StepCredit, error) {
	sc, err := ParseStepCredit(step)
	if err != nil {
		return 0, 0, err
	}
	if credit == "gigpo" {
		if step != "" && sc != StepGiGPO {
			return 0, 0, &CreditConflict{Step: step}
		}
		return Broadcast, StepGiGPO, nil
	}
	c, err := ParseCredit(credit)
	if err != nil {
		return 0, 0, badSetting("credit", "%q: want broadcast, skillgate or gigpo", credit)
	}
	return c, sc, nil
}

// CreditConflict is credit gigpo (broadcast with GiGPO's step credit)
// given beside another step credit.
type CreditConflict struct{ Step string }

func (e *CreditConflict) Error() string {
	return fmt.Sprintf("credit gigpo is broadcast with step credit gigpo; it conflicts with step credit %s", e.Step)
}

// CreditName names a credit assignment as the advantages file's credit
// column does: broadcast, skillgate, gigpo (broadcast with step credit) or
// skillgate+gigpo.
func CreditName(c Credit, s StepCredit) string {
	switch {
	case s == StepNone:
		return c.String()
	case c == Broadcast:
		return "gigpo"
	}
	return c.String() + "+gigpo"
}

// DiscountedReturns returns every turn's discounted return,
// R_t = r_t + gamma*R_{t+1} (R past the last turn is 0).
func DiscountedReturns(rewards []float64, gamma float64) []float64 {
	out := make([]float64, len(rewards))
	next := 0.0
	for t := len(rewards) - 1; t >= 0; t-- {
		next = rewards[t] + gamma*next
		out[t] = next
	}
	return out
}

// StepAdvantages is GiGPO's step-level advantage of every turn of every
// episode: episodes i and j are in one group when groups[i] == groups[j];
// within a group, the turns whose anchor-state keys are equal form a step
// group (turns of one episode included), and a turn's advantage is its
// discounted return (DiscountedReturns with gamma) relative to its step
// group's returns under norm, exactly as GroupAdvantages treats episode
// rewards: a step group of one, or one whose returns are all equal, gives
// 0. keys[i] and rewards[i] are episode i's per-turn keys and rewards, of
// equal length. It also returns the returns.
func StepAdvantages(keys [][]string, rewards [][]float64, groups []string, gamma float64, norm AdvNorm) (adv, returns [][]float64) {
	var flat []float64
	var ids []string
	returns = make([][]float64, len(keys))
	for i := range keys {
		returns[i] = DiscountedReturns(rewards[i], gamma)
		for t, k := range keys[i] {
			flat = append(flat, returns[i][t])
			ids = append(ids, groups[i]+"\x00"+k)
		}
	}
	a, _ := GroupAdvantages(flat, ids, norm)
	adv = make([][]float64, len(keys))
	n := 0
	for i := range keys {
		adv[i] = a[n : n+len(keys[i]) : n+len(keys[i])]
		n += len(keys[i])
	}
	return adv, returns
}

// StepGroupSizes returns, for every turn of every episode, the size of
// its step group (the turns of its group with the same anchor-state key,
// itself included). Anchor coverage is the share of turns whose size is
// at least 2.
func StepGroupSizes(keys [][]string, groups []string) [][]int {
	count := map[string]int{}
	for i := range keys {
		for _, k := range keys[i] {
			count[groups[i]+"\x00"+k]++
		}
	}
	out := make([][]int, len(keys))
	for i := range keys {
		out[i] = make([]int, len(keys[i]))
		for t, k := range keys[i] {
			out[i][t] = count[groups[i]+"\x00"+k]
		}
	}
	return out
}

// TurnOf returns the turn of every token: the policy-written tokens form
// one maximal run per turn (an action and its end token, or a skill read),
// numbered from 0 in order; other tokens get -1. n is the number of turns.
func TurnOf(roles []int8) (turn []int, n int) {
	turn = make([]int, len(roles))
	prev := false
	for t, r := range roles {
		on := table.PolicyWritten(r)
		switch {
		case !on:
			turn[t] = -1
		case prev:
			turn[t] = n - 1
		default:
			turn[t] = n
			n++
		}
		prev = on
	}
	return turn, n
}

package rl

import "github.com/pats-rl/pats/lib/table"

// ScoredEnd is one past the last policy-written token of roles (0 when
// there is none): under causal attention no scored token sees a token at
// or after it.
func ScoredEnd(roles []int8) int {
	for t := len(roles) - 1; t >= 0; t-- {
		if table.PolicyWritten(roles[t]) {
			return t + 1
		}
	}
	return 0
}

// CutTail returns r, or, when r has no history window and is longer than
// maxLen tokens, a copy cut after its last policy-written token: the tail
// is context that no scored token sees (the environment's last
// observation after the final answer), and cutting it lets an episode
// whose answers fit the model's positions train. Rows that fit are left
// as they are, so their sequences, batches and results do not change.
// The rows must have passed CheckTokens.
func CutTail(r *table.Trajectory, maxLen int) *table.Trajectory {
	if Windowed(r) || len(r.Tokens) <= maxLen {
		return r
	}
	e := ScoredEnd(r.Roles)
	c := *r
	c.Tokens, c.Roles, c.Logprobs = r.Tokens[:e:e], r.Roles[:e:e], r.Logprobs[:e:e]
	return &c
}

// CutTails cuts the tail of every prepared episode without a window that
// is longer than maxLen tokens (CutTail), with its mask, advantages and
// channels; the advantages rows Credits returned keep every token.
func CutTails(prep []Prepared, maxLen int) {
	for i := range prep {
		p := &prep[i]
		c := CutTail(p.Row, maxLen)
		if c == p.Row {
			continue
		}
		e := len(c.Tokens)
		p.Row, p.Mask, p.Adv, p.Channels = c, p.Mask[:e:e], p.Adv[:e:e], p.Channels[:e:e]
	}
}

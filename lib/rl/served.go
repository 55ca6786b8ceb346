package rl

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/table"
)

// IsServed reports whether an inference server played r: its policy
// column is the server's URL (http:// or https://, rollout --policy URL).
func IsServed(r *table.Trajectory) bool {
	return strings.HasPrefix(r.Policy, "http://") || strings.HasPrefix(r.Policy, "https://")
}

// Drift is how far the behaviour log-probabilities a server recorded were
// from those the policy checkpoint computes for the same tokens.
type Drift struct {
	Rows, Tokens int     // served episodes and their policy-written tokens
	Mean, Max    float64 // mean and largest |recorded - recomputed|
}

// String is the drift in one line.
func (d Drift) String() string {
	return fmt.Sprintf("%d tokens of %d episodes: |server - recomputed| mean %.3g, max %.3g", d.Tokens, d.Rows, d.Mean, d.Max)
}

// RecomputeBehaviour replaces the behaviour log-probabilities of the served
// rows of prep (IsServed) by those m computes at its scoring temperature,
// before any step: a server computes them in another precision and, by
// version, before or after its temperature, so they are not used for the
// importance ratio. The rows the caller read are left alone (each
// sequence gets its own copy). It returns how far the recorded ones were.
func RecomputeBehaviour(ctx context.Context, m *model.Model, prep []Prepared) (Drift, error) {
	var d Drift
	var sum float64
	for i := range prep {
		p := &prep[i]
		if !IsServed(p.Row) {
			continue
		}
		d.Rows++
		seqs := []*Prepared{p}
		if p.Turns != nil {
			seqs = nil
			for j := range p.Turns {
				seqs = append(seqs, &p.Turns[j])
			}
		}
		for _, q := range seqs {
			if err := ctx.Err(); err != nil {
				return d, err
			}
			lp, _, err := m.LogProbs([][]int32{q.Row.Tokens}, [][]bool{q.Mask})
			if err != nil {
				return d, fmt.Errorf("recomputing behaviour log-probabilities: %w", err)
			}
			row := *q.Row
			row.Logprobs = slices.Clone(row.Logprobs)
			for t, on := range q.Mask {
				if !on {
					continue
				}
				diff := math.Abs(float64(row.Logprobs[t]) - float64(lp[0][t]))
				sum += diff
				d.Max = max(d.Max, diff)
				d.Tokens++
				row.Logprobs[t] = lp[0][t]
			}
			q.Row = &row
		}
	}
	if d.Tokens > 0 {
		d.Mean = sum / float64(d.Tokens)
	}
	return d, nil
}

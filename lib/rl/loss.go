package rl

import (
	"fmt"
	"math"
)

// Surrogate is PPO's clipped surrogate loss of one token and its
// derivative with respect to the current log-probability:
//
//	r    = exp(logp - behaviour)
//	loss = -min(r*adv, clip(r, 1-eps, 1+eps)*adv)
//
// clipped reports that the clipped branch is taken with the ratio outside
// [1-eps, 1+eps], where the gradient is zero (adv > 0 and r > 1+eps, or
// adv < 0 and r < 1-eps). Elsewhere dloss/dlogp = -adv*r. A zero advantage
// gives loss and derivative 0 whatever the ratio.
func Surrogate(logp, behaviour, adv, eps float64) (loss, dlogp float64, clipped bool) {
	if adv == 0 {
		return 0, 0, false
	}
	r := math.Exp(logp - behaviour)
	switch {
	case adv > 0 && r > 1+eps:
		return -(1 + eps) * adv, 0, true
	case adv < 0 && r < 1-eps:
		return -(1 - eps) * adv, 0, true
	}
	return -r * adv, -adv * r, false
}

// K3 is the k3 estimator of KL(policy || reference) at one token sampled
// from the policy, with d = ref - logp:
//
//	k3 = exp(d) - d - 1 >= 0,   dk3/dlogp = 1 - exp(d).
func K3(logp, ref float64) (kl, dlogp float64) {
	d := ref - logp
	e := math.Exp(d)
	return e - d - 1, 1 - e
}

// Agg is how per-token losses are averaged into a minibatch loss.
type Agg int

const (
	// SeqMean averages each sequence's token losses, then the sequences.
	SeqMean Agg = iota
	// TokenMean averages over all tokens of the minibatch.
	TokenMean
)

// ParseAgg reads "seq-mean" or "token-mean".
func ParseAgg(s string) (Agg, error) {
	switch s {
	case "seq-mean", "":
		return SeqMean, nil
	case "token-mean":
		return TokenMean, nil
	}
	return 0, fmt.Errorf("unknown --loss-agg %q: want seq-mean or token-mean", s)
}

func (a Agg) String() string {
	if a == TokenMean {
		return "token-mean"
	}
	return "seq-mean"
}

// AggWeights returns the weight of one token of each sequence of a
// minibatch whose sequences have counts[i] loss tokens: loss = sum over
// sequences i and their tokens t of w[i]*loss[i][t]. SeqMean gives
// 1/(B*counts[i]) with B the sequences that have tokens; TokenMean gives
// 1/sum(counts). A sequence without loss tokens gets 0.
func AggWeights(counts []int, a Agg) []float64 {
	w := make([]float64, len(counts))
	total, seqs := 0, 0
	for _, n := range counts {
		total += n
		if n > 0 {
			seqs++
		}
	}
	for i, n := range counts {
		if n == 0 {
			continue
		}
		if a == TokenMean {
			w[i] = 1 / float64(total)
		} else {
			w[i] = 1 / (float64(seqs) * float64(n))
		}
	}
	return w
}

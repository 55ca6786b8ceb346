package rl

import (
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
//	k3 = exp(d) - d - 1 >= 0,   dk3/dlogp = 1 - exp(d),
//
// continued linearly beyond d = k3Bend (where the policy gives the token
// 1/(1+K3Slope) of the reference's probability), so that the size of its
// derivative never exceeds K3Slope:
//
//	k3 = k3(k3Bend) + K3Slope * (d - k3Bend),   dk3/dlogp = -K3Slope.
//
// Unbounded, exp(d) lets one token whose probability the policy has
// driven far below the reference's dominate a whole step: a run of the
// s59 sweep saw a single token at d = 14.6 give a minibatch k3 of 256
// (every other step of the sweep under 1.1) and a gradient norm of 155.
// For d <= k3Bend the estimator is the usual one, bit for bit; for
// d < 0 its slope is already under 1.
func K3(logp, ref float64) (kl, dlogp float64) {
	d := ref - logp
	if d > k3Bend {
		return k3Bent + K3Slope*(d-k3Bend), -K3Slope
	}
	e := math.Exp(d)
	return e - d - 1, 1 - e
}

// K3Slope bounds the size of K3's derivative.
const K3Slope = 10

// k3Bend = ln(1 + K3Slope) is where exp(d) - 1 reaches K3Slope, and k3Bent
// the estimator's value there, exp(k3Bend) - k3Bend - 1.
var (
	k3Bend = math.Log(1 + K3Slope)
	k3Bent = K3Slope - k3Bend
)

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
	return 0, badSetting("loss-agg", "%q: want seq-mean or token-mean", s)
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

// SelectNorm is how SkillGate's selection channel is averaged into the
// minibatch loss.
type SelectNorm int

const (
	// SelectChannel makes the selection channel a loss term of its own:
	// its tokens are averaged over the sequences that have selection
	// tokens (per Agg), and the outcome term over the remaining
	// policy-written tokens, so a skill name weighs as much as a whole
	// episode's execution whatever the episode's length.
	SelectChannel SelectNorm = iota
	// SelectSequence keeps the selection tokens inside their sequence's
	// average with the execution tokens (one term, as under broadcast):
	// their share of the loss shrinks as episodes lengthen.
	SelectSequence
)

func (n SelectNorm) String() string {
	if n == SelectSequence {
		return "sequence"
	}
	return "channel"
}

// ParseSelectNorm reads "channel" or "sequence".
func ParseSelectNorm(s string) (SelectNorm, error) {
	switch s {
	case "channel":
		return SelectChannel, nil
	case "sequence":
		return SelectSequence, nil
	}
	return 0, badSetting("select-norm", "%q: want channel or sequence", s)
}

// Weights are the aggregation weights of one sequence's tokens: Outcome
// for tokens outside the selection channel, Select for those in it.
type Weights struct{ Outcome, Select float64 }

// ChannelWeights returns the aggregation weights of a minibatch. Under
// SelectSequence (or with no selection tokens) both weights of a sequence
// are AggWeights over its policy-written tokens. Under SelectChannel the
// loss is the sum of two averages, each by agg: the outcome term over the
// tokens outside the selection channel, and the selection term over the
// selection tokens of the sequences that have any.
func ChannelWeights(batch []*Prepared, agg Agg, norm SelectNorm) []Weights {
	all := make([]int, len(batch))
	out := make([]int, len(batch))
	sel := make([]int, len(batch))
	for i, p := range batch {
		all[i], out[i], sel[i] = p.NLoss, p.NLoss-p.NSelect, p.NSelect
	}
	w := make([]Weights, len(batch))
	if norm == SelectSequence {
		for i, x := range AggWeights(all, agg) {
			w[i] = Weights{x, x}
		}
		return w
	}
	ow, sw := AggWeights(out, agg), AggWeights(sel, agg)
	for i := range w {
		w[i] = Weights{ow[i], sw[i]}
	}
	return w
}

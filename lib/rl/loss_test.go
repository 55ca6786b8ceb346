package rl

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/pats-rl/pats/lib/table"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// TestGroupAdvantages checks advantages worked out by hand.
func TestGroupAdvantages(t *testing.T) {
	// Group a: rewards 1,0,1,0: mean 0.5, sample std sqrt(4*0.25/3) = 0.57735.
	// Group b: rewards 3,0,0: mean 1, deviations 2,-1,-1, std sqrt(6/2) = 1.73205.
	// Group c: rewards 2,2: all equal, advantage 0.
	rewards := []float64{1, 0, 3, 2, 0, 1, 0, 2, 0}
	groups := []string{"a", "a", "b", "c", "b", "a", "b", "c", "a"}
	cases := []struct {
		norm AdvNorm
		want []float64
	}{
		{NormStd, []float64{0.866025, -0.866025, 1.154700, 0, -0.577350, 0.866025, -0.577350, 0, -0.866025}},
		{NormMean, []float64{0.5, -0.5, 2, 0, -1, 0.5, -1, 0, -0.5}},
	}
	for _, c := range cases {
		adv, zv := GroupAdvantages(rewards, groups, c.norm)
		for i := range adv {
			if !near(adv[i], c.want[i], 1e-5) {
				t.Errorf("%v: adv[%d] = %.6f, want %.6f", c.norm, i, adv[i], c.want[i])
			}
		}
		if len(zv) != 1 || zv[0] != "c" {
			t.Errorf("%v: zero-variance groups %v, want [c]", c.norm, zv)
		}
	}
	// Equal rewards that do not average exactly in floating point still
	// give exactly zero.
	adv, zv := GroupAdvantages([]float64{0.1, 0.1, 0.1}, []string{"g", "g", "g"}, NormStd)
	for _, a := range adv {
		if a != 0 {
			t.Errorf("equal rewards: advantage %v, want 0", a)
		}
	}
	if len(zv) != 1 {
		t.Errorf("equal rewards: zero-variance groups %v", zv)
	}
}

// TestSurrogate checks the clipped surrogate inside and outside the clip
// range for positive and negative advantages (eps 0.2).
func TestSurrogate(t *testing.T) {
	cases := []struct {
		name        string
		ratio, adv  float64
		loss, dlogp float64
		clipped     bool
	}{
		{"A>0 inside", 1.1, 1, -1.1, -1.1, false},
		{"A>0 above range", 1.5, 1, -1.2, 0, true},
		{"A>0 below range (unclipped branch is smaller)", 0.5, 1, -0.5, -0.5, false},
		{"A<0 inside", 1.1, -2, 2.2, 2.2, false},
		{"A<0 below range", 0.5, -2, 1.6, 0, true},
		{"A<0 above range (unclipped branch is larger loss)", 1.5, -2, 3, 3, false},
		{"A=0", 5, 0, 0, 0, false},
	}
	for _, c := range cases {
		beh := -2.0
		loss, d, clipped := Surrogate(beh+math.Log(c.ratio), beh, c.adv, 0.2)
		if !near(loss, c.loss, 1e-12) || !near(d, c.dlogp, 1e-12) || clipped != c.clipped {
			t.Errorf("%s: got loss %v dlogp %v clipped %v, want %v %v %v", c.name, loss, d, clipped, c.loss, c.dlogp, c.clipped)
		}
	}
	// A zero advantage with an infinite ratio is still 0, not NaN.
	if l, d, _ := Surrogate(0, -1e6, 0, 0.2); l != 0 || d != 0 {
		t.Errorf("A=0, ratio inf: %v %v", l, d)
	}
}

// TestK3 checks the k3 KL estimator and its derivative.
func TestK3(t *testing.T) {
	cases := []struct{ logp, ref, kl, d float64 }{
		{-1, -1, 0, 0},
		{-1, -2, math.Exp(-1), 1 - math.Exp(-1)}, // d=-1: e^-1 + 1 - 1
		{-2, -1, math.E - 2, 1 - math.E},         // d=1: e - 1 - 1
		// Beyond d = ln 11 the estimator goes on linearly with slope 10:
		// at d = 14.6 (a token seen in a sweep run) 10 - ln 11 + 10 (14.6 - ln 11),
		// where exp(d) - d - 1 would be 2.2e6.
		{-14.673, -0.073, 10 - math.Log(11) + 10*(14.6-math.Log(11)), -10},
		{-4, -1, 10 - math.Log(11) + 10*(3-math.Log(11)), -10},
	}
	for _, c := range cases {
		kl, d := K3(c.logp, c.ref)
		if !near(kl, c.kl, 1e-12) || !near(d, c.d, 1e-12) {
			t.Errorf("K3(%v, %v) = %v, %v; want %v, %v", c.logp, c.ref, kl, d, c.kl, c.d)
		}
		// The derivative matches a central difference.
		h := 1e-6
		k1, _ := K3(c.logp+h, c.ref)
		k0, _ := K3(c.logp-h, c.ref)
		if !near((k1-k0)/(2*h), d, 1e-6) {
			t.Errorf("K3 derivative at %v: %v vs finite difference %v", c.logp, d, (k1-k0)/(2*h))
		}
	}
}

// TestK3Bend: the estimator and its derivative are continuous where it
// turns linear (d = ln 11), the derivative's size never exceeds K3Slope,
// and below the bend it is exp(d) - d - 1 exactly.
func TestK3Bend(t *testing.T) {
	bend := math.Log(1 + K3Slope)
	lo, dlo := K3(0, bend-1e-12)
	hi, dhi := K3(0, bend+1e-12)
	if !near(lo, hi, 1e-9) || !near(dlo, dhi, 1e-9) {
		t.Errorf("K3 at the bend: %v, %v below and %v, %v above", lo, dlo, hi, dhi)
	}
	for d := -20.0; d <= 40; d += 0.25 {
		kl, g := K3(0, d)
		if math.Abs(g) > K3Slope+1e-12 || kl < 0 || math.IsInf(kl, 0) {
			t.Errorf("d = %v: k3 %v, derivative %v", d, kl, g)
		}
		if d <= bend && kl != math.Exp(d)-d-1 {
			t.Errorf("d = %v below the bend: k3 %v, want exp(d) - d - 1 = %v", d, kl, math.Exp(d)-d-1)
		}
	}
}

// TestAggregation: token losses [1 3] and [2 2 2 6] (and an empty
// sequence): seq-mean (2+3)/2 = 2.5, token-mean 16/6.
func TestAggregation(t *testing.T) {
	losses := [][]float64{{1, 3}, {2, 2, 2, 6}, {}}
	counts := []int{2, 4, 0}
	for _, c := range []struct {
		agg  Agg
		want float64
		w    []float64
	}{
		{SeqMean, 2.5, []float64{0.25, 0.125, 0}},
		{TokenMean, 16.0 / 6, []float64{1.0 / 6, 1.0 / 6, 0}},
	} {
		w := AggWeights(counts, c.agg)
		var total float64
		for i, ls := range losses {
			if !near(w[i], c.w[i], 1e-15) {
				t.Errorf("%v: weight[%d] = %v, want %v", c.agg, i, w[i], c.w[i])
			}
			for _, l := range ls {
				total += w[i] * l
			}
		}
		if !near(total, c.want, 1e-12) {
			t.Errorf("%v: loss %v, want %v", c.agg, total, c.want)
		}
	}
}

// TestChannelWeights: a minibatch of three sequences with 6, 3 and 5
// policy-written tokens, of which 2, 0 and 1 are selection tokens.
// channel/seq-mean: outcome 1/(3*4), 1/(3*3), 1/(3*4); selection over the
// two sequences with selection tokens, 1/(2*2) and 1/(2*1).
// channel/token-mean: outcome 1/11, selection 1/3. sequence: one term,
// 1/(3*6), 1/(3*3), 1/(3*5) (seq-mean) or 1/14 (token-mean) for both.
func TestChannelWeights(t *testing.T) {
	batch := []*Prepared{{NLoss: 6, NSelect: 2}, {NLoss: 3}, {NLoss: 5, NSelect: 1}}
	for _, c := range []struct {
		agg  Agg
		norm SelectNorm
		want []Weights
	}{
		{SeqMean, SelectChannel, []Weights{{1.0 / 12, 1.0 / 4}, {1.0 / 9, 0}, {1.0 / 12, 1.0 / 2}}},
		{TokenMean, SelectChannel, []Weights{{1.0 / 11, 1.0 / 3}, {1.0 / 11, 0}, {1.0 / 11, 1.0 / 3}}},
		{SeqMean, SelectSequence, []Weights{{1.0 / 18, 1.0 / 18}, {1.0 / 9, 1.0 / 9}, {1.0 / 15, 1.0 / 15}}},
		{TokenMean, SelectSequence, []Weights{{1.0 / 14, 1.0 / 14}, {1.0 / 14, 1.0 / 14}, {1.0 / 14, 1.0 / 14}}},
	} {
		got := ChannelWeights(batch, c.agg, c.norm)
		if diff := cmp.Diff(c.want, got, cmpopts.EquateApprox(0, 1e-15)); diff != "" {
			t.Errorf("%v/%v: weights (-want +got):\n%s", c.agg, c.norm, diff)
		}
	}
	// Under channel each term sums to 1 over its tokens (seq-mean: the
	// mean of per-sequence means), whatever the episodes' lengths.
	w := ChannelWeights(batch, SeqMean, SelectChannel)
	var out, sel float64
	for i, p := range batch {
		out += w[i].Outcome * float64(p.NLoss-p.NSelect)
		sel += w[i].Select * float64(p.NSelect)
	}
	if !near(out, 1, 1e-12) || !near(sel, 1, 1e-12) {
		t.Errorf("channel terms sum to %v and %v, want 1 and 1", out, sel)
	}
	if _, err := ParseSelectNorm("episode"); err == nil {
		t.Error("ParseSelectNorm(episode): no error")
	}
}

func TestSelectionAdvantage(t *testing.T) {
	cases := []struct {
		name              string
		right, misleading []bool
		want              float64
	}{
		{"no reads", nil, nil, 0},
		{"one right", []bool{true}, []bool{false}, 1.5},
		{"one wrong", []bool{false}, []bool{false}, -1.5},
		{"one misleading", []bool{false}, []bool{true}, -1.5},
		{"right but flagged misleading", []bool{true}, []bool{true}, -1.5},
		{"two right", []bool{true, true}, []bool{false, false}, -1.5},
		{"wrong then right", []bool{false, true}, []bool{false, false}, -1.5},
	}
	for _, c := range cases {
		if got := SelectionAdvantage(c.right, c.misleading, 1.5); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestTokenCredit(t *testing.T) {
	A, N, S, O := table.RoleAction, table.RoleSkillName, table.RoleSystem, table.RoleObservation
	roles := []int8{S, O, A, N, N, A, O, A, A}
	cases := []struct {
		name     string
		credit   Credit
		hasReads bool
		adv      []float32
		ch       []int8
	}{
		{"broadcast", Broadcast, true, []float32{0, 0, 2, 2, 2, 2, 0, 2, 2}, []int8{0, 0, 1, 1, 1, 1, 0, 1, 1}},
		{"skillgate", SkillGate, true, []float32{0, 0, 2, -1, -1, 2, 0, 2, 2}, []int8{0, 0, 1, 2, 2, 1, 0, 1, 1}},
		{"skillgate without reads", SkillGate, false, []float32{0, 0, 2, 0, 0, 2, 0, 2, 2}, []int8{0, 0, 1, 0, 0, 1, 0, 1, 1}},
	}
	for _, c := range cases {
		adv, ch := TokenCredit(roles, c.credit, 2, -1, c.hasReads)
		for i := range roles {
			if adv[i] != c.adv[i] || ch[i] != c.ch[i] {
				t.Errorf("%s: token %d: adv %v ch %d, want %v %d", c.name, i, adv[i], ch[i], c.adv[i], c.ch[i])
			}
		}
	}
}

func TestParse(t *testing.T) {
	if _, err := ParseCredit("gate"); err == nil {
		t.Error("ParseCredit accepted gate")
	}
	if c, _ := ParseCredit("skillgate"); c != SkillGate {
		t.Error("skillgate")
	}
	if _, err := ParseAgg("sum"); err == nil {
		t.Error("ParseAgg accepted sum")
	}
	if a, _ := ParseAgg("token-mean"); a != TokenMean {
		t.Error("token-mean")
	}
	if _, err := ParseAdvNorm("z"); err == nil {
		t.Error("ParseAdvNorm accepted z")
	}
	if n, _ := ParseAdvNorm("mean"); n != NormMean {
		t.Error("mean")
	}
}

func TestBatches(t *testing.T) {
	lengths := []int{5, 3, 8, 2, 12, 4}
	plan := Batches(lengths, 10, 2, 7)
	for e, batches := range plan {
		seen := map[int]bool{}
		for _, b := range batches {
			n := 0
			for _, i := range b {
				n += lengths[i]
				if seen[i] {
					t.Errorf("epoch %d: sequence %d twice", e, i)
				}
				seen[i] = true
			}
			if n > 10 && len(b) > 1 {
				t.Errorf("epoch %d: batch %v has %d tokens > 10", e, b, n)
			}
		}
		if len(seen) != len(lengths) {
			t.Errorf("epoch %d: %d of %d sequences", e, len(seen), len(lengths))
		}
	}
	again := Batches(lengths, 10, 2, 7)
	if len(again[0]) != len(plan[0]) || again[0][0][0] != plan[0][0][0] {
		t.Error("same seed, different plan")
	}
}

package rl

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/table"
)

// microModel is a random model of vocabulary 31 whose parameters are large
// enough that no gradient is trivially small.
func microModel(t *testing.T, seed uint64) *model.Model {
	t.Helper()
	c := model.Tiny(31)
	c.HiddenSize, c.NumHiddenLayers, c.NumAttentionHeads, c.NumKeyValueHeads, c.IntermediateSize = 16, 1, 2, 1, 24
	c.MaxPositionEmbeddings = 64
	c.InitializerRange = 0.3
	m, err := model.New(c, seed)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// microEpisodes builds trajectories of random tokens in two groups with
// roles cycling through context, execution and skill-name tokens.
func microEpisodes(seed uint64) []table.Trajectory {
	rng := rand.New(rand.NewPCG(seed, 3))
	rows := make([]table.Trajectory, 4)
	for i := range rows {
		n := 12 + 3*i
		r := table.Trajectory{GroupID: []string{"g0", "g1"}[i/2], Sample: int32(i % 2), Reward: float64(i%2 + i/2),
			Reads: []string{"s"}, ReadsRight: []bool{i%2 == 0}, ReadsMisleading: []bool{false}}
		for t := 0; t < n; t++ {
			r.Tokens = append(r.Tokens, int32(rng.IntN(31)))
			role := table.RoleObservation
			switch {
			case t > 2 && t%4 == 1:
				role = table.RoleSkillName
			case t > 2 && t%4 != 0:
				role = table.RoleAction
			}
			r.Roles = append(r.Roles, role)
		}
		rows[i] = r
	}
	return rows
}

// setBehaviour sets behaviour log-probabilities to the model's own plus
// offsets that put ratios inside and well outside the clip range, and the
// reference log-probabilities to the model's plus other offsets.
func setBehaviour(t *testing.T, m *model.Model, rows []table.Trajectory, prep []Prepared) {
	t.Helper()
	seqs := make([][]int32, len(prep))
	masks := make([][]bool, len(prep))
	for i := range prep {
		seqs[i], masks[i] = prep[i].Row.Tokens, prep[i].Mask
	}
	lp, _, err := m.LogProbs(seqs, masks)
	if err != nil {
		t.Fatal(err)
	}
	offsets := []float64{0, 0.1, -0.1, 0.7, -0.7} // ratio = exp(-offset)
	for i := range rows {
		rows[i].Logprobs = make([]float32, len(rows[i].Tokens))
		prep[i].Ref = make([]float32, len(rows[i].Tokens))
		for t, on := range prep[i].Mask {
			if on {
				rows[i].Logprobs[t] = lp[i][t] + float32(offsets[(t+i)%len(offsets)])
				prep[i].Ref[t] = lp[i][t] + float32(offsets[(t+2*i+1)%len(offsets)])
			}
		}
	}
}

func totalLoss(t *testing.T, m *model.Model, prep []Prepared, cfg GRPOConfig) float64 {
	t.Helper()
	seqs := make([][]int32, len(prep))
	masks := make([][]bool, len(prep))
	batch := make([]*Prepared, len(prep))
	for i := range prep {
		seqs[i], masks[i], batch[i] = prep[i].Row.Tokens, prep[i].Mask, &prep[i]
	}
	lp, ent, err := m.LogProbs(seqs, masks)
	if err != nil {
		t.Fatal(err)
	}
	w := ChannelWeights(batch, cfg.Agg, cfg.SelectNorm)
	var st stepStats
	for i := range prep {
		grpoWeights(&prep[i], lp[i], ent[i], w[i], cfg, &st)
	}
	return st.loss
}

// TestLossGradientFiniteDifference: the per-token weights are the
// derivative of the loss in the log-probabilities, and the parameter
// gradient of a tiny random model matches central differences of the
// loss, for both aggregations and both credits, with ratios inside and
// outside the clip range.
func TestLossGradientFiniteDifference(t *testing.T) {
	for _, c := range []struct {
		credit Credit
		agg    Agg
		norm   SelectNorm
		coef   float64
	}{{Broadcast, SeqMean, SelectChannel, 1}, {SkillGate, TokenMean, SelectChannel, 1}, {SkillGate, SeqMean, SelectChannel, 0.2},
		{SkillGate, SeqMean, SelectSequence, 1}} {
		m := microModel(t, 11)
		rows := microEpisodes(5)
		cfg := GRPOConfig{Credit: c.credit, Agg: c.agg, Clip: 0.2, KL: 0.3, SelectCoef: c.coef, SelectNorm: c.norm}
		prep, _ := Credits(rows, cfg)
		setBehaviour(t, m, rows, prep)

		// 1. d(loss)/d(lp) against differences of the per-token loss.
		{
			p := &prep[1]
			lp := make([]float32, len(p.Row.Tokens))
			for t := range lp {
				lp[t] = p.Row.Logprobs[t] - 0.05 // ratios 0.95 * exp(-offset): away from the kinks
			}
			var st stepStats
			w := grpoWeights(p, lp, lp, Weights{0.5, 0.7}, cfg, &st)
			for tk, on := range p.Mask {
				if !on {
					continue
				}
				h := float32(1e-3)
				f := func(d float32) float64 {
					x := append([]float32(nil), lp...)
					x[tk] += d
					var s stepStats
					grpoWeights(p, x, x, Weights{0.5, 0.7}, cfg, &s)
					return s.loss
				}
				fd := (f(h) - f(-h)) / (2 * float64(h))
				if !near(fd, float64(w[tk]), 2e-3*math.Max(1, math.Abs(fd))) {
					t.Errorf("%v/%v: token %d: weight %v, finite difference %v", c.credit, c.agg, tk, w[tk], fd)
				}
			}
		}

		// 2. Parameter gradient of the whole model.
		batch := make([]*Prepared, len(prep))
		seqs := make([][]int32, len(prep))
		masks := make([][]bool, len(prep))
		for i := range prep {
			batch[i], seqs[i], masks[i] = &prep[i], prep[i].Row.Tokens, prep[i].Mask
		}
		aw := ChannelWeights(batch, cfg.Agg, cfg.SelectNorm)
		m.ZeroGrad()
		var st stepStats
		if _, _, err := m.ForwardBackward(seqs, masks, func(i int, lp, ent []float32) []float32 {
			return grpoWeights(&prep[i], lp, ent, aw[i], cfg, &st)
		}); err != nil {
			t.Fatal(err)
		}
		if base := totalLoss(t, m, prep, cfg); !near(base, st.loss, 1e-9*math.Max(1, math.Abs(base))) {
			t.Errorf("loss from ForwardBackward %v, from LogProbs %v", st.loss, base)
		}
		checked := 0
		for _, p := range m.Params() {
			// The entry with the largest gradient of each tensor.
			best := 0
			for i, g := range p.G {
				if math.Abs(float64(g)) > math.Abs(float64(p.G[best])) {
					best = i
				}
			}
			g := float64(p.G[best])
			if math.Abs(g) < 1e-3 {
				continue
			}
			h := float32(3e-3)
			w0 := p.W[best]
			p.W[best] = w0 + h
			lPlus := totalLoss(t, m, prep, cfg)
			p.W[best] = w0 - h
			lMinus := totalLoss(t, m, prep, cfg)
			p.W[best] = w0
			fd := (lPlus - lMinus) / (2 * float64(h))
			if !near(fd, g, 0.03*math.Abs(g)+1e-4) {
				t.Errorf("%v/%v: %s[%d]: gradient %v, finite difference %v", c.credit, c.agg, p.Name, best, g, fd)
			}
			checked++
		}
		if checked < 5 {
			t.Errorf("only %d tensors had a gradient to check", checked)
		}
	}
}

// TestSkillGateChannels: under skillgate the outcome advantage changes no
// skill-name token's gradient weight and the selection advantage changes
// no execution token's; under broadcast the outcome advantage reaches
// both.
func TestSkillGateChannels(t *testing.T) {
	m := microModel(t, 2)
	rows := microEpisodes(9)
	weights := func(credit Credit, outcome, selection float64) ([]float32, []int8) {
		cfg := GRPOConfig{Credit: credit, Agg: SeqMean, Clip: 0.2, KL: 0.1, SelectCoef: 1}
		prep, _ := Credits(rows, cfg)
		setBehaviour(t, m, rows, prep)
		p := &prep[0]
		p.Outcome, p.Selection = outcome, selection
		p.Adv, p.Channels = TokenCredit(p.Row.Roles, credit, outcome, selection, true)
		lp, ent, err := m.LogProbs([][]int32{p.Row.Tokens}, [][]bool{p.Mask})
		if err != nil {
			t.Fatal(err)
		}
		var st stepStats
		return grpoWeights(p, lp[0], ent[0], Weights{0.25, 0.25}, cfg, &st), p.Row.Roles
	}
	base, roles := weights(SkillGate, 1.3, 1)
	moreOutcome, _ := weights(SkillGate, -0.8, 1)
	moreSelect, _ := weights(SkillGate, 1.3, -1)
	var nameMoved, actionMoved int
	for tk, r := range roles {
		switch r {
		case table.RoleSkillName:
			if moreOutcome[tk] != base[tk] {
				t.Errorf("skillgate: outcome advantage moved skill-name token %d (%v -> %v)", tk, base[tk], moreOutcome[tk])
			}
			if moreSelect[tk] != base[tk] {
				nameMoved++
			}
		case table.RoleAction:
			if moreSelect[tk] != base[tk] {
				t.Errorf("skillgate: selection advantage moved execution token %d (%v -> %v)", tk, base[tk], moreSelect[tk])
			}
			if moreOutcome[tk] != base[tk] {
				actionMoved++
			}
		default:
			if base[tk] != 0 {
				t.Errorf("context token %d has weight %v", tk, base[tk])
			}
		}
	}
	if nameMoved == 0 || actionMoved == 0 {
		t.Errorf("skillgate: selection moved %d name tokens, outcome moved %d action tokens; want both > 0", nameMoved, actionMoved)
	}
	// Broadcast: the outcome advantage does reach skill-name tokens.
	b0, _ := weights(Broadcast, 1.3, 0)
	b1, _ := weights(Broadcast, -0.8, 0)
	moved := 0
	for tk, r := range roles {
		if r == table.RoleSkillName && b0[tk] != b1[tk] {
			moved++
		}
	}
	if moved == 0 {
		t.Error("broadcast: outcome advantage moved no skill-name token")
	}
}

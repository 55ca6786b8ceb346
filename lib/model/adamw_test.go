package model

import (
	"math"
	"testing"
)

// TestAdamWStep checks two steps against numbers worked by hand for one
// decayed and one undecayed tensor.
func TestAdamWStep(t *testing.T) {
	cfg := testConfig(true)
	m := randomModel(t, cfg, 1)
	opt := NewAdamW(m, AdamWConfig{Beta1: 0.9, Beta2: 0.99, Eps: 1e-8, WeightDecay: 0.1})
	emb, norm := m.Embed, m.Norm
	m.ZeroGrad()
	emb.W[0], emb.G[0] = 1, 0.5
	norm.W[0], norm.G[0] = 2, -0.25
	opt.Step(0.1)
	// Step 1: m=0.1g, v=0.01g^2, mhat=g, vhat=g^2 => update lr*sign(g) (+decay).
	// embed: 1 - 0.1*(0.1*1 + 0.5/(0.5+1e-8)) = 0.89
	// norm (no decay): 2 - 0.1*(-1) = 2.1
	check := func(name string, got float32, want float64) {
		t.Helper()
		if math.Abs(float64(got)-want) > 1e-6 {
			t.Errorf("%s = %.8f, want %.8f", name, got, want)
		}
	}
	check("embed step 1", emb.W[0], 0.89)
	check("norm step 1", norm.W[0], 2.1)
	// Step 2 with g=0.1 on embed:
	// m = 0.9*0.05 + 0.1*0.1 = 0.055; v = 0.99*0.0025 + 0.01*0.01 = 0.002575
	// mhat = 0.055/0.19; vhat = 0.002575/0.0199
	// p = 0.89 - 0.1*(0.1*0.89 + mhat/(sqrt(vhat)+1e-8))
	emb.G[0] = 0.1
	norm.G[0] = 0
	opt.Step(0.1)
	mh, vh := 0.055/0.19, 0.002575/0.0199
	check("embed step 2", emb.W[0], 0.89-0.1*(0.1*0.89+mh/(math.Sqrt(vh)+1e-8)))
	// norm: m = 0.9*(-0.025) = -0.0225, v = 0.99*0.000625
	mh, vh = -0.0225/0.19, 0.99*0.000625/0.0199
	check("norm step 2", norm.W[0], 2.1-0.1*(mh/(math.Sqrt(vh)+1e-8)))
	if opt.StepN != 2 {
		t.Errorf("step count %d", opt.StepN)
	}
}

func TestSchedule(t *testing.T) {
	cos := Schedule{Peak: 1e-3, Warmup: 10, Total: 110, Cosine: true, MinRatio: 0.1}
	cst := Schedule{Peak: 2e-4, Warmup: 4}
	cases := []struct {
		s    Schedule
		step int
		want float64
	}{
		{cos, 1, 1e-4},
		{cos, 5, 5e-4},
		{cos, 10, 1e-3},
		{cos, 60, 1e-4 + 9e-4*0.5},
		{cos, 110, 1e-4},
		{cos, 500, 1e-4},
		{cst, 2, 1e-4},
		{cst, 4, 2e-4},
		{cst, 1000, 2e-4},
		{Schedule{Peak: 3e-4}, 1, 3e-4},
	}
	for _, c := range cases {
		if got := c.s.LR(c.step); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%+v step %d: lr %g, want %g", c.s, c.step, got, c.want)
		}
	}
}

func TestClipGradNorm(t *testing.T) {
	cfg := testConfig(true)
	m := randomModel(t, cfg, 1)
	m.ZeroGrad()
	m.Embed.G[0], m.Embed.G[1] = 3, 0
	m.Norm.G[2] = 4
	if n := m.ClipGradNorm(10); n != 5 || m.Embed.G[0] != 3 {
		t.Errorf("no-op clip: norm %g, g %g", n, m.Embed.G[0])
	}
	if n := m.ClipGradNorm(1); n != 5 {
		t.Errorf("norm before clip %g, want 5", n)
	}
	if n := m.GradNorm(); math.Abs(n-1) > 1e-5 {
		t.Errorf("norm after clip %g, want 1", n)
	}
	if math.Abs(float64(m.Embed.G[0])-0.6) > 1e-6 || math.Abs(float64(m.Norm.G[2])-0.8) > 1e-6 {
		t.Errorf("clipped values %g %g", m.Embed.G[0], m.Norm.G[2])
	}
}

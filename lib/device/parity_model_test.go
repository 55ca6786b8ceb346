//go:build cuda

package device_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/rl"
	"github.com/pats-rl/pats/lib/rollout/episodetest"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// qwen05 is Qwen2.5-0.5B's shape: hidden 896, intermediate 4864, 24
// layers, 14 heads, 2 key/value heads, vocabulary 151,936, tied.
func qwen05() model.Config {
	c := model.Tiny(151936)
	c.HiddenSize, c.IntermediateSize, c.NumHiddenLayers = 896, 4864, 24
	c.NumAttentionHeads, c.NumKeyValueHeads = 14, 2
	c.MaxPositionEmbeddings, c.RopeTheta = 32768, 1e6
	return c
}

// qwen3Small is a small Qwen3 shape: Small's sizes with query and key
// head norms, no biases, and head_dim 96 (so the query width, 384,
// differs from the hidden size, 256), untied.
func qwen3Small(vocab int) model.Config {
	c := model.Small(vocab)
	c.ModelType, c.Architectures, c.HeadDimension, c.TieWordEmbeddings = model.Qwen3, []string{"Qwen3ForCausalLM"}, 96, false
	return c
}

// configs are the sizes of the whole-model checks; the dry run keeps the
// first three (tiny, small and the Qwen3 shape).
func configs(t *testing.T) []struct {
	name string
	cfg  model.Config
	lens []int // ragged sequence lengths
} {
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	v := tok.VocabSize()
	cs := []struct {
		name string
		cfg  model.Config
		lens []int
	}{
		{"tiny", model.Tiny(v), []int{37, 1, 2, 64, 129}},
		{"small", model.Small(v), []int{37, 2, 100}},
		{"qwen3-small", qwen3Small(v), []int{37, 2, 100}},
		{"qwen2.5-0.5b", qwen05(), []int{33, 2, 17}},
	}
	if dryRun() {
		cs = cs[:3]
	}
	return cs
}

func attach(t *testing.T, m *model.Model) {
	t.Helper()
	if dryRun() {
		attachStandIn(t, m, bugNone)
		return
	}
	if err := openGPU(t).Attach(m); err != nil {
		t.Fatal(err)
	}
}

// checkStep recomputes, in float64 on the host, the device's AdamW step
// from the parameters before it and the device's own moments after it (m
// and v of this step are what the update used): p - lr*(wd*p +
// (m/bc1)/(sqrt(v/bc2)+eps)), wd on the tensors whose Decay is set. This
// checks the device's optimizer (decay flags, bias corrections) apart from
// the gradients' BF16 error; the bound is 1e-5 lr (the update's FP32
// arithmetic is good to about 3e-7 of it) plus two units in the last place
// of p (the rounding of the new p, and of a decay factor 1-lr*wd where an
// implementation forms one). A missing weight decay (lr*wd*|p|, 2e-7 for a
// weight of 0.02) is then well outside the bound.
func checkStep(t *testing.T, what string, m *model.Model, o *model.AdamW, before [][]float32, lr float64) {
	t.Helper()
	if err := o.Sync(); err != nil {
		t.Fatal(err)
	}
	after := params(t, m)
	c := o.Cfg
	bc1 := 1 - math.Pow(c.Beta1, float64(o.StepN))
	bc2 := 1 - math.Pow(c.Beta2, float64(o.StepN))
	worst := 0.0
	for i, p := range m.Params() {
		wd := 0.0
		if p.Decay {
			wd = c.WeightDecay
		}
		for j, b32 := range before[i] {
			b := float64(b32)
			want := b - lr*(wd*b+(float64(o.M[i][j])/bc1)/(math.Sqrt(float64(o.V[i][j])/bc2)+c.Eps))
			e := math.Abs(float64(after[i][j])-want) / (1e-5*lr + 0x1p-22*math.Abs(b))
			if math.IsNaN(e) {
				e = math.Inf(1)
			}
			worst = math.Max(worst, e)
		}
	}
	within(t, what+" step recomputed from the device's moments (error / bound)", worst, 1)
}

// compareUpdate holds one optimizer step's parameter change on the device
// to the CPU's: no element moves by more than two learning rates from the
// CPU's value (Adam's first steps move each element by about lr, so a sign
// flip of a near-zero gradient costs 2 lr), and the update vectors agree
// to tolUpdate in relative L2.
func compareUpdate(t *testing.T, what string, before, cpuAfter, devAfter [][]float32, lr float64) {
	t.Helper()
	b, c, d := flat(before), flat(cpuAfter), flat(devAfter)
	du, cu := make([]float32, len(b)), make([]float32, len(b))
	for i := range b {
		du[i], cu[i] = d[i]-b[i], c[i]-b[i]
	}
	within(t, what+" parameters after the step, max |dev-cpu| / lr", maxDiff(d, c)/lr, 2.01)
	within(t, what+" update, relative L2", relL2(du, cu), tolUpdate)
}

// TestParityModel: logits, log-probabilities and entropies, gradients of
// ForwardBackward, the gradient norm, one AdamW step, and greedy decoding
// (single and batched, ragged prompts) of the device model against the
// CPU model with the same random weights.
func TestParityModel(t *testing.T) {
	openGPU(t)
	for _, c := range configs(t) {
		t.Run(c.name, func(t *testing.T) {
			cpu := randomModel(t, c.cfg, 11)
			dev := randomModel(t, c.cfg, 11)
			attach(t, dev)
			seqs := randomSeqs(5, c.cfg.VocabSize, c.lens)
			// Logits of every position of every sequence. eps is the
			// largest logit error seen and spread the widest row (largest
			// minus smallest logit): log-probabilities then move by at most
			// 2 eps (log-softmax is 2-Lipschitz in the max norm) and
			// entropies by at most spread*eps (dH/dx_i = -p_i (x_i - E x)),
			// to first order, plus the FP32 rounding of the softmax itself.
			var eps, spread, worst float64
			for _, seq := range seqs {
				lc, err := cpu.Logits(seq)
				if err != nil {
					t.Fatal(err)
				}
				ld, err := dev.Logits(seq)
				if err != nil {
					t.Fatal(err)
				}
				worst = math.Max(worst, relInf(ld, lc))
				eps = math.Max(eps, maxDiff(ld, lc))
				V := c.cfg.VocabSize
				for r := 0; r < len(seq); r++ {
					row := lc[r*V : (r+1)*V]
					lo, hi := math.Inf(1), math.Inf(-1)
					for _, x := range row {
						lo, hi = math.Min(lo, float64(x)), math.Max(hi, float64(x))
					}
					spread = math.Max(spread, hi-lo)
				}
			}
			within(t, "logits (max |dlogit| / max |logit|, worst sequence)", worst, tolLogits)
			// Log-probabilities and entropies, with masks.
			masks := make([][]bool, len(seqs))
			for i, s := range seqs {
				if i%2 == 1 {
					masks[i] = make([]bool, len(s))
					for j := range s {
						masks[i][j] = j%3 != 0
					}
				}
			}
			pc, ec, err := cpu.LogProbs(seqs, masks)
			if err != nil {
				t.Fatal(err)
			}
			pd, ed, err := dev.LogProbs(seqs, masks)
			if err != nil {
				t.Fatal(err)
			}
			within(t, "log-probabilities (nats; bound 2 max|dlogit|)", maxDiff(flat(pd), flat(pc)), 2*eps+2e-4)
			within(t, "entropies (nats; bound spread * max|dlogit|)", maxDiff(flat(ed), flat(ec)), 1.05*spread*eps+2e-4)
			// Gradients of sum w*lp with fixed random weights.
			rng := rand.New(rand.NewPCG(6, 6))
			w := make([][]float32, len(seqs))
			for i, s := range seqs {
				w[i] = randn(rng, len(s), 1)
			}
			weights := func(i int, _, _ []float32) []float32 { return w[i] }
			for _, m := range []*model.Model{cpu, dev} {
				m.ZeroGrad()
				if _, _, err := m.ForwardBackward(seqs, masks, weights); err != nil {
					t.Fatal(err)
				}
			}
			gc, gd := grads(t, cpu), grads(t, dev)
			compareGrads(t, "ForwardBackward", cpu, gc, gd)
			nc, nd := cpu.ClipGradNorm(1), dev.ClipGradNorm(1)
			within(t, "gradient norm, relative", math.Abs(nd-nc)/nc, tolNorm)
			// One AdamW step (weight decay on matrices, bias corrections of
			// step 1) from the clipped gradients.
			before := params(t, cpu)
			oc, od := model.NewAdamW(cpu, model.DefaultAdamW()), model.NewAdamW(dev, model.DefaultAdamW())
			const lr = 1e-3
			if err := oc.Step(lr); err != nil {
				t.Fatal(err)
			}
			if err := od.Step(lr); err != nil {
				t.Fatal(err)
			}
			compareUpdate(t, "AdamW", before, params(t, cpu), params(t, dev), lr)
			checkStep(t, "AdamW", dev, od, before, lr)
			if err := od.Sync(); err != nil {
				t.Fatal(err)
			}
			within(t, "AdamW first moment, relative L2", relL2(flat(od.M), flat(oc.M)), tolGradAll)
			within(t, "AdamW second moment, relative L2", relL2(flat(od.V), flat(oc.V)), 2*tolGradAll)
			// Decoding after the step: both models hold the same weights
			// again (the device's, synced to the CPU model).
			for i, p := range cpu.Params() {
				copy(p.W, dev.Params()[i].W)
			}
			greedy(t, cpu, dev, seqs)
		})
	}
}

// top2 returns the best and second-best logit of a row.
func top2(l []float32) (best int, margin float64) {
	idx := make([]int, len(l))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return l[idx[a]] > l[idx[b]] })
	if len(l) < 2 {
		return idx[0], math.Inf(1)
	}
	return idx[0], float64(l[idx[0]] - l[idx[1]])
}

// greedy decodes every prompt (teacher-forced by the CPU's greedy tokens)
// on both models, on the device once one decoder at a time and once all
// in one batch, drawing on the device. Where the CPU's best logit leads
// the second by more than twice the logits' tolerance the device must
// pick the same token; elsewhere its token must be within that distance
// of the CPU's best.
func greedy(t *testing.T, cpu, dev *model.Model, prompts [][]int32) {
	t.Helper()
	const steps = 8
	var ps [][]int32
	for _, p := range prompts {
		if len(p) > 0 {
			ps = append(ps, p)
		}
	}
	n := len(ps)
	dc := make([]*model.Decoder, n)
	single := make([]*model.Decoder, n)
	batch := make([]*model.Decoder, n)
	cl := make([][]float32, n) // the CPU's logits of the next token
	var all, devAll []float32
	firstSingle := make([]int32, n)
	for i, p := range ps {
		dc[i] = cpu.NewDecoder()
		l, err := dc[i].Append(p)
		if err != nil {
			t.Fatal(err)
		}
		cl[i] = l
		single[i], batch[i] = dev.NewDecoder(), dev.NewDecoder()
		dl, err := single[i].Append(p) // the logits path
		if err != nil {
			t.Fatal(err)
		}
		all, devAll = append(all, l...), append(devAll, dl...)
		firstSingle[i], _ = model.Sample(dl, 0, 1, nil)
	}
	within(t, "decoder logits after the prompts", relInf(devAll, all), tolLogits)
	tolAbs := tolLogits * maxAbs(all)
	greedyS := model.Sampling{Temperature: 0, TopP: 1}
	zeros := make([]float64, n)
	decisive, checked := 0, 0
	check := func(where string, cpuLogits []float32, got int32) {
		t.Helper()
		best, margin := top2(cpuLogits)
		checked++
		if margin > 2*tolAbs {
			decisive++
			if int(got) != best {
				t.Errorf("%s: device token %d, the CPU's %d leads by %.3g", where, got, best, margin)
			}
			return
		}
		if got < 0 || int(got) >= len(cpuLogits) || float64(cpuLogits[best]-cpuLogits[got]) > 2*tolAbs {
			t.Errorf("%s: device token %d is not within %.3g of the CPU's best %d", where, got, 2*tolAbs, best)
		}
	}
	bt, _, err := dev.AppendSampleBatch(batch, ps, greedyS, zeros)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ps {
		check(fmt.Sprintf("prompt %d, single", i), cl[i], firstSingle[i])
		check(fmt.Sprintf("prompt %d, batched", i), cl[i], bt[i])
	}
	for s := 0; s < steps; s++ {
		next := make([][]int32, n)
		for i := range ps {
			tok, _ := model.Sample(cl[i], 0, 1, nil)
			next[i] = []int32{tok}
		}
		for i := range ps {
			l, err := dc[i].Append(next[i])
			if err != nil {
				t.Fatal(err)
			}
			cl[i] = l
			tok, lp, err := single[i].AppendSample(next[i], greedyS, 0)
			if err != nil {
				t.Fatal(err)
			}
			check(fmt.Sprintf("prompt %d step %d, single", i, s), l, tok)
			_, want := model.Sample(l, 0, 1, nil)
			if math.Abs(float64(lp-want)) > 2*tolAbs+1e-4 && int(tok) == mustBest(l) {
				t.Errorf("prompt %d step %d: device logp %v, CPU %v", i, s, lp, want)
			}
		}
		toks, _, err := dev.AppendSampleBatch(batch, next, greedyS, zeros)
		if err != nil {
			t.Fatal(err)
		}
		for i := range ps {
			check(fmt.Sprintf("prompt %d step %d, batched", i, s), cl[i], toks[i])
		}
	}
	for i := range ps {
		if single[i].Len() != len(ps[i])+steps || batch[i].Len() != len(ps[i])+steps {
			t.Errorf("prompt %d: decoder lengths %d and %d, want %d", i, single[i].Len(), batch[i].Len(), len(ps[i])+steps)
		}
	}
	report(t, "greedy decoding: %d positions checked, %d decisive (margin above %.3g)", checked, decisive, 2*tolAbs)
	if decisive == 0 {
		t.Error("no position had a decisive margin: the check compared nothing")
	}
}

func mustBest(l []float32) int {
	b, _ := top2(l)
	return b
}

// grpoRollouts are small real rollouts of the household environment by
// the CPU model, with rewards made to spread (the sum of written token ids
// mod 5) and, in each group, a right skill read in sample 0 and a wrong one
// in sample 1 (the first written token relabelled as a skill name).
func grpoRollouts(t *testing.T, m *model.Model) []table.Trajectory {
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := episodetest.Household(episodetest.ModelPolicy{PolicyName: "p", Model: m, Tok: tok, MaxTokens: 5}, 3, 3, 7, false, 160)
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		r := &rows[i]
		sum := 0
		for k, id := range r.Tokens {
			if table.PolicyWritten(r.Roles[k]) {
				sum += int(id)
			}
		}
		r.Reward = float64(sum % 5)
		if r.Sample < 2 {
			for k, role := range r.Roles {
				if table.PolicyWritten(role) {
					r.Roles[k] = table.RoleSkillName
					break
				}
			}
			r.Reads, r.ReadsRight, r.ReadsMisleading = []string{"s"}, []bool{r.Sample == 0}, []bool{false}
		}
	}
	return rows
}

// TestParityGRPO: one GRPO step of lib/rl (PPO clip, sequence-mean
// aggregation, gradient clipping, AdamW) under broadcast and SkillGate
// credit on the device against the CPU: the step's gradient norm and
// entropy, and the parameters after it.
func TestParityGRPO(t *testing.T) {
	openGPU(t)
	for _, c := range configs(t)[:2] {
		for _, credit := range []rl.Credit{rl.Broadcast, rl.SkillGate} {
			t.Run(fmt.Sprintf("%s/%s", c.name, credit), func(t *testing.T) {
				cpu, err := model.New(c.cfg, 21)
				if err != nil {
					t.Fatal(err)
				}
				rows := grpoRollouts(t, cpu)
				dev, err := model.New(c.cfg, 21)
				if err != nil {
					t.Fatal(err)
				}
				attach(t, dev)
				lg, err := cpu.Logits(rows[0].Tokens)
				if err != nil {
					t.Fatal(err)
				}
				tolLP := 2*tolLogits*maxAbs(lg) + 1e-4
				cfg := rl.GRPOConfig{Credit: credit, Clip: 0.2, Epochs: 1, SelectCoef: 0.2,
					Optim: rl.OptimConfig{LR: 1e-3, MaxGradNorm: 1}}
				before := params(t, cpu)
				var metrics [2][]table.TrainMetrics
				var opts [2]*model.AdamW
				for k, m := range []*model.Model{cpu, dev} {
					prep, _ := rl.Credits(rows, cfg)
					opts[k] = model.NewAdamW(m, model.DefaultAdamW())
					got, err := rl.TrainGRPO(context.Background(), m, opts[k], prep, cfg)
					if err != nil {
						t.Fatal(err)
					}
					metrics[k] = got
				}
				if len(metrics[0]) != 1 || len(metrics[1]) != 1 {
					t.Fatalf("steps: cpu %d, device %d; want 1", len(metrics[0]), len(metrics[1]))
				}
				mc, md := metrics[0][0], metrics[1][0]
				within(t, "GRPO gradient norm, relative", math.Abs(md.GradNorm-mc.GradNorm)/mc.GradNorm, tolNorm)
				if md.Entropy == nil || mc.Entropy == nil || md.RatioMean == nil || mc.RatioMean == nil {
					t.Fatalf("GRPO entropy or ratio mean NULL: cpu %+v, device %+v", mc, md)
				}
				within(t, "GRPO entropy (nats)", math.Abs(*md.Entropy-*mc.Entropy), tolLP)
				within(t, "GRPO mean ratio", math.Abs(*md.RatioMean-*mc.RatioMean), math.Expm1(tolLP))
				compareUpdate(t, "GRPO", before, params(t, cpu), params(t, dev), md.LR)
				checkStep(t, "GRPO", dev, opts[1], before, md.LR)
			})
		}
	}
}

// pair is a random model on the CPU and the same model on the device.
func pair(t *testing.T, cfg model.Config, seed uint64, peaked bool) (cpu, dev *model.Model) {
	t.Helper()
	cpu, dev = randomModel(t, cfg, seed), randomModel(t, cfg, seed)
	if peaked {
		peak(cpu)
		peak(dev)
	}
	attach(t, dev)
	return cpu, dev
}

// TestParityPeaked: the whole model with peaked attention (peak) against
// the CPU: logits and every gradient tensor above tolGradFloor, the q and
// k projections' included.
func TestParityPeaked(t *testing.T) {
	openGPU(t)
	for _, c := range configs(t) {
		t.Run(c.name, func(t *testing.T) {
			cpu, dev := pair(t, c.cfg, 11, true)
			checkPeaked(t, cpu, dev, randomSeqs(5, c.cfg.VocabSize, c.lens))
		})
	}
}

// TestParityDecodeFull: decoding logits against the same device's
// full-sequence logits, peaked attention.
func TestParityDecodeFull(t *testing.T) {
	openGPU(t)
	for _, c := range configs(t) {
		t.Run(c.name, func(t *testing.T) {
			_, dev := pair(t, c.cfg, 12, true)
			checkDecodeFull(t, dev, randomSeqs(6, c.cfg.VocabSize, []int{40, 9}))
		})
	}
}

// longShape has Qwen's vocabulary (151,936: 441 rows per logits chunk)
// with a small body, so that sequences of 700 and 1,100 tokens with every
// row scored take several chunks of attention rows and of logits on the
// device while the CPU reference stays quick.
func longShape() model.Config {
	c := model.Tiny(151936)
	c.MaxPositionEmbeddings = 2048
	if dryRun() {
		c.VocabSize = 3000 // the CPU stand-in does not chunk; keep the dry run short
	}
	return c
}

// TestParityLong: sequences of about 700 and 1,100 tokens, every row
// scored, buffers growing and shrinking between them.
func TestParityLong(t *testing.T) {
	openGPU(t)
	cpu, dev := pair(t, longShape(), 13, true)
	checkLong(t, cpu, dev, []int{700, 64, 1100, 30})
}

// TestParitySampling: batched temperature and nucleus sampling over
// several decoders (and their clones) against model.SampleU on the same
// device's logits.
func TestParitySampling(t *testing.T) {
	openGPU(t)
	for _, c := range configs(t)[:2] {
		t.Run(c.name, func(t *testing.T) {
			m, err := model.New(c.cfg, 14) // unscaled embeddings: flatter logits, many distinct tokens
			if err != nil {
				t.Fatal(err)
			}
			attach(t, m)
			prompts := randomSeqs(7, c.cfg.VocabSize, []int{5, 1, 12, 3, 8, 2})
			checkSampling(t, m, prompts, model.Sampling{Temperature: 1, TopP: 1}, 8)
			checkSampling(t, m, prompts, model.Sampling{Temperature: 0.8, TopP: 0.9}, 8)
		})
	}
}

// TestParityClone: a decoder's clone against its original, bit for bit.
func TestParityClone(t *testing.T) {
	openGPU(t)
	_, dev := pair(t, configs(t)[1].cfg, 15, true)
	checkClone(t, dev, randomSeqs(8, dev.Cfg.VocabSize, []int{30})[0])
}

// TestParityGraphs: single-token decoding steps replay CUDA graphs.
func TestParityGraphs(t *testing.T) {
	openGPU(t)
	_, dev := pair(t, configs(t)[0].cfg, 16, false)
	checkGraphs(t, dev, randomSeqs(9, dev.Cfg.VocabSize, []int{4, 7, 2}), 10)
}

// TestParityDeterminism: the same calls twice give the same bits.
func TestParityDeterminism(t *testing.T) {
	openGPU(t)
	for _, c := range configs(t)[:2] {
		t.Run(c.name, func(t *testing.T) {
			_, dev := pair(t, c.cfg, 17, true)
			checkDeterminism(t, dev, randomSeqs(10, c.cfg.VocabSize, []int{50, 7}))
		})
	}
}

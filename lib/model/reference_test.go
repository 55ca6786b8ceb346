package model

import (
	"math"
	"testing"
)

// refLogits is an independent float64 forward written straight from the
// Hugging Face Qwen2 and Qwen3 formulas with naive loops (repeat_kv by
// index, rotate_half on whole head vectors, explicit causal mask; Qwen3:
// head_dim from config.json, each query and key head RMS-normed with
// q_norm / k_norm before RoPE), sharing no code with the model's forward.
func refLogits(m *Model, ids []int32) [][]float64 {
	c := m.Cfg
	H, nh, nkv := c.HiddenSize, c.NumAttentionHeads, c.NumKeyValueHeads
	d := H / nh
	if c.HeadDimension > 0 {
		d = c.HeadDimension
	}
	T := len(ids)
	lin := func(x []float64, w *Tensor, b *Tensor) []float64 {
		out, in := w.Shape[0], w.Shape[1]
		y := make([]float64, out)
		for o := 0; o < out; o++ {
			s := 0.0
			if b != nil {
				s = float64(b.W[o])
			}
			for i := 0; i < in; i++ {
				s += float64(w.W[o*in+i]) * x[i]
			}
			y[o] = s
		}
		return y
	}
	norm := func(x []float64, w *Tensor) []float64 {
		ss := 0.0
		for _, v := range x {
			ss += v * v
		}
		r := 1 / math.Sqrt(ss/float64(len(x))+c.RMSNormEps)
		y := make([]float64, len(x))
		for i, v := range x {
			y[i] = v * r * float64(w.W[i])
		}
		return y
	}
	rope := func(v []float64, pos int) []float64 {
		out := make([]float64, len(v))
		for h := 0; h < len(v)/d; h++ {
			x := v[h*d : (h+1)*d]
			rot := make([]float64, d) // rotate_half: cat(-x2, x1)
			for i := 0; i < d/2; i++ {
				rot[i] = -x[i+d/2]
				rot[i+d/2] = x[i]
			}
			for i := 0; i < d; i++ {
				ang := float64(pos) * math.Pow(c.RopeTheta, -float64(2*(i%(d/2)))/float64(d))
				out[h*d+i] = x[i]*math.Cos(ang) + rot[i]*math.Sin(ang)
			}
		}
		return out
	}
	headNorm := func(v []float64, w *Tensor) []float64 { // Qwen3's q_norm, k_norm
		if c.ModelType != "qwen3" {
			return v
		}
		out := make([]float64, 0, len(v))
		for h := 0; h < len(v)/d; h++ {
			out = append(out, norm(v[h*d:(h+1)*d], w)...)
		}
		return out
	}
	x := make([][]float64, T)
	for t, id := range ids {
		x[t] = make([]float64, H)
		for i := range x[t] {
			x[t][i] = float64(m.Embed.W[int(id)*H+i])
		}
	}
	for _, L := range m.Layers {
		q, k, v := make([][]float64, T), make([][]float64, T), make([][]float64, T)
		for t := range x {
			n := norm(x[t], L.InputNorm)
			q[t] = rope(headNorm(lin(n, L.Q, L.QB), L.QNorm), t)
			k[t] = rope(headNorm(lin(n, L.K, L.KB), L.KNorm), t)
			v[t] = lin(n, L.V, L.VB)
		}
		for t := range x {
			att := make([]float64, nh*d)
			for h := 0; h < nh; h++ {
				g := h / (nh / nkv)
				sc := make([]float64, T)
				mx := math.Inf(-1)
				for j := 0; j < T; j++ {
					if j > t {
						sc[j] = math.Inf(-1)
						continue
					}
					s := 0.0
					for i := 0; i < d; i++ {
						s += q[t][h*d+i] * k[j][g*d+i]
					}
					sc[j] = s / math.Sqrt(float64(d))
					mx = math.Max(mx, sc[j])
				}
				z := 0.0
				for j := range sc {
					sc[j] = math.Exp(sc[j] - mx)
					z += sc[j]
				}
				for j := 0; j <= t; j++ {
					for i := 0; i < d; i++ {
						att[h*d+i] += sc[j] / z * v[j][g*d+i]
					}
				}
			}
			o := lin(att, L.O, nil)
			for i := range o {
				x[t][i] += o[i]
			}
			n := norm(x[t], L.PostNorm)
			gt, up := lin(n, L.Gate, nil), lin(n, L.Up, nil)
			h := make([]float64, len(gt))
			for i := range h {
				h[i] = gt[i] / (1 + math.Exp(-gt[i])) * up[i]
			}
			dn := lin(h, L.Down, nil)
			for i := range dn {
				x[t][i] += dn[i]
			}
		}
	}
	out := make([][]float64, T)
	for t := range x {
		out[t] = lin(norm(x[t], m.Norm), m.LMHead, nil)
	}
	return out
}

// refDistance is the largest difference between m's logits of seq and
// refLogits'.
func refDistance(t *testing.T, m *Model, seq []int32) float64 {
	t.Helper()
	got, err := m.Logits(seq)
	if err != nil {
		t.Fatal(err)
	}
	V := m.Cfg.VocabSize
	var worst float64
	for tt, row := range refLogits(m, seq) {
		for v, r := range row {
			worst = math.Max(worst, math.Abs(r-float64(got[tt*V+v])))
		}
	}
	return worst
}

// TestForwardMatchesReference compares the float32 logits with the
// float64 reference within 1e-4 (logits are of order 1-10 here).
//
// The Qwen3 cases have head_dim 6 with 4 heads over hidden size 16.
func TestForwardMatchesReference(t *testing.T) {
	for i, tied := range []bool{true, false, true, false} {
		cfg := testConfig(tied)
		if i >= 2 {
			cfg = qwen3TestConfig(tied)
		}
		cfg.RopeTheta = 100 // larger angles per position exercise RoPE harder
		m := randomModel(t, cfg, 77)
		seq := randomSeqs(13, cfg.VocabSize, 10)[0]
		if worst := refDistance(t, m, seq); worst > 1e-4 {
			t.Errorf("%s tied=%v: logits differ from the float64 reference by %g", cfg.ModelType, tied, worst)
		}
	}
}

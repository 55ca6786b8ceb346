//go:build cuda

package device_test

// The parity suite: the CUDA backend checked against the CPU backend, in
// llm.c's manner. Build and run it on a machine with a GPU (make
// gpu-tests, then build/gpu/device.test -test.run Parity); it is not part
// of the ordinary test run, and without the library or a GPU every test
// fails (none is skipped).
//
// How the tolerances were chosen. Matrix products on the device round
// both inputs to BF16 (8 significant bits: unit roundoff u = 2^-8) and
// accumulate in FP32, so one product's error is bounded by
// (2u + u^2 + k*2^-24) * sum_i |a_i||b_i|; the matmul kernel is checked
// elementwise against that bound (computed on the CPU from |A| and |B|),
// with no tuned constant. Kernels with no matrix product run in FP32 on
// both sides and differ only by rounding and the order of sums: they are
// held to 1e-5 of the output's largest magnitude (1e-4 for log-softmax
// rows of up to 151,936 entries); AdamW's new weights to 1e-5 lr plus
// four units in the last place (two implementations' roundings). The
// device's sampler must pick SampleU's token for the same uniform except
// where the uniform falls within float rounding of a boundary of the
// cumulative mass (at most 0.5% of the draws; never when greedy).
// Attention runs its two products in BF16 too: its output is a convex
// combination of value rows, so its error is held to 2e-2 of max|v|, its
// log-sum-exp to the worst-case BF16 error of one score, and its gradients
// to 3e-2 in relative L2.
//
// Whole-model results compound the BF16 rounding of every layer; from the
// per-product bound (about 2u = 0.8% of the operands' magnitude) and a few
// layers of partial cancellation, the logits are held to 2e-2 of their
// largest magnitude (the ~1e-2 relative error usual for BF16 inference).
// Log-probabilities and entropies are then held to what the measured logit
// error allows: log-softmax is 2-Lipschitz in the max norm, so a
// log-probability moves by at most 2 max|dlogit|, and an entropy by at
// most (max - min logit of its row) x max|dlogit| (to first order).
// Gradients (a backward doubles the products) are held to 5e-2 in relative
// L2 norm over all parameters and 1e-1 per tensor (tensors of at least 1%
// of the whole norm), the gradient norm to 5e-2. An optimizer step is
// recomputed on the host from the parameters before it and the device's
// own moments (1e-5 lr plus two units in the last place of each weight:
// the FP32 arithmetic of the update); against the CPU's step it can only
// be held loosely (no element more than 2 lr away, update vectors within
// 0.5 relative L2), since Adam's first step is about lr*sign(g) and
// gradients smaller than their BF16 error change sign. Greedy decoding
// must pick the CPU's token wherever the CPU's best logit leads the second
// by more than twice the logits' tolerance, and elsewhere a token within
// that distance of the best.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sync"
	"testing"

	"github.com/pats-rl/pats/lib/device"
	"github.com/pats-rl/pats/lib/model"
)

var (
	gpuOnce sync.Once
	gpu     *device.Device
	gpuErr  error
)

// dryRun reports PATS_PARITY_DRYRUN=1: the CPU stands in for the GPU
// (model.CPU for the kernels, model.NewHostAccelerator for the model) and
// the Qwen2.5-0.5B shape is left out. Every error is then 0; the dry run
// checks the suite itself (shapes, indexing, the checks' arithmetic) on a
// machine without a GPU. It is never the default.
func dryRun() bool { return os.Getenv("PATS_PARITY_DRYRUN") == "1" }

// openGPU opens the cuda device or fails the test: the suite has no
// skips.
func openGPU(t testing.TB) *device.Device {
	t.Helper()
	if dryRun() {
		return nil
	}
	gpuOnce.Do(func() { gpu, gpuErr = device.Open(device.CUDA) })
	if gpuErr != nil {
		t.Fatalf("the parity suite needs libpatscuda.so and a GPU: %v", gpuErr)
	}
	return gpu
}

// kernelSet is what the kernel checks run: the Backend methods and the
// sampler.
type kernelSet interface {
	model.Backend
	decodeAttention
	Sample(logits []float32, s model.Sampling, u float64) (int32, float32)
}

type cpuKernels struct {
	model.CPU
	decodeAttentionCPU
}

func (cpuKernels) Sample(l []float32, s model.Sampling, u float64) (int32, float32) {
	return model.SampleU(l, s.Temperature, s.TopP, u)
}

func kernels(t testing.TB) kernelSet {
	if dryRun() {
		return cpuKernels{}
	}
	k, err := openGPU(t).Kernels()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestParityMatMul: C = alpha op(A) op(B) + beta C on ragged shapes with
// padded leading dimensions, every element within the BF16 product bound.
func TestParityMatMul(t *testing.T) {
	k := kernels(t)
	cpu := model.CPU{}
	rng := rand.New(rand.NewPCG(1, 1))
	shapes := [][3]int{{1, 1, 1}, {3, 5, 7}, {17, 33, 65}, {64, 129, 257}, {5, 151, 896}, {130, 67, 31}}
	for _, s := range shapes {
		m, n, kk := s[0], s[1], s[2]
		for _, ta := range []bool{false, true} {
			for _, tb := range []bool{false, true} {
				for _, beta := range []float32{0, 1.3} {
					ar, ac := m, kk
					if ta {
						ar, ac = kk, m
					}
					br, bc := kk, n
					if tb {
						br, bc = n, kk
					}
					lda, ldb, ldc := ac+3, bc+1, n+2
					a := randn(rng, ar*lda, 1)
					b := randn(rng, br*ldb, 1)
					c := randn(rng, m*ldc, 1)
					want, got := clone(c), clone(c)
					cpu.MatMul(ta, tb, m, n, kk, 0.7, a, lda, b, ldb, beta, want, ldc)
					k.MatMul(ta, tb, m, n, kk, 0.7, a, lda, b, ldb, beta, got, ldc)
					// The bound: 0.7*(2u+u^2+k*2^-24)*(|A||B|) + |beta c|*2^-23 + tiny.
					abs := func(x []float32) []float32 {
						y := make([]float32, len(x))
						for i, v := range x {
							y[i] = float32(math.Abs(float64(v)))
						}
						return y
					}
					ab := make([]float32, m*ldc)
					cpu.MatMul(ta, tb, m, n, kk, 1, abs(a), lda, abs(b), ldb, 0, ab, ldc)
					worst := 0.0
					for i := 0; i < m; i++ {
						for j := 0; j < n; j++ {
							p := i*ldc + j
							bound := 0.7*(2*bf16U+bf16U*bf16U+float64(kk)*0x1p-24)*float64(ab[p])*1.01 +
								math.Abs(float64(beta*c[p]))*0x1p-22 + 1e-6
							e := math.Abs(float64(got[p]) - float64(want[p]))
							if !(e <= bound) {
								e = math.Inf(1)
							}
							worst = math.Max(worst, e/bound)
						}
						for j := n; j < ldc; j++ { // padding untouched
							if got[i*ldc+j] != c[i*ldc+j] {
								t.Fatalf("%v ta=%v tb=%v: padding column %d of row %d written", s, ta, tb, j, i)
							}
						}
					}
					within(t, fmt.Sprintf("matmul m=%d n=%d k=%d ta=%v tb=%v beta=%v (error/bound)", m, n, kk, ta, tb, beta), worst, 1)
				}
			}
		}
	}
}

// TestParityRMSNorm: forward (y and inv) and the accumulating backward.
func TestParityRMSNorm(t *testing.T) {
	k := kernels(t)
	cpu := model.CPU{}
	rng := rand.New(rand.NewPCG(2, 1))
	for _, rows := range []int{1, 3, 17} {
		for _, dim := range []int{1, 7, 128, 896} {
			x := randn(rng, rows*dim, 2)
			w := randn(rng, dim, 1)
			y1, y2 := make([]float32, rows*dim), make([]float32, rows*dim)
			i1, i2 := make([]float32, rows), make([]float32, rows)
			cpu.RMSNorm(y1, i1, x, w, rows, dim, 1e-6)
			k.RMSNorm(y2, i2, x, w, rows, dim, 1e-6)
			name := fmt.Sprintf("rows=%d dim=%d", rows, dim)
			within(t, "rmsnorm y "+name, relInf(y2, y1), 1e-5)
			within(t, "rmsnorm inv "+name, relInf(i2, i1), 1e-5)
			dy := randn(rng, rows*dim, 1)
			dx0, dw0 := randn(rng, rows*dim, 1), randn(rng, dim, 1)
			dx1, dw1, dx2, dw2 := clone(dx0), clone(dw0), clone(dx0), clone(dw0)
			cpu.RMSNormBackward(dx1, dw1, dy, x, w, i1, rows, dim)
			k.RMSNormBackward(dx2, dw2, dy, x, w, i1, rows, dim)
			within(t, "rmsnorm dx "+name, relInf(dx2, dx1), 1e-5)
			within(t, "rmsnorm dw "+name, relInf(dw2, dw1), 1e-5)
		}
	}
}

// ropeTables are lib/model's tables: angle p*theta^(-2i/hd) in float64.
func ropeTables(npos, hd int, theta float64) (cos, sin []float32) {
	half := hd / 2
	cos, sin = make([]float32, npos*half), make([]float32, npos*half)
	for i := 0; i < half; i++ {
		f := math.Pow(theta, -float64(2*i)/float64(hd))
		for p := 0; p < npos; p++ {
			s, c := math.Sincos(float64(p) * f)
			cos[p*half+i], sin[p*half+i] = float32(c), float32(s)
		}
	}
	return cos, sin
}

// TestParityRoPE: both directions, several head widths and start
// positions.
func TestParityRoPE(t *testing.T) {
	k := kernels(t)
	cpu := model.CPU{}
	rng := rand.New(rand.NewPCG(3, 1))
	for _, hd := range []int{2, 6, 64, 128} {
		cos, sin := ropeTables(2048, hd, 1e6)
		for _, c := range [][3]int{{1, 1, 0}, {5, 3, 7}, {17, 14, 1000}, {3, 2, 2040}} {
			rows, heads, pos0 := c[0], c[1], c[2]
			for _, inv := range []bool{false, true} {
				x := randn(rng, rows*heads*hd, 1)
				a, b := clone(x), clone(x)
				cpu.RoPE(a, rows, heads, hd, pos0, cos, sin, inv)
				k.RoPE(b, rows, heads, hd, pos0, cos, sin, inv)
				within(t, fmt.Sprintf("rope hd=%d rows=%d heads=%d pos0=%d inverse=%v", hd, rows, heads, pos0, inv), relInf(b, a), 1e-5)
			}
		}
	}
}

// TestParityAttention: causal grouped-query attention with GQA ratios 1, 2
// and 6, cached positions (past > 0) in the forward, and the accumulating
// backward.
func TestParityAttention(t *testing.T) {
	k := kernels(t)
	cpu := model.CPU{}
	rng := rand.New(rand.NewPCG(4, 1))
	type shape struct{ heads, kv, hd int }
	for _, sh := range []shape{{2, 2, 8}, {4, 2, 64}, {6, 1, 16}, {14, 2, 64}, {12, 2, 128}} {
		for _, rp := range [][2]int{{1, 0}, {3, 0}, {17, 0}, {64, 0}, {1, 13}, {5, 1}, {7, 40}} {
			rows, past := rp[0], rp[1]
			s := model.AttnShape{Rows: rows, Past: past, Heads: sh.heads, KVHeads: sh.kv, HeadDim: sh.hd}
			qd, kd := sh.heads*sh.hd, sh.kv*sh.hd
			q := randn(rng, rows*qd, 1)
			kk := randn(rng, (past+rows)*kd, 1)
			v := randn(rng, (past+rows)*kd, 1)
			o1, o2 := make([]float32, rows*qd), make([]float32, rows*qd)
			l1, l2 := make([]float32, sh.heads*rows), make([]float32, sh.heads*rows)
			cpu.Attention(o1, l1, q, kk, v, s)
			k.Attention(o2, l2, q, kk, v, s)
			name := fmt.Sprintf("heads=%d kv=%d hd=%d rows=%d past=%d", sh.heads, sh.kv, sh.hd, rows, past)
			within(t, "attention out "+name+" (/max|v|)", maxDiff(o2, o1)/maxAbs(v), 2e-2)
			within(t, "attention lse "+name+" (error / bound)", lseError(l1, l2, q, kk, s), 1)
			if past != 0 {
				continue
			}
			dout := randn(rng, rows*qd, 1)
			dq0, dk0, dv0 := randn(rng, rows*qd, 1), randn(rng, rows*kd, 1), randn(rng, rows*kd, 1)
			dq1, dk1, dv1 := clone(dq0), clone(dk0), clone(dv0)
			dq2, dk2, dv2 := clone(dq0), clone(dk0), clone(dv0)
			cpu.AttentionBackward(dq1, dk1, dv1, dout, q, kk, v, o1, l1, s)
			k.AttentionBackward(dq2, dk2, dv2, dout, q, kk, v, o1, l1, s)
			within(t, "attention dq "+name, relL2(dq2, dq1), 3e-2)
			within(t, "attention dk "+name, relL2(dk2, dk1), 3e-2)
			within(t, "attention dv "+name, relL2(dv2, dv1), 3e-2)
		}
	}
}

// lseError is the worst ratio, over rows and heads, of the log-sum-exp's
// error to its bound: the log-sum-exp moves by at most the largest error
// of one of the row's scores, and a score q.k/sqrt(hd) computed from BF16
// operands with FP32 accumulation errs by at most (2u + u^2 + hd 2^-24)
// sum_e |q_e||k_e| / sqrt(hd), plus the FP32 softmax's own rounding
// (1e-5 of the log-sum-exp's magnitude, and 1e-5 absolute). The bound is
// taken per row and head from the operands (about 0.05 nats for unit
// normal q and k at head_dim 128, not the 3 nats of a bound from the
// largest |q| and |k|).
func lseError(want, got, q, k []float32, s model.AttnShape) float64 {
	hd, rep := s.HeadDim, s.Heads/s.KVHeads
	qd, kd := s.Heads*hd, s.KVHeads*hd
	c := (2*bf16U + bf16U*bf16U + float64(hd)*0x1p-24) / math.Sqrt(float64(hd))
	worst := 0.0
	for h := 0; h < s.Heads; h++ {
		g := h / rep
		for i := 0; i < s.Rows; i++ {
			m := 0.0
			for j := 0; j <= s.Past+i; j++ {
				a := 0.0
				for e := 0; e < hd; e++ {
					a += math.Abs(float64(q[i*qd+h*hd+e]) * float64(k[j*kd+g*hd+e]))
				}
				m = math.Max(m, a)
			}
			w, g2 := float64(want[h*s.Rows+i]), float64(got[h*s.Rows+i])
			bound := c*m*1.01 + 1e-5*math.Abs(w) + 1e-5
			e := math.Abs(g2-w) / bound
			if math.IsNaN(e) {
				e = math.Inf(1)
			}
			worst = math.Max(worst, e)
		}
	}
	return worst
}

// TestParityPeakedAttention: the attention kernels with peaked scores (q
// scaled so that the scores spread over tens of units, as a trained
// model's do), where a wrong position, mask or scale moves the output by
// far more than the tolerance, at lengths that take several chunks of 512
// query rows.
func TestParityPeakedAttention(t *testing.T) {
	k := kernels(t)
	cpu := model.CPU{}
	rng := rand.New(rand.NewPCG(14, 1))
	type shape struct{ heads, kv, hd, rows, past int }
	shapes := []shape{{4, 2, 64, 33, 0}, {14, 2, 64, 700, 0}, {12, 2, 128, 1100, 0}, {6, 1, 64, 5, 300}}
	if testing.Short() {
		shapes = []shape{{4, 2, 64, 33, 0}, {6, 1, 64, 5, 30}}
	}
	for _, sh := range shapes {
		s := model.AttnShape{Rows: sh.rows, Past: sh.past, Heads: sh.heads, KVHeads: sh.kv, HeadDim: sh.hd}
		qd, kd := sh.heads*sh.hd, sh.kv*sh.hd
		q := randn(rng, sh.rows*qd, 2) // scores of std 2: softmax rows far from flat
		kk := randn(rng, (sh.past+sh.rows)*kd, 1)
		v := randn(rng, (sh.past+sh.rows)*kd, 1)
		o1, o2 := make([]float32, sh.rows*qd), make([]float32, sh.rows*qd)
		l1, l2 := make([]float32, sh.heads*sh.rows), make([]float32, sh.heads*sh.rows)
		cpu.Attention(o1, l1, q, kk, v, s)
		k.Attention(o2, l2, q, kk, v, s)
		name := fmt.Sprintf("peaked heads=%d kv=%d hd=%d rows=%d past=%d", sh.heads, sh.kv, sh.hd, sh.rows, sh.past)
		within(t, "attention out "+name+" (/max|v|)", maxDiff(o2, o1)/maxAbs(v), 2e-2)
		within(t, "attention lse "+name+" (error / bound)", lseError(l1, l2, q, kk, s), 1)
		if sh.past != 0 {
			continue
		}
		dout := randn(rng, sh.rows*qd, 1)
		dq1, dk1, dv1 := make([]float32, sh.rows*qd), make([]float32, sh.rows*kd), make([]float32, sh.rows*kd)
		dq2, dk2, dv2 := make([]float32, sh.rows*qd), make([]float32, sh.rows*kd), make([]float32, sh.rows*kd)
		cpu.AttentionBackward(dq1, dk1, dv1, dout, q, kk, v, o1, l1, s)
		k.AttentionBackward(dq2, dk2, dv2, dout, q, kk, v, o1, l1, s)
		within(t, "attention dq "+name, relL2(dq2, dq1), 3e-2)
		within(t, "attention dk "+name, relL2(dk2, dk1), 3e-2)
		within(t, "attention dv "+name, relL2(dv2, dv1), 3e-2)
	}
}

// TestParityDecodeAttention: the KV store and the decoding attention
// kernel (pc_op_decode_attention) at random positions of several
// decoders' caches.
func TestParityDecodeAttention(t *testing.T) {
	checkDecodeAttention(t, kernels(t), testing.Short())
}

// TestParitySwiGLU: h = silu(g)*u and its backward.
func TestParitySwiGLU(t *testing.T) {
	k := kernels(t)
	cpu := model.CPU{}
	rng := rand.New(rand.NewPCG(5, 1))
	for _, n := range []int{1, 7, 1000, 3 * 4864} {
		g, u := randn(rng, n, 3), randn(rng, n, 1)
		h1, h2 := make([]float32, n), make([]float32, n)
		cpu.SwiGLU(h1, g, u)
		k.SwiGLU(h2, g, u)
		within(t, fmt.Sprintf("swiglu n=%d", n), relInf(h2, h1), 1e-5)
		dh := randn(rng, n, 1)
		dg1, du1, dg2, du2 := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
		cpu.SwiGLUBackward(dg1, du1, dh, g, u)
		k.SwiGLUBackward(dg2, du2, dh, g, u)
		within(t, fmt.Sprintf("swiglu dg n=%d", n), relInf(dg2, dg1), 1e-5)
		within(t, fmt.Sprintf("swiglu du n=%d", n), relInf(du2, du1), 1e-5)
	}
}

// TestParityLogSoftmax: log-probability of the target, entropy and
// log-sum-exp, and the backward, up to Qwen's vocabulary.
func TestParityLogSoftmax(t *testing.T) {
	k := kernels(t)
	cpu := model.CPU{}
	rng := rand.New(rand.NewPCG(6, 1))
	vocabs := []int{1, 2, 7, 6000, 151936}
	if testing.Short() { // under compute-sanitizer
		vocabs = vocabs[:4]
	}
	for _, rows := range []int{1, 3, 17} {
		for _, vocab := range vocabs {
			logits := randn(rng, rows*vocab, 3)
			target := make([]int32, rows)
			for i := range target {
				target[i] = int32(rng.IntN(vocab))
			}
			lp1, e1, s1 := make([]float32, rows), make([]float32, rows), make([]float32, rows)
			lp2, e2, s2 := make([]float32, rows), make([]float32, rows), make([]float32, rows)
			cpu.LogSoftmax(lp1, e1, s1, logits, target, rows, vocab)
			k.LogSoftmax(lp2, e2, s2, logits, target, rows, vocab)
			name := fmt.Sprintf("rows=%d vocab=%d", rows, vocab)
			within(t, "log-softmax lp "+name, maxDiff(lp2, lp1), 1e-4)
			within(t, "log-softmax entropy "+name, maxDiff(e2, e1), 1e-4)
			within(t, "log-softmax lse "+name, maxDiff(s2, s1), 1e-4)
			dlp := randn(rng, rows, 1)
			d1, d2 := make([]float32, rows*vocab), make([]float32, rows*vocab)
			cpu.LogSoftmaxBackward(d1, logits, s1, target, dlp, rows, vocab)
			k.LogSoftmaxBackward(d2, logits, s1, target, dlp, rows, vocab)
			within(t, "log-softmax backward "+name+" (/max|dlp|)", maxDiff(d2, d1)/math.Max(maxAbs(dlp), 1e-30), 1e-5)
		}
	}
}

// TestParityAdamW: one update of a tensor with its moments, with and
// without weight decay, at steps 1 and 100.
func TestParityAdamW(t *testing.T) {
	k := kernels(t)
	cpu := model.CPU{}
	rng := rand.New(rand.NewPCG(7, 1))
	for _, n := range []int{1, 7, 10000} {
		for _, step := range []int{1, 100} {
			for _, wd := range []float32{0, 0.1} {
				h := model.AdamWStep{LR: 1e-3, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, WeightDecay: wd,
					BC1: float32(1 - math.Pow(0.9, float64(step))), BC2: float32(1 - math.Pow(0.999, float64(step)))}
				p, g := randn(rng, n, 1), randn(rng, n, 1)
				m, v := randn(rng, n, 0.1), randn(rng, n, 0.01)
				for i := range v {
					v[i] *= v[i] // a second moment is not negative
				}
				p1, m1, v1, p2, m2, v2 := clone(p), clone(m), clone(v), clone(p), clone(m), clone(v)
				cpu.AdamW(p1, g, m1, v1, h)
				k.AdamW(p2, g, m2, v2, h)
				name := fmt.Sprintf("n=%d step=%d wd=%v", n, step, wd)
				worst := 0.0 // per element: 1e-5 lr plus four units in the last place of p
				for i := range p1 {
					e := math.Abs(float64(p2[i])-float64(p1[i])) / (1e-5*float64(h.LR) + 0x1p-21*math.Abs(float64(p[i])))
					if math.IsNaN(e) {
						e = math.Inf(1)
					}
					worst = math.Max(worst, e)
				}
				within(t, "adamw p "+name+" (error / bound)", worst, 1)
				within(t, "adamw m "+name, relInf(m2, m1), 1e-6)
				within(t, "adamw v "+name, relInf(v2, v1), 1e-6)
			}
		}
	}
}

// TestParitySample: the device's draw with the host's uniform is
// model.SampleU's, greedy, at temperature and under a nucleus; a token may
// differ only where the uniform falls within float rounding of a boundary
// of the cumulative mass, which 1000 draws reach at most a few times.
func TestParitySample(t *testing.T) {
	k := kernels(t)
	rng := rand.New(rand.NewPCG(8, 1))
	for _, vocab := range []int{1, 2, 7, 6000, 151936} {
		logits := randn(rng, vocab, 2)
		for _, s := range []model.Sampling{{Temperature: 0, TopP: 1}, {Temperature: 1, TopP: 1}, {Temperature: 0.7, TopP: 0.9}, {Temperature: 1.3, TopP: 0.5}} {
			draws := 1000
			if vocab > 10000 {
				draws = 100
			}
			if testing.Short() { // under compute-sanitizer
				draws = min(draws, 20)
			}
			differ := 0
			worst := 0.0
			for d := 0; d < draws; d++ {
				u := rng.Float64()
				t1, l1 := model.SampleU(logits, s.Temperature, s.TopP, u)
				t2, l2 := k.Sample(logits, s, u)
				if t1 != t2 {
					differ++
					continue
				}
				worst = math.Max(worst, math.Abs(float64(l1-l2)))
			}
			name := fmt.Sprintf("sample vocab=%d T=%v top-p=%v", vocab, s.Temperature, s.TopP)
			within(t, name+" logp", worst, 1e-4)
			within(t, name+" share of other tokens", float64(differ)/float64(draws), math.Max(0.005, 1/float64(draws)))
			if s.Temperature == 0 && differ != 0 {
				t.Errorf("%s: greedy gave another token", name)
			}
		}
	}
}

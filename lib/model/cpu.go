package model

import (
	"math"
	"runtime"

	"github.com/pats-rl/pats/lib/gemm"
	"github.com/pats-rl/pats/lib/vecmath"
)

// CPU is the host backend: matrix products in lib/gemm, everything else
// in lib/vecmath's vector kernels (AVX2+FMA assembly where the processor
// has it, else Go). Work is split over heads (attention) and rows
// (softmax) with one goroutine per part; every output element is written
// by one goroutine and every sum runs in a fixed order, so results do not
// depend on GOMAXPROCS.
type CPU struct{}

// Name returns "cpu".
func (CPU) Name() string { return "cpu" }

// MatMul forwards to gemm.Sgemm.
func (CPU) MatMul(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	gemm.Sgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// RMSNorm implements Backend.
func (CPU) RMSNorm(y, inv, x, w []float32, rows, dim int, eps float32) {
	for r := 0; r < rows; r++ {
		xr := x[r*dim : (r+1)*dim]
		yr := y[r*dim : (r+1)*dim]
		ss := vecmath.Dot(xr, xr)
		iv := float32(1 / math.Sqrt(float64(ss/float32(dim)+eps)))
		inv[r] = iv
		vecmath.Mul(yr, xr, w, iv)
	}
}

// RMSNormBackward implements Backend.
func (CPU) RMSNormBackward(dx, dw, dy, x, w, inv []float32, rows, dim int) {
	for r := 0; r < rows; r++ {
		xr := x[r*dim : (r+1)*dim]
		dyr := dy[r*dim : (r+1)*dim]
		dxr := dx[r*dim : (r+1)*dim]
		iv := inv[r]
		dot := vecmath.Dot3(dyr, w, xr)
		vecmath.MulAdd(dw, dyr, xr, iv)
		c := dot * iv * iv * iv / float32(dim)
		vecmath.MulAdd(dxr, dyr, w, iv)
		vecmath.Axpy(-c, xr, dxr)
	}
}

// RoPE implements Backend.
func (CPU) RoPE(x []float32, rows, heads, headDim, pos0 int, cos, sin []float32, inverse bool) {
	half := headDim / 2
	width := heads * headDim
	for r := 0; r < rows; r++ {
		c := cos[(pos0+r)*half : (pos0+r+1)*half]
		s := sin[(pos0+r)*half : (pos0+r+1)*half]
		for h := 0; h < heads; h++ {
			a := x[r*width+h*headDim : r*width+h*headDim+half]
			b := x[r*width+h*headDim+half : r*width+(h+1)*headDim]
			for i := 0; i < half; i++ {
				si := s[i]
				if inverse {
					si = -si
				}
				x1, x2 := a[i], b[i]
				a[i] = x1*c[i] - x2*si
				b[i] = x2*c[i] + x1*si
			}
		}
	}
}

// parallel runs f(0..n-1), on the caller and gemm's helper goroutines
// when work is large enough. Each index must touch disjoint outputs.
func parallel(n int, work int, f func(i int)) {
	workers := runtime.GOMAXPROCS(0)
	if work < 1<<15 {
		workers = 1
	}
	gemm.Parallel(workers, n, f)
}

// Attention implements Backend. For each query row: the scores against
// every visible key (vecmath.DotRows), their softmax (max, one fused
// exp-and-sum pass) and the probability-weighted sum of value rows
// (vecmath.AxpyRows), normalised once at the end. Query heads that share
// a key/value head go in pairs, so that the value rows are read once for
// both (vecmath.AxpyRows2, with AxpyRows' bits).
func (CPU) Attention(out, lse, q, k, v []float32, s AttnShape) {
	hd, rep := s.HeadDim, s.Heads/s.KVHeads
	qw, kw := s.Heads*hd, s.KVHeads*hd
	keys := s.Past + s.Rows
	scale := float32(1 / math.Sqrt(float64(hd)))
	// Work items: pairs of query heads of one key/value head where rep is
	// even, single heads otherwise.
	width := 1
	if rep%2 == 0 {
		width = 2
	}
	parallel(s.Heads/width, s.Rows*keys*hd, func(it int) {
		h0 := it * width
		g := h0 / rep
		kg, vg := k[g*hd:], v[g*hd:]
		sc := make([]float32, width*keys)
		var ps [2][]float32
		var os [2][]float32
		var sums [2]float32
		for i := 0; i < s.Rows; i++ {
			n := s.Past + i + 1
			if width == 2 {
				vecmath.DotRows2(sc[:n], sc[keys:keys+n], kg, kw, q[i*qw+h0*hd:i*qw+(h0+1)*hd], q[i*qw+(h0+1)*hd:i*qw+(h0+2)*hd])
			} else {
				vecmath.DotRows(sc[:n], kg, kw, q[i*qw+h0*hd:i*qw+(h0+1)*hd])
			}
			for w := 0; w < width; w++ {
				h := h0 + w
				p := sc[w*keys : w*keys+n]
				mx := vecmath.Max(p)
				sums[w] = vecmath.ExpAffine(p, p, scale, -scale*mx, 1)
				if lse != nil {
					lse[h*s.Rows+i] = scale*mx + float32(math.Log(float64(sums[w])))
				}
				ps[w] = p
				os[w] = out[i*qw+h*hd : i*qw+(h+1)*hd]
				clear(os[w])
			}
			if width == 2 {
				vecmath.AxpyRows2(os[0], os[1], vg, kw, ps[0], ps[1])
			} else {
				vecmath.AxpyRows(os[0], vg, kw, ps[0])
			}
			for w := 0; w < width; w++ {
				vecmath.Scale(1/sums[w], os[w])
			}
		}
	})
}

// AttentionBackward implements Backend. Each query head writes its own
// key/value gradient buffer; the buffers of a group are then added in head
// order. Per query row i, with p the attention probabilities recomputed
// from lse and D = dout_i . out_i: dv_j += p_j dout_i, ds_j = p_j
// (dout_i . v_j - D) scale, dq_i += sum_j ds_j k_j, dk_j += ds_j q_i. With
// s.Past > 0 the keys and values (and dk, dv) have Past+Rows rows, the
// first Past of them before the queries (a prefix the rows continue).
func (CPU) AttentionBackward(dq, dk, dv, dout, q, k, v, out, lse []float32, s AttnShape) {
	hd, rep := s.HeadDim, s.Heads/s.KVHeads
	qw, kw := s.Heads*hd, s.KVHeads*hd
	T, P := s.Rows, s.Past
	K := P + T
	scale := float32(1 / math.Sqrt(float64(hd)))
	dkh := make([]float32, s.Heads*K*hd)
	dvh := make([]float32, s.Heads*K*hd)
	// Work items as in Attention: pairs of query heads of one key/value
	// head (dq of both from one pass over the key rows), or single heads.
	width := 1
	if rep%2 == 0 {
		width = 2
	}
	parallel(s.Heads/width, T*K*hd, func(it int) {
		h0 := it * width
		g := h0 / rep
		kg, vg := k[g*hd:], v[g*hd:]
		pb := make([]float32, width*K)
		dsb := make([]float32, width*K)
		var dss, dqs [2][]float32
		for i := 0; i < T; i++ {
			n := P + i + 1
			// Scores p = K q and dout . v rows, both heads at once.
			q0, do0 := q[i*qw+h0*hd:i*qw+(h0+1)*hd], dout[i*qw+h0*hd:i*qw+(h0+1)*hd]
			if width == 2 {
				q1, do1 := q[i*qw+(h0+1)*hd:i*qw+(h0+2)*hd], dout[i*qw+(h0+1)*hd:i*qw+(h0+2)*hd]
				vecmath.DotRows2(pb[:n], pb[K:K+n], kg, kw, q0, q1)
				vecmath.DotRows2(dsb[:n], dsb[K:K+n], vg, kw, do0, do1)
			} else {
				vecmath.DotRows(pb[:n], kg, kw, q0)
				vecmath.DotRows(dsb[:n], vg, kw, do0)
			}
			for w := 0; w < width; w++ {
				h := h0 + w
				myDK := dkh[h*K*hd : (h+1)*K*hd]
				myDV := dvh[h*K*hd : (h+1)*K*hd]
				qi := q[i*qw+h*hd : i*qw+(h+1)*hd]
				doi := dout[i*qw+h*hd : i*qw+(h+1)*hd]
				D := vecmath.Dot(doi, out[i*qw+h*hd:i*qw+(h+1)*hd])
				p, ds := pb[w*K:w*K+n], dsb[w*K:w*K+n]
				vecmath.ExpAffine(p, p, scale, -lse[h*T+i], 1)
				for j, pj := range p {
					ds[j] = pj * (ds[j] - D) * scale
				}
				vecmath.AddOuter(myDV, hd, p, doi)
				vecmath.AddOuter(myDK, hd, ds, qi)
				dss[w] = ds
				dqs[w] = dq[i*qw+h*hd : i*qw+(h+1)*hd]
			}
			if width == 2 {
				vecmath.AxpyRows2(dqs[0], dqs[1], kg, kw, dss[0], dss[1])
			} else {
				vecmath.AxpyRows(dqs[0], kg, kw, dss[0])
			}
		}
	})
	for h := 0; h < s.Heads; h++ {
		g := h / rep
		for j := 0; j < K; j++ {
			vecmath.Axpy(1, dkh[h*K*hd+j*hd:h*K*hd+(j+1)*hd], dk[j*kw+g*hd:j*kw+(g+1)*hd])
			vecmath.Axpy(1, dvh[h*K*hd+j*hd:h*K*hd+(j+1)*hd], dv[j*kw+g*hd:j*kw+(g+1)*hd])
		}
	}
}

// SwiGLU implements Backend.
func (CPU) SwiGLU(h, g, u []float32) { vecmath.SiLUMul(h, g, u) }

// SwiGLUBackward implements Backend.
func (CPU) SwiGLUBackward(dg, du, dh, g, u []float32) { vecmath.SiLUMulBackward(dg, du, dh, g, u) }

// logSumExp returns the maximum and the log-sum-exp of a row.
func logSumExp(x []float32) (mx, lse float32) { return vecmath.LogSumExp(x) }

// LogSoftmax implements Backend. One exponential per element gives both
// the log-sum-exp and the entropy: with d = x - max and s = sum exp(d),
// lse = max + log(s) and H = log(s) - sum(exp(d)*d)/s.
func (CPU) LogSoftmax(lp, ent, lse, logits []float32, target []int32, rows, vocab int) {
	parallel(rows, rows*vocab*4, func(r int) {
		x := logits[r*vocab : (r+1)*vocab]
		mx := vecmath.Max(x)
		s, sx := vecmath.ExpSums(x, mx)
		l := mx + float32(math.Log(float64(s)))
		lp[r] = x[target[r]] - l
		if ent != nil {
			ent[r] = l - mx - sx/s
		}
		if lse != nil {
			lse[r] = l
		}
	})
}

// LogSoftmaxBackward implements Backend.
func (CPU) LogSoftmaxBackward(dlogits, logits, lse []float32, target []int32, dlp []float32, rows, vocab int) {
	parallel(rows, rows*vocab*4, func(r int) {
		x := logits[r*vocab : (r+1)*vocab]
		d := dlogits[r*vocab : (r+1)*vocab]
		w := dlp[r]
		vecmath.ExpAffine(d, x, 1, -lse[r], -w)
		d[target[r]] += w
	})
}

// AdamW implements Backend:
// m = b1*m + (1-b1)*g; v = b2*v + (1-b2)*g^2;
// p -= lr * (wd*p + (m/bc1) / (sqrt(v/bc2) + eps)).
func (CPU) AdamW(p, g, m, v []float32, h AdamWStep) {
	vecmath.AdamW(p, g, m, v, vecmath.AdamWStep(h))
}

package model

import (
	"math"
	"sync"

	"github.com/pats-rl/pats/lib/gemm"
)

// CPU is the pure Go backend. Work is split over heads (attention) with one
// goroutine per head; every output element is written by one goroutine
// and every sum runs in a fixed order, so results do not depend on
// GOMAXPROCS.
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
		var ss float32
		for _, v := range xr {
			ss += v * v
		}
		iv := float32(1 / math.Sqrt(float64(ss/float32(dim)+eps)))
		inv[r] = iv
		for i, v := range xr {
			yr[i] = v * iv * w[i]
		}
	}
}

// RMSNormBackward implements Backend.
func (CPU) RMSNormBackward(dx, dw, dy, x, w, inv []float32, rows, dim int) {
	for r := 0; r < rows; r++ {
		xr := x[r*dim : (r+1)*dim]
		dyr := dy[r*dim : (r+1)*dim]
		dxr := dx[r*dim : (r+1)*dim]
		iv := inv[r]
		var dot float32
		for i, v := range xr {
			g := dyr[i] * w[i]
			dot += g * v
			dw[i] += dyr[i] * v * iv
		}
		c := dot * iv * iv * iv / float32(dim)
		for i, v := range xr {
			dxr[i] += dyr[i]*w[i]*iv - c*v
		}
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

// parallel runs f(0..n-1), concurrently when work is large enough. Each
// index must touch disjoint outputs.
func parallel(n int, work int, f func(i int)) {
	if n == 1 || work < 1<<15 {
		for i := 0; i < n; i++ {
			f(i)
		}
		return
	}
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			f(i)
		}(i)
	}
	wg.Wait()
}

func dot(a, b []float32) float32 {
	var s float32
	b = b[:len(a)]
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

func axpy(alpha float32, x, y []float32) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += alpha * v
	}
}

// Attention implements Backend.
func (CPU) Attention(out, lse, q, k, v []float32, s AttnShape) {
	hd, rep := s.HeadDim, s.Heads/s.KVHeads
	qw, kw := s.Heads*hd, s.KVHeads*hd
	keys := s.Past + s.Rows
	scale := float32(1 / math.Sqrt(float64(hd)))
	parallel(s.Heads, s.Rows*keys*hd, func(h int) {
		g := h / rep
		sc := make([]float32, keys)
		for i := 0; i < s.Rows; i++ {
			qi := q[i*qw+h*hd : i*qw+(h+1)*hd]
			n := s.Past + i + 1
			mx := float32(math.Inf(-1))
			for j := 0; j < n; j++ {
				sc[j] = dot(qi, k[j*kw+g*hd:j*kw+(g+1)*hd]) * scale
				if sc[j] > mx {
					mx = sc[j]
				}
			}
			var sum float32
			for j := 0; j < n; j++ {
				e := expf(sc[j] - mx)
				sc[j] = e
				sum += e
			}
			oi := out[i*qw+h*hd : i*qw+(h+1)*hd]
			clear(oi)
			invSum := 1 / sum
			for j := 0; j < n; j++ {
				axpy(sc[j]*invSum, v[j*kw+g*hd:j*kw+(g+1)*hd], oi)
			}
			if lse != nil {
				lse[h*s.Rows+i] = mx + float32(math.Log(float64(sum)))
			}
		}
	})
}

// AttentionBackward implements Backend. Each query head writes its own
// key/value gradient buffer; the buffers of a group are then added in head
// order.
func (CPU) AttentionBackward(dq, dk, dv, dout, q, k, v, out, lse []float32, s AttnShape) {
	if s.Past != 0 {
		panic("model: AttentionBackward with cached positions")
	}
	hd, rep := s.HeadDim, s.Heads/s.KVHeads
	qw, kw := s.Heads*hd, s.KVHeads*hd
	T := s.Rows
	scale := float32(1 / math.Sqrt(float64(hd)))
	dkh := make([]float32, s.Heads*T*hd)
	dvh := make([]float32, s.Heads*T*hd)
	parallel(s.Heads, T*T*hd, func(h int) {
		g := h / rep
		myDK := dkh[h*T*hd : (h+1)*T*hd]
		myDV := dvh[h*T*hd : (h+1)*T*hd]
		for i := 0; i < T; i++ {
			qi := q[i*qw+h*hd : i*qw+(h+1)*hd]
			doi := dout[i*qw+h*hd : i*qw+(h+1)*hd]
			dqi := dq[i*qw+h*hd : i*qw+(h+1)*hd]
			D := dot(doi, out[i*qw+h*hd:i*qw+(h+1)*hd])
			l := lse[h*T+i]
			for j := 0; j <= i; j++ {
				kj := k[j*kw+g*hd : j*kw+(g+1)*hd]
				pj := expf(dot(qi, kj)*scale - l)
				vj := v[j*kw+g*hd : j*kw+(g+1)*hd]
				axpy(pj, doi, myDV[j*hd:(j+1)*hd])
				ds := pj * (dot(doi, vj) - D) * scale
				axpy(ds, kj, dqi)
				axpy(ds, qi, myDK[j*hd:(j+1)*hd])
			}
		}
	})
	for h := 0; h < s.Heads; h++ {
		g := h / rep
		for j := 0; j < T; j++ {
			axpy(1, dkh[h*T*hd+j*hd:h*T*hd+(j+1)*hd], dk[j*kw+g*hd:j*kw+(g+1)*hd])
			axpy(1, dvh[h*T*hd+j*hd:h*T*hd+(j+1)*hd], dv[j*kw+g*hd:j*kw+(g+1)*hd])
		}
	}
}

func sigmoid(x float32) float32 { return 1 / (1 + expf(-x)) }

// SwiGLU implements Backend.
func (CPU) SwiGLU(h, g, u []float32) {
	for i, gv := range g {
		h[i] = gv * sigmoid(gv) * u[i]
	}
}

// SwiGLUBackward implements Backend.
func (CPU) SwiGLUBackward(dg, du, dh, g, u []float32) {
	for i, gv := range g {
		sg := sigmoid(gv)
		silu := gv * sg
		du[i] = dh[i] * silu
		dg[i] = dh[i] * u[i] * sg * (1 + gv*(1-sg))
	}
}

// logSumExp returns the maximum and the log-sum-exp of a row.
func logSumExp(x []float32) (mx, lse float32) {
	mx = float32(math.Inf(-1))
	for _, v := range x {
		if v > mx {
			mx = v
		}
	}
	var s float32
	for _, v := range x {
		s += expf(v - mx)
	}
	return mx, mx + float32(math.Log(float64(s)))
}

// LogSoftmax implements Backend. One exponential per element gives both
// the log-sum-exp and the entropy: H = lse - sum(p*x).
func (CPU) LogSoftmax(lp, ent, lse, logits []float32, target []int32, rows, vocab int) {
	parallel(rows, rows*vocab*4, func(r int) {
		x := logits[r*vocab : (r+1)*vocab]
		mx := float32(math.Inf(-1))
		for _, v := range x {
			if v > mx {
				mx = v
			}
		}
		var s, sx float32
		for _, v := range x {
			e := expf(v - mx)
			s += e
			sx += e * (v - mx)
		}
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
		l, w := lse[r], dlp[r]
		for i, v := range x {
			d[i] = -w * expf(v-l)
		}
		d[target[r]] += w
	})
}

// AdamW implements Backend:
// m = b1*m + (1-b1)*g; v = b2*v + (1-b2)*g^2;
// p -= lr * (wd*p + (m/bc1) / (sqrt(v/bc2) + eps)).
func (CPU) AdamW(p, g, m, v []float32, h AdamWStep) {
	for i := range p {
		gi := g[i]
		m[i] = h.Beta1*m[i] + (1-h.Beta1)*gi
		v[i] = h.Beta2*v[i] + (1-h.Beta2)*gi*gi
		mh := m[i] / h.BC1
		vh := v[i] / h.BC2
		p[i] -= h.LR * (h.WeightDecay*p[i] + mh/(float32(math.Sqrt(float64(vh)))+h.Eps))
	}
}

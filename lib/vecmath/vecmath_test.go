package vecmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// impls runs f once per available implementation: the assembly kernels
// (where the CPU has them) and the pure Go code, forced.
func impls(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	saved := useAsm
	defer func() { useAsm = saved }()
	for _, asm := range []bool{true, false} {
		if asm && !asmAvailable() {
			continue
		}
		useAsm = asm
		t.Run(Impl(), f)
	}
}

func randVec(rng *rand.Rand, n int, lo, hi float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(lo + (hi-lo)*rng.Float64())
	}
	return v
}

var lengths = []int{0, 1, 3, 7, 8, 9, 16, 31, 32, 33, 40, 100, 257, 6000}

// sumTol bounds the relative error (to the sum of absolute terms) of a
// float32 sum of n terms kept in 8 or more lanes: n/8 + 3 roundings.
func sumTol(n int) float64 { return float64(n/8+4) * 6e-8 }

// close reports |got-want| <= tol*scale (+ a tiny absolute slack).
func close(got float32, want, scale, tol float64) bool {
	return math.Abs(float64(got)-want) <= tol*scale+1e-30
}

func TestExpAccuracy(t *testing.T) {
	impls(t, func(t *testing.T) {
		for _, r := range []struct {
			lo, hi, tol float64
		}{{-87, 0, 1.5e-7}, {0, 88, 1.5e-7}, {-1, 1, 1.5e-7}} {
			var xs []float32
			for x := r.lo; x <= r.hi; x += 1.0 / 4096 {
				xs = append(xs, float32(x))
			}
			got := make([]float32, len(xs))
			Exp(got, xs)
			var worst float64
			var at float32
			for i, x := range xs {
				want := math.Exp(float64(x))
				if rel := math.Abs(float64(got[i])-want) / want; rel > worst {
					worst, at = rel, x
				}
				if s := Expf(x); math.Abs(float64(s)-want)/want > r.tol {
					t.Fatalf("Expf(%g) = %g, want %g", x, s, want)
				}
			}
			t.Logf("[%g, %g]: worst relative error %.3g at %g", r.lo, r.hi, worst, at)
			if worst > r.tol {
				t.Errorf("[%g, %g]: worst relative error %.3g at %g, want <= %g", r.lo, r.hi, worst, at, r.tol)
			}
		}
	})
}

func TestExpLimits(t *testing.T) {
	inf := float32(math.Inf(1))
	nan := float32(math.NaN())
	cases := []struct {
		x    float32
		want float32 // NaN: expect NaN
	}{
		{0, 1}, {-87.34, 0}, {-100, 0}, {-1e30, 0}, {-inf, 0}, {89, inf}, {1e30, inf}, {inf, inf}, {nan, nan},
	}
	impls(t, func(t *testing.T) {
		// 9 inputs: the vector kernel takes 8 of them, the scalar tail 1;
		// rotating puts each case once in each.
		for rot := 0; rot < len(cases); rot++ {
			xs := make([]float32, len(cases))
			for i := range cases {
				xs[i] = cases[(i+rot)%len(cases)].x
			}
			got := make([]float32, len(xs))
			Exp(got, xs)
			for i := range xs {
				want := cases[(i+rot)%len(cases)].want
				if want != want {
					if got[i] == got[i] {
						t.Errorf("exp(%g) = %g, want NaN", xs[i], got[i])
					}
				} else if got[i] != want {
					t.Errorf("exp(%g) = %g, want %g", xs[i], got[i], want)
				}
			}
		}
	})
}

func TestReductions(t *testing.T) {
	impls(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 2))
		for _, n := range lengths {
			a := randVec(rng, n, -2, 2)
			b := randVec(rng, n+3, -2, 2)
			var sum, abs, dot, dabs float64
			mx := math.Inf(-1)
			for i, v := range a {
				sum += float64(v)
				abs += math.Abs(float64(v))
				dot += float64(v) * float64(b[i])
				dabs += math.Abs(float64(v) * float64(b[i]))
				mx = math.Max(mx, float64(v))
			}
			if got := Max(a); float64(got) != mx {
				t.Errorf("n=%d: Max %g, want %g", n, got, mx)
			}
			if got := Sum(a); !close(got, sum, abs, sumTol(n)) {
				t.Errorf("n=%d: Sum %g, want %g", n, got, sum)
			}
			if got := Dot(a, b); !close(got, dot, dabs, sumTol(n)+6e-8) {
				t.Errorf("n=%d: Dot %g, want %g", n, got, dot)
			}
		}
	})
}

func TestElementwise(t *testing.T) {
	impls(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 4))
		for _, n := range lengths {
			x := randVec(rng, n, -3, 3)
			y0 := randVec(rng, n+2, -3, 3)
			y := append([]float32(nil), y0...)
			Axpy(0.75, x, y)
			for i := range y {
				want := float64(y0[i])
				if i < n {
					want += 0.75 * float64(x[i])
				}
				if !close(y[i], want, math.Abs(want)+1, 2e-7) {
					t.Fatalf("n=%d: Axpy[%d] = %g, want %g", n, i, y[i], want)
				}
			}
			s := append([]float32(nil), x...)
			Scale(-1.5, s)
			for i := range s {
				if want := -1.5 * float64(x[i]); !close(s[i], want, math.Abs(want), 1e-7) {
					t.Fatalf("n=%d: Scale[%d] = %g, want %g", n, i, s[i], want)
				}
			}
		}
	})
}

func TestExpAffineAndSums(t *testing.T) {
	impls(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 6))
		for _, n := range lengths {
			x := randVec(rng, n, -30, 5)
			const a, b, c = 0.5, -1.25, -2
			dst := make([]float32, n)
			s := ExpAffine(dst, x, a, b, c)
			var ws, wabs float64
			for i, v := range x {
				// a*v is exact (a = 0.5), so the kernel's argument is
				// a*v+b rounded once to float32.
				want := c * math.Exp(float64(float32(a*float64(v)+b)))
				if !close(dst[i], want, math.Abs(want), 6e-7) {
					t.Fatalf("n=%d: ExpAffine[%d] = %g, want %g", n, i, dst[i], want)
				}
				ws += want
				wabs += math.Abs(want)
			}
			if !close(s, ws, wabs, sumTol(n)+3e-7) {
				t.Errorf("n=%d: ExpAffine sum %g, want %g", n, s, ws)
			}
			if n == 0 {
				continue
			}
			mx := Max(x)
			es, esx := ExpSums(x, mx)
			var rs, rsx, rabs float64
			for _, v := range x {
				d := float64(v) - float64(mx)
				rs += math.Exp(d)
				rsx += math.Exp(d) * d
				rabs += math.Abs(math.Exp(d) * d)
			}
			if !close(es, rs, rs, sumTol(n)+3e-7) || !close(esx, rsx, rabs, sumTol(n)+5e-7) {
				t.Errorf("n=%d: ExpSums (%g, %g), want (%g, %g)", n, es, esx, rs, rsx)
			}
			m, lse := LogSumExp(x)
			if want := float64(mx) + math.Log(rs); m != mx || !close(lse, want, math.Abs(want)+1, sumTol(n)+3e-7) {
				t.Errorf("n=%d: LogSumExp (%g, %g), want (%g, %g)", n, m, lse, mx, want)
			}
		}
	})
}

// TestExpSumsInfinite checks that -Inf entries (masked logits) add
// nothing, not NaN, to either sum.
func TestExpSumsInfinite(t *testing.T) {
	impls(t, func(t *testing.T) {
		x := make([]float32, 19)
		for i := range x {
			x[i] = float32(math.Inf(-1))
		}
		x[4], x[17] = 1, 2
		s, sx := ExpSums(x, 2)
		want := 1 + math.Exp(-1)
		if !close(s, want, want, 1e-6) || !close(sx, -math.Exp(-1), 1, 1e-6) {
			t.Errorf("ExpSums = (%g, %g), want (%g, %g)", s, sx, want, -math.Exp(-1))
		}
	})
}

func TestMatrixKernels(t *testing.T) {
	impls(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(7, 8))
		for _, sz := range []struct{ rows, cols, ld int }{
			{1, 8, 8}, {3, 32, 40}, {4, 32, 64}, {9, 64, 64}, {13, 20, 33}, {6, 5, 5}, {130, 96, 128}, {2, 72, 72},
		} {
			a := randVec(rng, (sz.rows-1)*sz.ld+sz.cols, -1, 1)
			x := randVec(rng, sz.cols, -1, 1)
			w := randVec(rng, sz.rows, -1, 1)
			// DotRows against float64; each row equals a one-row call.
			d := make([]float32, sz.rows)
			DotRows(d, a, sz.ld, x)
			for i := range d {
				var want, abs float64
				for j := 0; j < sz.cols; j++ {
					p := float64(a[i*sz.ld+j]) * float64(x[j])
					want += p
					abs += math.Abs(p)
				}
				if !close(d[i], want, abs, 1e-6) {
					t.Errorf("%v: DotRows[%d] = %g, want %g", sz, i, d[i], want)
				}
				one := make([]float32, 1)
				DotRows(one, a[i*sz.ld:], sz.ld, x)
				if one[0] != d[i] {
					t.Errorf("%v: row %d alone gives %g, in the block %g", sz, i, one[0], d[i])
				}
			}
			// AxpyRows equals Axpy row after row, bit for bit, and the
			// float64 answer closely.
			y0 := randVec(rng, sz.cols, -1, 1)
			got := append([]float32(nil), y0...)
			AxpyRows(got, a, sz.ld, w)
			seq := append([]float32(nil), y0...)
			for i, wi := range w {
				Axpy(wi, a[i*sz.ld:i*sz.ld+sz.cols], seq)
			}
			for j := range got {
				want, abs := float64(y0[j]), math.Abs(float64(y0[j]))
				for i, wi := range w {
					want += float64(wi) * float64(a[i*sz.ld+j])
					abs += math.Abs(float64(wi) * float64(a[i*sz.ld+j]))
				}
				if got[j] != seq[j] || !close(got[j], want, abs, 1e-6) {
					t.Errorf("%v: AxpyRows[%d] = %g, Axpy loop %g, want %g", sz, j, got[j], seq[j], want)
				}
			}
			// DotRows2 gives each output DotRows' bits.
			x2 := randVec(rng, sz.cols, -1, 1)
			e1, e2 := make([]float32, sz.rows), make([]float32, sz.rows)
			DotRows2(e1, e2, a, sz.ld, x, x2)
			f2 := make([]float32, sz.rows)
			DotRows(f2, a, sz.ld, x2)
			for i := range e1 {
				if math.Float32bits(e1[i]) != math.Float32bits(d[i]) || math.Float32bits(e2[i]) != math.Float32bits(f2[i]) {
					t.Errorf("%v: DotRows2[%d] = %g, %g; DotRows gives %g, %g", sz, i, e1[i], e2[i], d[i], f2[i])
				}
			}
			// AxpyRows2 gives each output AxpyRows' bits.
			w2 := randVec(rng, len(w), -1, 1)
			z0 := randVec(rng, sz.cols, -1, 1)
			p1, p2 := append([]float32(nil), y0...), append([]float32(nil), z0...)
			AxpyRows2(p1, p2, a, sz.ld, w, w2)
			q2 := append([]float32(nil), z0...)
			AxpyRows(q2, a, sz.ld, w2)
			for j := range p1 {
				if math.Float32bits(p1[j]) != math.Float32bits(got[j]) || math.Float32bits(p2[j]) != math.Float32bits(q2[j]) {
					t.Errorf("%v: AxpyRows2[%d] = %g, %g; AxpyRows gives %g, %g", sz, j, p1[j], p2[j], got[j], q2[j])
				}
			}
			// AddOuter equals Axpy per row, bit for bit, and leaves the
			// gaps between rows alone.
			outer := append([]float32(nil), a...)
			AddOuter(outer, sz.ld, w, x)
			ref := append([]float32(nil), a...)
			for i, wi := range w {
				Axpy(wi, x, ref[i*sz.ld:i*sz.ld+sz.cols])
			}
			for k := range outer {
				i, j := k/sz.ld, k%sz.ld
				want := float64(a[k])
				if j < sz.cols {
					want += float64(w[i]) * float64(x[j])
				}
				if outer[k] != ref[k] || !close(outer[k], want, math.Abs(want)+1, 2e-7) {
					t.Errorf("%v: AddOuter[%d,%d] = %g, Axpy loop %g, want %g", sz, i, j, outer[k], ref[k], want)
				}
			}
		}
	})
}

func TestSiLU(t *testing.T) {
	impls(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(9, 10))
		for _, n := range lengths {
			g := randVec(rng, n, -12, 12)
			if n > 2 {
				g[0], g[1] = -200, 200 // exp overflow on either side
			}
			u := randVec(rng, n, -2, 2)
			dh := randVec(rng, n, -2, 2)
			h := make([]float32, n)
			dg := make([]float32, n)
			du := make([]float32, n)
			SiLUMul(h, g, u)
			SiLUMulBackward(dg, du, dh, g, u)
			for i := range g {
				gv, uv, dv := float64(g[i]), float64(u[i]), float64(dh[i])
				s := 1 / (1 + math.Exp(-gv))
				wh := gv * s * uv
				wdu := dv * gv * s
				wdg := dv * uv * s * (1 + gv*(1-s))
				// dg cancels near g = -1.28 (1 + g*(1-s) = 0): bound its
				// error by the size of the terms.
				dgScale := math.Abs(dv*uv*s) * (1 + math.Abs(gv*(1-s)))
				if !close(h[i], wh, math.Abs(wh)+1e-6, 1e-6) || !close(du[i], wdu, math.Abs(wdu)+1e-6, 1e-6) || !close(dg[i], wdg, dgScale+1e-6, 2e-6) {
					t.Errorf("n=%d g=%g: h %g du %g dg %g, want %g %g %g", n, gv, h[i], du[i], dg[i], wh, wdu, wdg)
				}
			}
		}
	})
}

// TestAsmCloseToGo compares the two implementations on the same inputs:
// they evaluate the same formulas, differing only by fused roundings and
// summation order.
func TestAsmCloseToGo(t *testing.T) {
	if !asmAvailable() {
		t.Skip("no AVX2+FMA")
	}
	saved := useAsm
	defer func() { useAsm = saved }()
	rng := rand.New(rand.NewPCG(11, 12))
	x := randVec(rng, 6000, -40, 10)
	run := func(asm bool) (e []float32, s, sx float32) {
		useAsm = asm
		e = make([]float32, len(x))
		Exp(e, x)
		s, sx = ExpSums(x, 10)
		return
	}
	ea, sa, sxa := run(true)
	eg, sg, sxg := run(false)
	for i := range ea {
		if d := math.Abs(float64(ea[i]-eg[i])) / float64(eg[i]); d > 2.5e-7 {
			t.Fatalf("exp(%g): avx2 %g, go %g", x[i], ea[i], eg[i])
		}
	}
	if math.Abs(float64(sa-sg)) > 1e-5*math.Abs(float64(sg)) || math.Abs(float64(sxa-sxg)) > 1e-5*math.Abs(float64(sxg)) {
		t.Errorf("ExpSums: avx2 (%g, %g), go (%g, %g)", sa, sxa, sg, sxg)
	}
}

func TestPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"Dot":      func() { Dot(make([]float32, 4), make([]float32, 3)) },
		"Axpy":     func() { Axpy(1, make([]float32, 4), make([]float32, 3)) },
		"DotRows":  func() { DotRows(make([]float32, 3), make([]float32, 20), 8, make([]float32, 8)) },
		"AxpyRows": func() { AxpyRows(make([]float32, 8), make([]float32, 20), 8, make([]float32, 3)) },
		"AddOuter": func() { AddOuter(make([]float32, 20), 4, make([]float32, 2), make([]float32, 8)) },
		"SiLUMul":  func() { SiLUMul(make([]float32, 8), make([]float32, 7), make([]float32, 8)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic on short slices", name)
				}
			}()
			f()
		}()
	}
}

func TestNormKernels(t *testing.T) {
	impls(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(13, 14))
		for _, n := range lengths {
			a, b, c := randVec(rng, n, -2, 2), randVec(rng, n, -2, 2), randVec(rng, n+1, -2, 2)
			var want, abs float64
			for i := range a {
				p := float64(a[i]) * float64(b[i]) * float64(c[i])
				want += p
				abs += math.Abs(p)
			}
			if got := Dot3(a, b, c); !close(got, want, abs, sumTol(n)+1.2e-7) {
				t.Errorf("n=%d: Dot3 %g, want %g", n, got, want)
			}
			mul := make([]float32, n)
			Mul(mul, a, b, 0.3)
			acc := append([]float32(nil), c[:n]...)
			MulAdd(acc, a, b, -0.7)
			for i := range mul {
				p := float64(a[i]) * float64(b[i])
				if w := p * 0.3; !close(mul[i], w, math.Abs(w), 2.5e-7) {
					t.Fatalf("n=%d: Mul[%d] = %g, want %g", n, i, mul[i], w)
				}
				if w := float64(c[i]) - 0.7*p; !close(acc[i], w, math.Abs(w)+math.Abs(p), 2.5e-7) {
					t.Fatalf("n=%d: MulAdd[%d] = %g, want %g", n, i, acc[i], w)
				}
			}
		}
	})
}

// adamRef is one AdamW step in float64 from float32 state.
func adamRef(p, g, m, v float32, h AdamWStep) (pn, mn, vn float64) {
	b1, b2 := float64(h.Beta1), float64(h.Beta2)
	mn = b1*float64(m) + (1-b1)*float64(g)
	vn = b2*float64(v) + (1-b2)*float64(g)*float64(g)
	step := float64(h.WeightDecay)*float64(p) + (mn/float64(h.BC1))/(math.Sqrt(vn/float64(h.BC2))+float64(h.Eps))
	return float64(p) - float64(h.LR)*step, mn, vn
}

func TestAdamW(t *testing.T) {
	h := AdamWStep{LR: 1e-3, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, WeightDecay: 0.01, BC1: 1 - 0.9*0.9*0.9, BC2: 1 - 0.999*0.999*0.999}
	rng := rand.New(rand.NewPCG(15, 16))
	const n = 1003
	p0, g := randVec(rng, n, -1, 1), randVec(rng, n, -0.1, 0.1)
	m0, v0 := randVec(rng, n, -0.05, 0.05), randVec(rng, n, 0, 0.01)
	results := map[string][]float32{}
	impls(t, func(t *testing.T) {
		p := append([]float32(nil), p0...)
		m := append([]float32(nil), m0...)
		v := append([]float32(nil), v0...)
		AdamW(p, g, m, v, h)
		for i := range p {
			wp, wm, wv := adamRef(p0[i], g[i], m0[i], v0[i], h)
			// The update is lr-sized: bound p's error by a float32
			// rounding of p and a relative 1e-5 of the step.
			if !close(p[i], wp, math.Abs(wp), 1.2e-7) && !close(p[i], wp, math.Abs(wp-float64(p0[i])), 1e-5) ||
				!close(m[i], wm, math.Abs(float64(h.Beta1*m0[i]))+math.Abs(float64(g[i])), 2e-7) || !close(v[i], wv, math.Abs(wv), 2e-7) {
				t.Fatalf("[%d]: p %g m %g v %g, want %g %g %g", i, p[i], m[i], v[i], wp, wm, wv)
			}
		}
		results[Impl()] = p
	})
	if a, g := results["avx2"], results["go"]; a != nil && g != nil {
		for i := range a {
			if a[i] != g[i] {
				t.Errorf("[%d]: avx2 %g, go %g: the unfused kernels should agree bit for bit", i, a[i], g[i])
				break
			}
		}
	}
}

package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// refGemm is the float64 reference: C = alpha*op(A)*op(B) + beta*C.
func refGemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) []float64 {
	out := make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for p := 0; p < k; p++ {
				var av, bv float32
				if transA {
					av = a[p*lda+i]
				} else {
					av = a[i*lda+p]
				}
				if transB {
					bv = b[j*ldb+p]
				} else {
					bv = b[p*ldb+j]
				}
				s += float64(av) * float64(bv)
			}
			v := float64(alpha) * s
			if beta != 0 {
				v += float64(beta) * float64(c[i*ldc+j])
			}
			out[i*n+j] = v
		}
	}
	return out
}

// relErr returns ||got-ref|| / ||ref|| over the m x n block of got.
func relErr(got []float32, ldc int, ref []float64, m, n int) float64 {
	var num, den float64
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			d := float64(got[i*ldc+j]) - ref[i*n+j]
			num += d * d
			den += ref[i*n+j] * ref[i*n+j]
		}
	}
	if den == 0 {
		return math.Sqrt(num)
	}
	return math.Sqrt(num / den)
}

func randSlice(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(r.NormFloat64())
	}
	return s
}

// operands builds random A, B, C for the given shape and padding of the
// leading dimensions (stored shapes follow the transposition flags).
func operands(r *rand.Rand, transA, transB bool, m, n, k, pad int) (a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	ar, ac := m, k
	if transA {
		ar, ac = k, m
	}
	br, bc := k, n
	if transB {
		br, bc = n, k
	}
	lda, ldb, ldc = ac+pad, bc+pad, n+pad
	a = randSlice(r, max(ar*lda, 1))
	b = randSlice(r, max(br*ldb, 1))
	c = randSlice(r, max(m*ldc, 1))
	return
}

// withKernel runs f once for every kernel this CPU supports.
func withKernel(t *testing.T, f func(t *testing.T)) {
	for _, kn := range availableKernels() {
		t.Run(kn.name, func(t *testing.T) {
			prev, ok := setKernel(kn.name)
			if !ok {
				t.Fatalf("kernel %s listed but not selectable", kn.name)
			}
			defer func() { current = prev }()
			f(t)
		})
	}
}

func TestSgemmMatchesReference(t *testing.T) {
	shapes := [][3]int{ // m, n, k
		{1, 1, 1}, {1, 3, 17}, {3, 1, 65}, {17, 65, 3}, {65, 17, 129},
		{129, 129, 1}, {3, 129, 65}, {129, 3, 17}, {65, 65, 65},
		{33, 47, 600},                      // several k blocks
		{7, 2100, 9},                       // several column blocks for every kernel
		{300, 20, 40},                      // several row blocks
		{130, 100, 257},                    // ragged everywhere
		{2400, 3, 5},                       // several outer row blocks for every kernel
		{2, 4200, 3},                       // several column blocks for the AVX2 kernel
		{2, 7, 9}, {1, 130, 8}, {4, 5, 23}, // few rows: the direct A*B^T path
	}
	trans := [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}}
	scalars := [][2]float32{{1, 0}, {1, 1}, {0.5, -1.5}, {-2, 0}, {1.25, 0.75}}
	withKernel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(1, 2))
		for _, s := range shapes {
			m, n, k := s[0], s[1], s[2]
			for _, tr := range trans {
				for si, sc := range scalars {
					pad := si % 3 * 5 // strided operands in most cases
					a, lda, b, ldb, c, ldc := operands(r, tr[0], tr[1], m, n, k, pad)
					ref := refGemm(tr[0], tr[1], m, n, k, sc[0], a, lda, b, ldb, sc[1], c, ldc)
					before := append([]float32(nil), c...)
					Sgemm(tr[0], tr[1], m, n, k, sc[0], a, lda, b, ldb, sc[1], c, ldc)
					if e := relErr(c, ldc, ref, m, n); !(e <= 1e-5) {
						t.Errorf("m=%d n=%d k=%d transA=%v transB=%v alpha=%v beta=%v ld pad=%d: relative error %.3g > 1e-5",
							m, n, k, tr[0], tr[1], sc[0], sc[1], pad, e)
					}
					// Padding columns of C must be untouched.
					for i := 0; i < m; i++ {
						for j := n; j < ldc; j++ {
							if c[i*ldc+j] != before[i*ldc+j] {
								t.Fatalf("m=%d n=%d k=%d: wrote outside C at (%d,%d)", m, n, k, i, j)
							}
						}
					}
				}
			}
		}
	})
}

func TestSgemmBetaZeroIgnoresC(t *testing.T) {
	withKernel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(3, 4))
		for _, s := range [][3]int{{5, 7, 3}, {64, 64, 64}, {13, 33, 0}} {
			m, n, k := s[0], s[1], s[2]
			a, lda, b, ldb, c, ldc := operands(r, false, false, m, n, k, 0)
			for i := range c {
				c[i] = float32(math.NaN())
			}
			Sgemm(false, false, m, n, k, 1, a, lda, b, ldb, 0, c, ldc)
			ref := refGemm(false, false, m, n, k, 1, a, lda, b, ldb, 0, c, ldc)
			if e := relErr(c, ldc, ref, m, n); !(e <= 1e-5) {
				t.Errorf("m=%d n=%d k=%d: beta=0 with NaN in C gives relative error %v", m, n, k, e)
			}
		}
	})
}

func TestSgemmAlphaZeroScalesC(t *testing.T) {
	c := []float32{1, 2, 3, 4}
	Sgemm(false, false, 2, 2, 3, 0, []float32{1, 2, 3, 4, 5, 6}, 3, []float32{1, 2, 3, 4, 5, 6}, 2, 2, c, 2)
	want := []float32{2, 4, 6, 8}
	for i := range c {
		if c[i] != want[i] {
			t.Fatalf("alpha=0 beta=2: got %v, want %v", c, want)
		}
	}
}

// TestSgemmDeterministic checks the results are bit-identical whatever the
// number of goroutines: through the internal worker count and GOMAXPROCS.
func TestSgemmDeterministic(t *testing.T) {
	shapes := [][3]int{{512, 384, 128}, {37, 1000, 300}, {5, 600, 70}, {200, 7, 513}, {3, 1001, 600}, {1, 4000, 200}, {2, 2003, 300}, {2500, 20, 300}, {30, 4500, 260}}
	withKernel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(5, 6))
		for _, s := range shapes {
			m, n, k := s[0], s[1], s[2]
			for _, tr := range [][2]bool{{false, false}, {false, true}, {true, false}} {
				a, lda, b, ldb, c0, ldc := operands(r, tr[0], tr[1], m, n, k, 3)
				var first []float32
				for _, w := range []int{1, 2, 3, 8} {
					c := append([]float32(nil), c0...)
					sgemm(w, tr[0], tr[1], m, n, k, 0.7, a, lda, b, ldb, 0.3, c, ldc)
					if first == nil {
						first = c
						continue
					}
					if i := firstDiff(first, c); i >= 0 {
						t.Errorf("m=%d n=%d k=%d trans=%v: %d workers differ from 1 at %d: %v vs %v", m, n, k, tr, w, i, c[i], first[i])
					}
				}
				for _, procs := range []int{1, 2} {
					old := runtime.GOMAXPROCS(procs)
					c := append([]float32(nil), c0...)
					Sgemm(tr[0], tr[1], m, n, k, 0.7, a, lda, b, ldb, 0.3, c, ldc)
					runtime.GOMAXPROCS(old)
					if i := firstDiff(first, c); i >= 0 {
						t.Errorf("m=%d n=%d k=%d trans=%v: GOMAXPROCS=%d differs at %d", m, n, k, tr, procs, i)
					}
				}
			}
		}
	})
}

func firstDiff(x, y []float32) int {
	for i := range x {
		if math.Float32bits(x[i]) != math.Float32bits(y[i]) {
			return i
		}
	}
	return -1
}

func TestSgemmPanicsOnBadArguments(t *testing.T) {
	cases := []struct {
		name string
		call func()
		want string
	}{
		{"short a", func() {
			Sgemm(false, false, 2, 2, 2, 1, make([]float32, 3), 2, make([]float32, 4), 2, 0, make([]float32, 4), 2)
		}, "len(a)"},
		{"short b transposed", func() {
			Sgemm(false, true, 2, 3, 2, 1, make([]float32, 4), 2, make([]float32, 5), 2, 0, make([]float32, 6), 3)
		}, "len(b)"},
		{"small ldc", func() {
			Sgemm(false, false, 2, 2, 2, 1, make([]float32, 4), 2, make([]float32, 4), 2, 0, make([]float32, 4), 1)
		}, "ldc"},
		{"negative", func() { Sgemm(false, false, -1, 2, 2, 1, nil, 2, nil, 2, 0, nil, 2) }, "negative"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if r == nil || !strings.Contains(fmt.Sprint(r), tc.want) {
					t.Fatalf("panic %v, want one mentioning %q", r, tc.want)
				}
			}()
			tc.call()
		})
	}
}

func TestGenericKernelAlwaysAvailable(t *testing.T) {
	for _, kn := range availableKernels() {
		if kn.tile() > maxTile || kn.mc%kn.mr != 0 || kn.nc%kn.nr != 0 {
			t.Errorf("kernel %s: tile %dx%d or blocks mc=%d nc=%d inconsistent with maxTile=%d", kn.name, kn.mr, kn.nr, kn.mc, kn.nc, maxTile)
		}
	}
	if _, ok := setKernel("go"); !ok {
		t.Fatal("pure-Go kernel not selectable")
	}
	current = bestKernel()
	if _, ok := setKernel("no-such-kernel"); ok {
		t.Fatal("unknown kernel reported as selected")
	}
}

// TestDirectPathSelection checks which products take the direct A*B^T path.
func TestDirectPathSelection(t *testing.T) {
	withKernel(t, func(t *testing.T) {
		want := current.name == "avx2" || current.name == "avx512"
		cases := []struct {
			transA, transB bool
			m, k           int
			want           bool
		}{
			{false, true, 1, 256, want},
			{false, true, 4, 8, want},
			{false, true, 5, 256, false},
			{false, true, 1, 7, false},
			{false, false, 1, 256, false},
			{true, true, 1, 256, false},
		}
		for _, tc := range cases {
			if got := useDirect(tc.transA, tc.transB, tc.m, tc.k); got != tc.want {
				t.Errorf("useDirect(transA=%v, transB=%v, m=%d, k=%d) = %v, want %v", tc.transA, tc.transB, tc.m, tc.k, got, tc.want)
			}
		}
	})
}

// TestSgemmConcurrentCallers runs products from several goroutines at once
// (they share the helper goroutines and buffer pools) and checks each
// against the same product computed alone.
func TestSgemmConcurrentCallers(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	type prob struct {
		transA, transB bool
		m, n, k        int
		a, b, c, want  []float32
		lda, ldb, ldc  int
	}
	var probs []*prob
	for i, s := range [][3]int{{300, 200, 150}, {2, 3000, 256}, {129, 700, 300}, {400, 64, 520}} {
		p := &prob{transA: i%2 == 1, transB: i >= 1, m: s[0], n: s[1], k: s[2]}
		p.a, p.lda, p.b, p.ldb, p.c, p.ldc = operands(r, p.transA, p.transB, p.m, p.n, p.k, 1)
		p.want = append([]float32(nil), p.c...)
		sgemm(2, p.transA, p.transB, p.m, p.n, p.k, 1, p.a, p.lda, p.b, p.ldb, 0.5, p.want, p.ldc)
		probs = append(probs, p)
	}
	done := make(chan int, len(probs))
	for i, p := range probs {
		go func() {
			for rep := 0; rep < 3; rep++ {
				c := append([]float32(nil), p.c...)
				sgemm(2, p.transA, p.transB, p.m, p.n, p.k, 1, p.a, p.lda, p.b, p.ldb, 0.5, c, p.ldc)
				if firstDiff(c, p.want) >= 0 {
					done <- -1 - i
					return
				}
			}
			done <- i
		}()
	}
	for range probs {
		if i := <-done; i < 0 {
			t.Errorf("problem %d: concurrent result differs from the one computed alone", -1-i)
		}
	}
}

// TestAVX512MatchesAVX2Bits: where the processor has AVX-512, its kernel
// gives the AVX2 kernel's bits on every shape (edges, several k blocks,
// every transposition, alpha and beta), on one goroutine and on several.
func TestAVX512MatchesAVX2Bits(t *testing.T) {
	if !hasAVX512() {
		t.Skip("no AVX-512 on this processor: the AVX2 kernel is the reference here")
	}
	shapes := [][3]int{ // m, n, k
		{6, 32, 1}, {6, 32, 7}, {12, 64, 256}, {13, 70, 257}, {64, 384, 128},
		{128, 6000, 128}, {7, 33, 600}, {300, 100, 40}, {255, 512, 513}, {5, 48, 64},
		{8, 768, 256}, {16, 256, 768}, {64, 1847, 256},
	}
	trans := [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}}
	scalars := [][2]float32{{1, 0}, {1, 1}, {0.5, -1.5}, {-2, 0}}
	r := rand.New(rand.NewPCG(3, 4))
	for _, s := range shapes {
		m, n, k := s[0], s[1], s[2]
		for _, tr := range trans {
			for si, sc := range scalars {
				a, lda, b, ldb, c, ldc := operands(r, tr[0], tr[1], m, n, k, si%2*3)
				for _, workers := range []int{1, 2, 3} {
					want := append([]float32(nil), c...)
					gemmBlocked(avx2Kernel, workers, tr[0], tr[1], m, n, k, sc[0], a, lda, b, ldb, sc[1], want, ldc)
					got := append([]float32(nil), c...)
					gemmBlocked(avx512Kernel, workers, tr[0], tr[1], m, n, k, sc[0], a, lda, b, ldb, sc[1], got, ldc)
					for i := range got {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("m=%d n=%d k=%d trans=%v alpha,beta=%v workers=%d: element %d is %g, AVX2 gives %g",
								m, n, k, tr, sc, workers, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

// TestDirectWideMatchesDirectBits: the direct path's 4x4 AVX-512 kernel
// (rows 3 and 4 of A) gives the AVX2 4x2 kernel's bits on every element,
// including B's last rows taken from a padded block and the terms past
// k&^7, for any number of goroutines.
func TestDirectWideMatchesDirectBits(t *testing.T) {
	if !hasAVX512() {
		t.Skip("no AVX-512 on this processor: the AVX2 kernel is the reference here")
	}
	defer func(prev *microKernel) { current = prev }(current)
	scalars := [][2]float32{{1, 0}, {1, 1}, {0.5, -1.5}, {-2, 0}}
	r := rand.New(rand.NewPCG(5, 6))
	for _, m := range []int{3, 4} {
		for _, n := range []int{1, 2, 3, 4, 5, 7, 64, 65, 130, 1847} {
			for _, k := range []int{8, 15, 128, 257, 768} {
				for si, sc := range scalars {
					a, lda, b, ldb, c, ldc := operands(r, false, true, m, n, k, si%2*3)
					for _, workers := range []int{1, 2, 3} {
						current = avx2Kernel
						want := append([]float32(nil), c...)
						gemmDirectNT(workers, m, n, k, sc[0], a, lda, b, ldb, sc[1], want, ldc)
						current = avx512Kernel
						got := append([]float32(nil), c...)
						gemmDirectNT(workers, m, n, k, sc[0], a, lda, b, ldb, sc[1], got, ldc)
						for i := range got {
							if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
								t.Fatalf("m=%d n=%d k=%d alpha,beta=%v workers=%d: element %d is %g, AVX2 gives %g",
									m, n, k, sc, workers, i, got[i], want[i])
							}
						}
					}
				}
			}
		}
	}
}

package vecmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestExpF64MatchesMathExp: ExpF64 gives math.Exp's bits on random inputs
// over the whole range, on both sides of every rounding boundary of
// x*log2(e) that the range reduction meets, at the kernel's range limits
// and on special values; into another slice and in place, with lengths
// that leave a remainder.
func TestExpF64MatchesMathExp(t *testing.T) {
	impls(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(5, 6))
		var xs []float64
		for i := 0; i < 200000; i++ {
			xs = append(xs, (r.Float64()*2-1)*760)
		}
		for i := 0; i < 50000; i++ {
			xs = append(xs, -r.ExpFloat64()*3)
		}
		for k := -1030; k <= 1030; k++ {
			// x*log2(e) = k + 1/2: the integer rounding flips here.
			x := (float64(k) + 0.5) * math.Ln2
			for d := -3; d <= 3; d++ {
				xs = append(xs, x+float64(d)*math.Abs(x)*0x1p-52)
			}
		}
		xs = append(xs, 0, math.Copysign(0, -1), 1, -1, 700, -700, math.Nextafter(700, 1), math.Nextafter(-700, -1000),
			709.78, 709.79, -708.4, -745.2, -746, -1e308, 1e308, 5e-324, -5e-324, math.Inf(1), math.Inf(-1), math.NaN())
		for _, n := range []int{len(xs), len(xs) - 1, 7, 3} {
			src := xs[:n]
			got := make([]float64, n)
			ExpF64(got, src)
			inplace := append([]float64(nil), src...)
			ExpF64(inplace, inplace)
			for i, x := range src {
				want := math.Float64bits(math.Exp(x))
				if math.Float64bits(got[i]) != want || math.Float64bits(inplace[i]) != want {
					t.Fatalf("n=%d: exp(%v) = %v (in place %v), math.Exp %v", n, x, got[i], inplace[i], math.Exp(x))
				}
			}
		}
	})
}

func BenchmarkExpF64(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	src := make([]float64, 6000)
	for i := range src {
		src[i] = -r.Float64() * 20
	}
	dst := make([]float64, len(src))
	b.Run("ExpF64", func(b *testing.B) {
		for b.Loop() {
			ExpF64(dst, src)
		}
	})
	b.Run("math.Exp", func(b *testing.B) {
		for b.Loop() {
			for i, x := range src {
				dst[i] = math.Exp(x)
			}
		}
	})
}

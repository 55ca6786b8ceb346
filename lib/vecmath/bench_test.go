package vecmath

import (
	"math/rand/v2"
	"testing"
)

// benchImpls runs f for each available implementation.
func benchImpls(b *testing.B, f func(b *testing.B)) {
	saved := useAsm
	defer func() { useAsm = saved }()
	for _, asm := range []bool{true, false} {
		if asm && !asmAvailable() {
			continue
		}
		useAsm = asm
		b.Run(Impl(), f)
	}
}

// BenchmarkExpSums is the log-softmax row of a 6000-token vocabulary.
func BenchmarkExpSums(b *testing.B) {
	x := randVec(rand.New(rand.NewPCG(1, 1)), 6000, -20, 5)
	benchImpls(b, func(b *testing.B) {
		b.SetBytes(4 * int64(len(x)))
		for i := 0; i < b.N; i++ {
			ExpSums(x, 5)
		}
	})
}

func BenchmarkExpAffine(b *testing.B) {
	x := randVec(rand.New(rand.NewPCG(1, 2)), 6000, -20, 5)
	dst := make([]float32, len(x))
	benchImpls(b, func(b *testing.B) {
		b.SetBytes(4 * int64(len(x)))
		for i := 0; i < b.N; i++ {
			ExpAffine(dst, x, 1, -5, -1)
		}
	})
}

func BenchmarkDot(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 3))
	x, y := randVec(rng, 256, -1, 1), randVec(rng, 256, -1, 1)
	benchImpls(b, func(b *testing.B) {
		b.SetBytes(8 * int64(len(x)))
		for i := 0; i < b.N; i++ {
			Dot(x, y)
		}
	})
}

// BenchmarkDotRows is one query against 128 keys of head width 32.
func BenchmarkDotRows(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 4))
	k, q := randVec(rng, 128*64, -1, 1), randVec(rng, 32, -1, 1)
	dst := make([]float32, 128)
	benchImpls(b, func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			DotRows(dst, k, 64, q)
		}
	})
}

// BenchmarkAxpyRows is one attention output row (head width 32, 128 keys).
func BenchmarkAxpyRows(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 5))
	v, w := randVec(rng, 128*64, -1, 1), randVec(rng, 128, 0, 1)
	dst := make([]float32, 32)
	benchImpls(b, func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			AxpyRows(dst, v, 64, w)
		}
	})
}

func BenchmarkAddOuter(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 6))
	a, x, y := randVec(rng, 128*64, -1, 1), randVec(rng, 128, 0, 1), randVec(rng, 32, -1, 1)
	benchImpls(b, func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			AddOuter(a, 64, x, y)
		}
	})
}

func BenchmarkSiLUMulBackward(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 7))
	n := 128 * 384
	g, u, dh := randVec(rng, n, -6, 6), randVec(rng, n, -1, 1), randVec(rng, n, -1, 1)
	dg, du := make([]float32, n), make([]float32, n)
	benchImpls(b, func(b *testing.B) {
		b.SetBytes(4 * int64(n))
		for i := 0; i < b.N; i++ {
			SiLUMulBackward(dg, du, dh, g, u)
		}
	})
}

// BenchmarkAxpyRows2 compares one paired pass with two AxpyRows calls on
// the shape of decoding attention: 800 cached positions of a 32-wide head
// in a 64-wide key/value row.
func BenchmarkAxpyRows2(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	a := randVec(rng, 800*64, -1, 1)
	w1, w2 := randVec(rng, 800, 0, 1), randVec(rng, 800, 0, 1)
	d1, d2 := make([]float32, 32), make([]float32, 32)
	b.Run("paired", func(b *testing.B) {
		for b.Loop() {
			AxpyRows2(d1, d2, a, 64, w1, w2)
		}
	})
	b.Run("two", func(b *testing.B) {
		for b.Loop() {
			AxpyRows(d1, a, 64, w1)
			AxpyRows(d2, a, 64, w2)
		}
	})
}

// BenchmarkDotRows2 compares one paired pass with two DotRows calls on
// the same shape: two 32-wide query heads against 800 cached keys.
func BenchmarkDotRows2(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	a := randVec(rng, 800*64, -1, 1)
	x1, x2 := randVec(rng, 32, -1, 1), randVec(rng, 32, -1, 1)
	d1, d2 := make([]float32, 800), make([]float32, 800)
	b.Run("paired", func(b *testing.B) {
		for b.Loop() {
			DotRows2(d1, d2, a, 64, x1, x2)
		}
	})
	b.Run("two", func(b *testing.B) {
		for b.Loop() {
			DotRows(d1, a, 64, x1)
			DotRows(d2, a, 64, x2)
		}
	})
}

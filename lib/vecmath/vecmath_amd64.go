package vecmath

import (
	"os"

	"golang.org/x/sys/cpu"
)

// asmAvailable reports whether the AVX2+FMA kernels can run; the
// environment variable PATS_VECMATH=go forces the pure Go code.
func asmAvailable() bool {
	return cpu.X86.HasAVX2 && cpu.X86.HasFMA && os.Getenv("PATS_VECMATH") != "go"
}

// The kernels below take slices whose lengths are multiples of 8 (the
// Go wrappers in vecmath.go check bounds and handle the remainders).

//go:noescape
func maxAVX2(x []float32) float32

//go:noescape
func sumAVX2(x []float32) float32

//go:noescape
func dotAVX2(a, b []float32) float32

//go:noescape
func axpyAVX2(alpha float32, x, y []float32)

//go:noescape
func scaleAVX2(alpha float32, x []float32)

//go:noescape
func expAffineAVX2(dst, x []float32, a, b, c float32) float32

//go:noescape
func expSumsAVX2(x []float32, shift float32) (s, sx float32)

// dotRowsAVX2 needs len(x) a positive multiple of 8.
//
//go:noescape
func dotRowsAVX2(dst, a []float32, lda int, x []float32)

// axpyRowsAVX2 needs len(dst) a positive multiple of 8.
//
//go:noescape
func axpyRowsAVX2(dst, a []float32, lda int, w []float32)

// addOuterAVX2 needs len(y) a positive multiple of 8.
//
//go:noescape
func addOuterAVX2(a []float32, lda int, x, y []float32)

//go:noescape
func siluMulAVX2(h, g, u []float32)

//go:noescape
func siluMulBackwardAVX2(dg, du, dh, g, u []float32)

//go:noescape
func dot3AVX2(a, b, c []float32) float32

//go:noescape
func mulAVX2(dst, a, b []float32, s float32)

//go:noescape
func mulAddAVX2(dst, a, b []float32, s float32)

//go:noescape
func adamWAVX2(p, g, m, v []float32, c *adamConsts)

// axpyRows2AVX2 needs len(d1) == len(d2) a positive multiple of 8 and
// len(w1) == len(w2).
//
//go:noescape
func axpyRows2AVX2(d1, d2, a []float32, lda int, w1, w2 []float32)

// dotRows2AVX2 needs len(x1) == len(x2) a positive multiple of 8 and
// len(d1) == len(d2).
//
//go:noescape
func dotRows2AVX2(d1, d2, a []float32, lda int, x1, x2 []float32)

// expF64AVX2 needs len(dst) a multiple of 4 and len(src) >= len(dst).
//
//go:noescape
func expF64AVX2(dst, src []float64, c *[14]uint64)

//go:build !amd64

package vecmath

func asmAvailable() bool { return false }

// Without assembly useAsm is false and none of these is called.

func maxAVX2(x []float32) float32                             { panic("unreachable") }
func sumAVX2(x []float32) float32                             { panic("unreachable") }
func dotAVX2(a, b []float32) float32                          { panic("unreachable") }
func axpyAVX2(alpha float32, x, y []float32)                  { panic("unreachable") }
func scaleAVX2(alpha float32, x []float32)                    { panic("unreachable") }
func expAffineAVX2(dst, x []float32, a, b, c float32) float32 { panic("unreachable") }
func expSumsAVX2(x []float32, shift float32) (s, sx float32)  { panic("unreachable") }
func dotRowsAVX2(dst, a []float32, lda int, x []float32)      { panic("unreachable") }
func axpyRowsAVX2(dst, a []float32, lda int, w []float32)     { panic("unreachable") }
func addOuterAVX2(a []float32, lda int, x, y []float32)       { panic("unreachable") }
func siluMulAVX2(h, g, u []float32)                           { panic("unreachable") }
func siluMulBackwardAVX2(dg, du, dh, g, u []float32)          { panic("unreachable") }
func dot3AVX2(a, b, c []float32) float32                      { panic("unreachable") }
func mulAVX2(dst, a, b []float32, s float32)                  { panic("unreachable") }
func mulAddAVX2(dst, a, b []float32, s float32)               { panic("unreachable") }
func adamWAVX2(p, g, m, v []float32, c *adamConsts)           { panic("unreachable") }

func axpyRows2AVX2(d1, d2, a []float32, lda int, w1, w2 []float32) { panic("unreachable") }

func dotRows2AVX2(d1, d2, a []float32, lda int, x1, x2 []float32) { panic("unreachable") }

func expF64AVX2(dst, src []float64, c *[14]uint64) { panic("unreachable") }

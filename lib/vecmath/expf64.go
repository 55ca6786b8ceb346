package vecmath

import (
	"fmt"
	"math"
)

// ExpF64 sets dst[i] = math.Exp(src[i]) for i < len(dst), bit for bit:
// the vector kernel repeats, lane by lane, the operations of the standard
// library's amd64 exponential on its fused multiply-add path (the path Go
// takes on every processor where the kernels run), for -700 <= x <= 700;
// other values, and everything without the kernels, go to math.Exp.
// Sampling uses it to exponentiate a whole vocabulary without changing a
// single draw. dst may be src.
func ExpF64(dst, src []float64) {
	n := len(dst)
	if len(src) < n {
		panic(fmt.Sprintf("vecmath: ExpF64 into %d elements from %d", n, len(src)))
	}
	n4 := 0
	if useAsm {
		n4 = n &^ 3
	}
	if n4 > 0 {
		if &dst[0] == &src[0] {
			// Out-of-range lanes need their input after the kernel ran.
			for i := 0; i < n4; i += 4 {
				if outsideExpF64(src[i]) || outsideExpF64(src[i+1]) || outsideExpF64(src[i+2]) || outsideExpF64(src[i+3]) {
					for j := i; j < i+4; j++ {
						dst[j] = math.Exp(src[j])
					}
					continue
				}
				expF64AVX2(dst[i:i+4], src[i:i+4], &expF64Consts)
			}
		} else {
			expF64AVX2(dst[:n4], src[:n4], &expF64Consts)
			for i, v := range src[:n4] {
				if outsideExpF64(v) {
					dst[i] = math.Exp(v)
				}
			}
		}
	}
	for i := n4; i < n; i++ {
		dst[i] = math.Exp(src[i])
	}
}

// outsideExpF64 reports an input the kernel does not handle (NaN too).
func outsideExpF64(x float64) bool { return !(x >= -700 && x <= 700) }

// expF64Consts are the constants of the standard library's amd64
// exponential, as bits: log2(e), ln2 in a high and a low part, 1/16, the
// Taylor coefficients 1/8!, 1/7!, ..., 1/2!, 1, then 2, and the exponent
// bias.
var expF64Consts = [14]uint64{
	math.Float64bits(1.4426950408889634073599246810018920),
	math.Float64bits(0.69314718055966295651160180568695068359375),
	math.Float64bits(0.28235290563031577122588448175013436025525412068e-12),
	math.Float64bits(0.0625),
	math.Float64bits(2.4801587301587301587e-5),
	math.Float64bits(1.9841269841269841270e-4),
	math.Float64bits(1.3888888888888888889e-3),
	math.Float64bits(8.3333333333333333333e-3),
	math.Float64bits(4.1666666666666666667e-2),
	math.Float64bits(1.6666666666666666667e-1),
	math.Float64bits(0.5),
	math.Float64bits(1.0),
	math.Float64bits(2.0),
	1023,
}

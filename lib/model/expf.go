package model

import "github.com/pats-rl/pats/lib/vecmath"

// expf is the float32 exponential of the CPU backend, vecmath.Expf: range
// reduction to |r| <= ln2/2 and a degree-7 polynomial, relative error
// about 1e-7; results below exp(-87.33) are 0 and above about exp(88.38)
// +Inf. The vector kernels evaluate the same formula with fused
// multiply-adds.
func expf(x float32) float32 { return vecmath.Expf(x) }

package model

import "math"

// expf is a float32 exponential: x = k*ln2 + r with |r| <= ln2/2 (ln2
// split in two parts for an exact reduction), exp(r) by a degree-7
// minimax polynomial, times 2^k. Relative error about 1 ulp; results below
// exp(-87.3) are flushed to 0 and above exp(88.7) are +Inf. It is pure
// arithmetic, so deterministic on every platform.
func expf(x float32) float32 {
	if x < -87.33 {
		return 0
	}
	if x > 88.72 {
		return float32(math.Inf(1))
	}
	if x != x {
		return x
	}
	const (
		log2e = 1.44269504088896341
		ln2hi = 0.693359375
		ln2lo = -2.12194440e-4
	)
	fx := x*log2e + 0.5
	k := int32(fx)
	if float32(k) > fx {
		k--
	}
	fk := float32(k)
	r := x - fk*ln2hi - fk*ln2lo
	p := float32(1.9875691500e-4)
	p = p*r + 1.3981999507e-3
	p = p*r + 8.3334519073e-3
	p = p*r + 4.1665795894e-2
	p = p*r + 1.6666665459e-1
	p = p*r + 5.0000001201e-1
	p = p*r*r + r + 1
	return p * math.Float32frombits(uint32(k+127)<<23)
}

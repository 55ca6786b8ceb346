package vecmath

import "math"

// Constants of the exponential shared by the scalar and vector code: the
// range limits, log2(e), ln(2) split in a part exact in float32 products
// and a remainder, and the minimax coefficients of (exp(r)-1-r)/r^2 on
// |r| <= ln(2)/2.
const (
	expLo    = -87.33 // below: exp flushes to 0
	expHi    = 88.72  // above: +Inf
	expLog2e = 1.44269504088896341
	expLn2Hi = 0.693359375
	expLn2Lo = -2.12194440e-4
	expP0    = 1.9875691500e-4
	expP1    = 1.3981999507e-3
	expP2    = 8.3334519073e-3
	expP3    = 4.1665795894e-2
	expP4    = 1.6666665459e-1
	expP5    = 5.0000001201e-1
)

// Expf is the scalar float32 exponential behind every kernel here: x =
// k*ln2 + r with k = round(x*log2(e)) (ties to even), exp(r) as
// ((P(r)*r + 1)*r + 1) with P of degree 5, times 2^k. Relative error
// below 2e-7 on [-87.33, 88.3]; exp(x) = 0 for x < -87.33 (and -Inf), +Inf
// from about 88.38, NaN for NaN. The vector kernels evaluate the same
// formula with fused multiply-adds, so they may differ from Expf in the
// last bit.
func Expf(x float32) float32 {
	if x < expLo {
		return 0
	}
	if x != x {
		return x
	}
	t := x
	if t > expHi {
		t = expHi
	}
	// Adding and subtracting 1.5*2^23 rounds to an integer, ties to even,
	// as VROUNDPS does (|t*log2e| < 2^22).
	k := t*expLog2e + 12582912
	k -= 12582912
	r := t - k*expLn2Hi
	r = r - k*expLn2Lo
	p := float32(expP0)
	p = p*r + expP1
	p = p*r + expP2
	p = p*r + expP3
	p = p*r + expP4
	p = p*r + expP5
	p = p*r + 1
	p = p*r + 1
	return p * math.Float32frombits(uint32(int32(k)+127)<<23)
}

func maxGo(x []float32) float32 {
	m := float32(math.Inf(-1))
	for _, v := range x {
		if v > m {
			m = v
		}
	}
	return m
}

// The Go sums keep 8 partial sums (element i goes to i%8) reduced as the
// vector kernels reduce their lanes: more accurate than one running sum
// and closer to the assembly.
type lanes [8]float32

func (l *lanes) total() float32 {
	return ((l[0] + l[4]) + (l[2] + l[6])) + ((l[1] + l[5]) + (l[3] + l[7]))
}

func sumGo(x []float32) float32 {
	var l lanes
	for i, v := range x {
		l[i&7] += v
	}
	return l.total()
}

func dotGo(a, b []float32) float32 {
	var l lanes
	b = b[:len(a)]
	for i, v := range a {
		l[i&7] += v * b[i]
	}
	return l.total()
}

func axpyGo(alpha float32, x, y []float32) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += alpha * v
	}
}

func scaleGo(alpha float32, x []float32) {
	for i := range x {
		x[i] *= alpha
	}
}

func expAffineGo(dst, x []float32, a, b, c float32) float32 {
	var l lanes
	x = x[:len(dst)]
	for i, v := range x {
		e := c * Expf(a*v+b)
		dst[i] = e
		l[i&7] += e
	}
	return l.total()
}

func expSumsGo(x []float32, shift float32) (s, sx float32) {
	var ls, lsx lanes
	for i, v := range x {
		d := v - shift
		e := Expf(d)
		ls[i&7] += e
		if e != 0 {
			lsx[i&7] += e * d
		}
	}
	return ls.total(), lsx.total()
}

func dotRowsGo(dst, a []float32, lda int, x []float32) {
	for i := range dst {
		dst[i] = dotGo(x, a[i*lda:i*lda+len(x)])
	}
}

func axpyRowsGo(dst, a []float32, lda int, w []float32) {
	for i, wi := range w {
		axpyGo(wi, a[i*lda:i*lda+len(dst)], dst)
	}
}

func addOuterGo(a []float32, lda int, x, y []float32) {
	for i, xi := range x {
		axpyGo(xi, y, a[i*lda:i*lda+len(y)])
	}
}

func siluMulGo(h, g, u []float32) {
	g, u = g[:len(h)], u[:len(h)]
	for i, gv := range g {
		h[i] = gv * u[i] / (1 + Expf(-gv))
	}
}

func siluMulBackwardGo(dg, du, dh, g, u []float32) {
	n := len(dg)
	du, dh, g, u = du[:n], dh[:n], g[:n], u[:n]
	for i, gv := range g {
		sg := 1 / (1 + Expf(-gv))
		du[i] = dh[i] * (gv * sg)
		dg[i] = dh[i] * u[i] * sg * (gv*(1-sg) + 1)
	}
}

func dot3Go(a, b, c []float32) float32 {
	var l lanes
	b, c = b[:len(a)], c[:len(a)]
	for i, v := range a {
		l[i&7] += v * b[i] * c[i]
	}
	return l.total()
}

func mulGo(dst, a, b []float32, s float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i, v := range a {
		dst[i] = v * b[i] * s
	}
}

func mulAddGo(dst, a, b []float32, s float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i, v := range a {
		dst[i] += v * b[i] * s
	}
}

// adamConsts are one AdamW step's constants in the order the assembly
// reads them.
type adamConsts struct {
	b1, c1, b2, c2, bc1, bc2, eps, wd, lr float32
}

func newAdamConsts(h AdamWStep) adamConsts {
	return adamConsts{b1: h.Beta1, c1: 1 - h.Beta1, b2: h.Beta2, c2: 1 - h.Beta2,
		bc1: h.BC1, bc2: h.BC2, eps: h.Eps, wd: h.WeightDecay, lr: h.LR}
}

func adamWGo(p, g, m, v []float32, c *adamConsts) {
	n := len(p)
	g, m, v = g[:n], m[:n], v[:n]
	for i, gi := range g {
		mi := c.b1*m[i] + c.c1*gi
		vi := c.b2*v[i] + c.c2*gi*gi
		m[i], v[i] = mi, vi
		mh := mi / c.bc1
		vh := vi / c.bc2
		p[i] -= c.lr * (c.wd*p[i] + mh/(float32(math.Sqrt(float64(vh)))+c.eps))
	}
}

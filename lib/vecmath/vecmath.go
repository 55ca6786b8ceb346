package vecmath

import (
	"fmt"
	"math"
)

// useAsm selects the assembly kernels; it is set once at start-up (see
// Impl) and changed only by this package's tests.
var useAsm = asmAvailable()

// Impl names the kernels in use: "avx2" (amd64 with AVX2 and FMA) or "go".
func Impl() string {
	if useAsm {
		return "avx2"
	}
	return "go"
}

// split returns the length of the prefix the vector kernels handle (a
// multiple of 8) when they are in use, else 0.
func split(n int) int {
	if !useAsm {
		return 0
	}
	return n &^ 7
}

// Max returns the largest element of x, -Inf for an empty x. NaNs are
// not ordered consistently; callers pass finite values.
func Max(x []float32) float32 {
	n8 := split(len(x))
	if n8 == 0 {
		return maxGo(x)
	}
	m := maxAVX2(x[:n8])
	if t := maxGo(x[n8:]); t > m {
		m = t
	}
	return m
}

// Sum returns the sum of x (in a fixed order that depends only on len(x)).
func Sum(x []float32) float32 {
	n8 := split(len(x))
	if n8 == 0 {
		return sumGo(x)
	}
	return sumAVX2(x[:n8]) + sumGo(x[n8:])
}

// Dot returns sum a[i]*b[i] over i < len(a); b must be at least as long.
func Dot(a, b []float32) float32 {
	if len(b) < len(a) {
		panic(fmt.Sprintf("vecmath: Dot of %d and %d elements", len(a), len(b)))
	}
	n8 := split(len(a))
	if n8 == 0 {
		return dotGo(a, b)
	}
	return dotAVX2(a[:n8], b[:n8]) + dotGo(a[n8:], b[n8:len(a)])
}

// Axpy sets y[i] += alpha*x[i] for i < len(x); y must be at least as long.
func Axpy(alpha float32, x, y []float32) {
	if len(y) < len(x) {
		panic(fmt.Sprintf("vecmath: Axpy into %d elements from %d", len(y), len(x)))
	}
	n8 := split(len(x))
	if n8 > 0 {
		axpyAVX2(alpha, x[:n8], y[:n8])
	}
	axpyGo(alpha, x[n8:], y[n8:len(x)])
}

// Scale sets x[i] *= alpha.
func Scale(alpha float32, x []float32) {
	n8 := split(len(x))
	if n8 > 0 {
		scaleAVX2(alpha, x[:n8])
	}
	scaleGo(alpha, x[n8:])
}

// Exp sets dst[i] = exp(x[i]) for i < len(dst) (see Expf for the limits).
// dst may be x.
func Exp(dst, x []float32) { ExpAffine(dst, x, 1, 0, 1) }

// ExpAffine sets dst[i] = c * exp(a*x[i] + b) for i < len(dst) and returns
// the sum of those values. a*x+b is one fused multiply-add in the vector
// kernels. dst may be x; x must be at least as long as dst.
func ExpAffine(dst, x []float32, a, b, c float32) float32 {
	n := len(dst)
	if len(x) < n {
		panic(fmt.Sprintf("vecmath: ExpAffine into %d elements from %d", n, len(x)))
	}
	n8 := split(n)
	var s float32
	if n8 > 0 {
		s = expAffineAVX2(dst[:n8], x[:n8], a, b, c)
	}
	return s + expAffineGo(dst[n8:], x[n8:n], a, b, c)
}

// ExpSums returns s = sum exp(x[i]-shift) and sx = sum exp(x[i]-shift) *
// (x[i]-shift) without storing the exponentials: with shift = Max(x), the
// log-sum-exp of x is shift + log(s) and the entropy of softmax(x) is
// log(s) - sx/s. Terms whose exponential is 0 (x[i]-shift < -87.33,
// including -Inf) add nothing to sx.
func ExpSums(x []float32, shift float32) (s, sx float32) {
	n8 := split(len(x))
	if n8 > 0 {
		s, sx = expSumsAVX2(x[:n8], shift)
	}
	ts, tsx := expSumsGo(x[n8:], shift)
	return s + ts, sx + tsx
}

// LogSumExp returns the maximum of x and log(sum exp(x)) computed as
// max + log(sum exp(x - max)). x must not be empty.
func LogSumExp(x []float32) (mx, lse float32) {
	mx = Max(x)
	s, _ := ExpSums(x, mx)
	return mx, mx + float32(math.Log(float64(s)))
}

// DotRows sets dst[i] = Dot(x, a[i*lda : i*lda+len(x)]) for i < len(dst):
// the product of the len(dst) x len(x) row-major matrix a (row stride
// lda) with x. The vector kernel sums each row in the same order whatever
// len(dst) is, but not in Dot's order.
func DotRows(dst, a []float32, lda int, x []float32) {
	rows, k := len(dst), len(x)
	if rows == 0 {
		return
	}
	checkMatrix("DotRows", len(a), rows, k, lda)
	k8 := split(k)
	if k8 == 0 {
		dotRowsGo(dst, a, lda, x)
		return
	}
	dotRowsAVX2(dst, a, lda, x[:k8])
	if k8 < k {
		for i := range dst {
			dst[i] += dotGo(x[k8:], a[i*lda+k8:i*lda+k])
		}
	}
}

// AxpyRows sets dst[j] += sum_i w[i] * a[i*lda+j] for j < len(dst), adding
// the rows of a (len(w) x len(dst), row stride lda) to dst in row order:
// the same as Axpy(w[i], row i, dst) for each i in turn.
func AxpyRows(dst, a []float32, lda int, w []float32) {
	rows, n := len(w), len(dst)
	if rows == 0 || n == 0 {
		return
	}
	checkMatrix("AxpyRows", len(a), rows, n, lda)
	n8 := split(n)
	if n8 > 0 {
		axpyRowsAVX2(dst[:n8], a, lda, w)
	}
	if n8 < n {
		for i, wi := range w {
			axpyGo(wi, a[i*lda+n8:i*lda+n], dst[n8:])
		}
	}
}

// DotRows2 is DotRows(d1, a, lda, x1) and DotRows(d2, a, lda, x2) in one
// pass over the rows of a, with the same bits: two query heads that share
// a key/value head score the same key rows. d1 and d2 have one length, x1
// and x2 another.
func DotRows2(d1, d2, a []float32, lda int, x1, x2 []float32) {
	rows, k := len(d1), len(x1)
	if len(d2) != rows || len(x2) != k {
		panic(fmt.Sprintf("vecmath: DotRows2 into %d and %d elements from vectors of %d and %d", rows, len(d2), k, len(x2)))
	}
	if rows == 0 {
		return
	}
	checkMatrix("DotRows2", len(a), rows, k, lda)
	k8 := split(k)
	if k8 == 0 {
		DotRows(d1, a, lda, x1)
		DotRows(d2, a, lda, x2)
		return
	}
	dotRows2AVX2(d1, d2, a, lda, x1[:k8], x2[:k8])
	if k8 < k {
		for i := range d1 {
			d1[i] += dotGo(x1[k8:], a[i*lda+k8:i*lda+k])
			d2[i] += dotGo(x2[k8:], a[i*lda+k8:i*lda+k])
		}
	}
}

// AxpyRows2 is AxpyRows(d1, a, lda, w1) and AxpyRows(d2, a, lda, w2) in
// one pass over the rows of a, with the same bits: two query heads that
// share a key/value head weigh the same value rows. d1 and d2 have one
// length, w1 and w2 another.
func AxpyRows2(d1, d2, a []float32, lda int, w1, w2 []float32) {
	rows, n := len(w1), len(d1)
	if len(d2) != n || len(w2) != rows {
		panic(fmt.Sprintf("vecmath: AxpyRows2 into %d and %d elements with %d and %d weights", n, len(d2), rows, len(w2)))
	}
	if rows == 0 || n == 0 {
		return
	}
	checkMatrix("AxpyRows2", len(a), rows, n, lda)
	n8 := split(n)
	if n8 == 0 {
		AxpyRows(d1, a, lda, w1)
		AxpyRows(d2, a, lda, w2)
		return
	}
	axpyRows2AVX2(d1[:n8], d2[:n8], a, lda, w1, w2)
	if n8 < n {
		for i := range w1 {
			axpyGo(w1[i], a[i*lda+n8:i*lda+n], d1[n8:])
			axpyGo(w2[i], a[i*lda+n8:i*lda+n], d2[n8:])
		}
	}
}

// AddOuter sets a[i*lda+j] += x[i] * y[j] for i < len(x), j < len(y): the
// same as Axpy(x[i], y, row i of a) for each i.
func AddOuter(a []float32, lda int, x, y []float32) {
	rows, n := len(x), len(y)
	if rows == 0 || n == 0 {
		return
	}
	checkMatrix("AddOuter", len(a), rows, n, lda)
	n8 := split(n)
	if n8 > 0 {
		addOuterAVX2(a, lda, x, y[:n8])
	}
	if n8 < n {
		for i, xi := range x {
			axpyGo(xi, y[n8:], a[i*lda+n8:i*lda+n])
		}
	}
}

// SiLUMul sets h[i] = silu(g[i]) * u[i] = g[i]*u[i] / (1 + exp(-g[i])) for
// i < len(h).
func SiLUMul(h, g, u []float32) {
	n := len(h)
	if len(g) < n || len(u) < n {
		panic(fmt.Sprintf("vecmath: SiLUMul of %d elements from %d and %d", n, len(g), len(u)))
	}
	n8 := split(n)
	if n8 > 0 {
		siluMulAVX2(h[:n8], g[:n8], u[:n8])
	}
	siluMulGo(h[n8:], g[n8:n], u[n8:n])
}

// SiLUMulBackward sets, for i < len(dg) and s = sigmoid(g[i]),
// du[i] = dh[i] * g[i]*s and dg[i] = dh[i] * u[i] * s * (1 + g[i]*(1-s)):
// the gradients of h = silu(g)*u.
func SiLUMulBackward(dg, du, dh, g, u []float32) {
	n := len(dg)
	if len(du) < n || len(dh) < n || len(g) < n || len(u) < n {
		panic(fmt.Sprintf("vecmath: SiLUMulBackward of %d elements with slices of %d, %d, %d, %d", n, len(du), len(dh), len(g), len(u)))
	}
	n8 := split(n)
	if n8 > 0 {
		siluMulBackwardAVX2(dg[:n8], du[:n8], dh[:n8], g[:n8], u[:n8])
	}
	siluMulBackwardGo(dg[n8:], du[n8:n], dh[n8:n], g[n8:n], u[n8:n])
}

// Dot3 returns sum a[i]*b[i]*c[i] over i < len(a); b and c must be at
// least as long.
func Dot3(a, b, c []float32) float32 {
	if len(b) < len(a) || len(c) < len(a) {
		panic(fmt.Sprintf("vecmath: Dot3 of %d, %d and %d elements", len(a), len(b), len(c)))
	}
	n8 := split(len(a))
	if n8 == 0 {
		return dot3Go(a, b, c)
	}
	return dot3AVX2(a[:n8], b[:n8], c[:n8]) + dot3Go(a[n8:], b[n8:], c[n8:])
}

// Mul sets dst[i] = a[i]*b[i]*s for i < len(dst).
func Mul(dst, a, b []float32, s float32) {
	n := checkElementwise("Mul", len(dst), len(a), len(b))
	n8 := split(n)
	if n8 > 0 {
		mulAVX2(dst[:n8], a[:n8], b[:n8], s)
	}
	mulGo(dst[n8:], a[n8:n], b[n8:n], s)
}

// MulAdd sets dst[i] += a[i]*b[i]*s for i < len(dst).
func MulAdd(dst, a, b []float32, s float32) {
	n := checkElementwise("MulAdd", len(dst), len(a), len(b))
	n8 := split(n)
	if n8 > 0 {
		mulAddAVX2(dst[:n8], a[:n8], b[:n8], s)
	}
	mulAddGo(dst[n8:], a[n8:n], b[n8:n], s)
}

// AdamWStep is one AdamW update's constants: learning rate, moment
// decays, epsilon, decoupled weight decay and the bias corrections BC1 =
// 1-Beta1^t, BC2 = 1-Beta2^t of step t.
type AdamWStep struct {
	LR, Beta1, Beta2, Eps, WeightDecay float32
	BC1, BC2                           float32
}

// AdamW updates p in place from its gradient g and moments m, v (all of
// len(p)): m = b1*m + (1-b1)*g; v = b2*v + (1-b2)*g*g;
// p -= lr*(wd*p + (m/BC1)/(sqrt(v/BC2)+eps)). The vector kernel does each
// operation separately (no fused multiply-adds) in the scalar order, so
// it gives the Go code's bits unless the compiler fuses the Go code.
func AdamW(p, g, m, v []float32, h AdamWStep) {
	n := len(p)
	if len(g) < n || len(m) < n || len(v) < n {
		panic(fmt.Sprintf("vecmath: AdamW of %d parameters with %d gradients and moments of %d and %d", n, len(g), len(m), len(v)))
	}
	c := newAdamConsts(h)
	n8 := split(n)
	if n8 > 0 {
		adamWAVX2(p[:n8], g[:n8], m[:n8], v[:n8], &c)
	}
	adamWGo(p[n8:], g[n8:n], m[n8:n], v[n8:n], &c)
}

func checkElementwise(op string, n, a, b int) int {
	if a < n || b < n {
		panic(fmt.Sprintf("vecmath: %s of %d elements from %d and %d", op, n, a, b))
	}
	return n
}

func checkMatrix(op string, have, rows, cols, ld int) {
	if ld < cols || have < (rows-1)*ld+cols {
		panic(fmt.Sprintf("vecmath: %s of a %d x %d matrix with row stride %d in %d elements", op, rows, cols, ld, have))
	}
}

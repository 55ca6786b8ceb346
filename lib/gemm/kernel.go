package gemm

// microKernel describes one register-blocked micro-kernel and the cache
// blocking it is tuned for.
type microKernel struct {
	name string
	// mr x nr is the register tile: the kernel computes an mr x nr block of C.
	mr, nr int
	// mc, kc and nc are the largest cache blocks: an mc x kc block of packed
	// A lives in L2, a kc x nc block of packed B in L3, and one kc x nr
	// micro-panel of B in L1 while the kernel sweeps the A micro-panels.
	mc, kc, nc int
	// fn computes acc = sum over p < kc of a[p*mr+i]*b[p*nr+j] (p ascending)
	// for the full mr x nr tile, then C[i*ldc+j] = alpha*acc + beta*C[i*ldc+j],
	// not reading C when beta is 0. a holds kc*mr packed values, b kc*nr.
	fn func(kc int, a, b, c []float32, ldc int, alpha, beta float32)
	// fn2, when not nil, is fn over an mr x 2nr tile: b holds two packed
	// micro-panels (kc*nr values each, one after the other) and each
	// element is computed exactly as fn computes it.
	fn2 func(kc int, a, b, c []float32, ldc int, alpha, beta float32)
}

// genericKernel is the portable pure-Go micro-kernel.
var genericKernel = &microKernel{
	name: "go",
	mr:   4, nr: 4,
	mc: 128, kc: 256, nc: 2048,
	fn: kernelGo4x4,
}

// current is the kernel Sgemm uses, chosen at start-up from the CPU features.
var current = bestKernel()

// setKernel selects a kernel by name ("go", "avx2") and returns the previous
// one; tests use it to exercise every path the CPU supports. It reports false
// when the named kernel is not available on this CPU.
func setKernel(name string) (prev *microKernel, ok bool) {
	for _, k := range availableKernels() {
		if k.name == name {
			prev, current = current, k
			return prev, true
		}
	}
	return current, false
}

// kernelGo4x4 is the pure-Go 4x4 micro-kernel.
func kernelGo4x4(kc int, a, b, c []float32, ldc int, alpha, beta float32) {
	var c00, c01, c02, c03 float32
	var c10, c11, c12, c13 float32
	var c20, c21, c22, c23 float32
	var c30, c31, c32, c33 float32
	a = a[:kc*4]
	b = b[:kc*4]
	for p := 0; p < kc; p++ {
		ap := a[p*4 : p*4+4 : p*4+4]
		bp := b[p*4 : p*4+4 : p*4+4]
		b0, b1, b2, b3 := bp[0], bp[1], bp[2], bp[3]
		a0 := ap[0]
		c00 += a0 * b0
		c01 += a0 * b1
		c02 += a0 * b2
		c03 += a0 * b3
		a1 := ap[1]
		c10 += a1 * b0
		c11 += a1 * b1
		c12 += a1 * b2
		c13 += a1 * b3
		a2 := ap[2]
		c20 += a2 * b0
		c21 += a2 * b1
		c22 += a2 * b2
		c23 += a2 * b3
		a3 := ap[3]
		c30 += a3 * b0
		c31 += a3 * b1
		c32 += a3 * b2
		c33 += a3 * b3
	}
	store4(c[0:4:4], c00, c01, c02, c03, alpha, beta)
	store4(c[ldc:ldc+4:ldc+4], c10, c11, c12, c13, alpha, beta)
	store4(c[2*ldc:2*ldc+4:2*ldc+4], c20, c21, c22, c23, alpha, beta)
	store4(c[3*ldc:3*ldc+4:3*ldc+4], c30, c31, c32, c33, alpha, beta)
}

// store4 writes one row of a 4-wide tile: c = alpha*acc + beta*c.
func store4(c []float32, x0, x1, x2, x3, alpha, beta float32) {
	x0, x1, x2, x3 = alpha*x0, alpha*x1, alpha*x2, alpha*x3
	if beta != 0 {
		x0 += beta * c[0]
		x1 += beta * c[1]
		x2 += beta * c[2]
		x3 += beta * c[3]
	}
	c[0], c[1], c[2], c[3] = x0, x1, x2, x3
}

//go:build amd64

package gemm

import "golang.org/x/sys/cpu"

// avx2Kernel is the AVX2+FMA kernel: a 6x16 tile held in 12 ymm accumulators.
var avx2Kernel = &microKernel{
	name: "avx2",
	mr:   6, nr: 16,
	mc: 144, kc: 256, nc: 4096,
	fn: kernelAVX2,
}

func hasAVX2() bool { return cpu.X86.HasAVX2 && cpu.X86.HasFMA }

func bestKernel() *microKernel {
	if hasAVX2() {
		return avx2Kernel
	}
	return genericKernel
}

func availableKernels() []*microKernel {
	ks := []*microKernel{genericKernel}
	if hasAVX2() {
		ks = append(ks, avx2Kernel)
	}
	return ks
}

// kernelAVX2x6x16 is implemented in kernel_amd64.s.
//
//go:noescape
func kernelAVX2x6x16(kc int, a, b, c *float32, ldc int, alpha, beta float32)

func kernelAVX2(kc int, a, b, c []float32, ldc int, alpha, beta float32) {
	_ = a[kc*6-1]
	_ = b[kc*16-1]
	_ = c[5*ldc+15]
	kernelAVX2x6x16(kc, &a[0], &b[0], &c[0], ldc, alpha, beta)
}

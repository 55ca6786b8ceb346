//go:build amd64

package gemm

import (
	"os"

	"golang.org/x/sys/cpu"
)

// avx2Kernel is the AVX2+FMA kernel: a 6x16 tile held in 12 ymm accumulators.
var avx2Kernel = &microKernel{
	name: "avx2",
	mr:   6, nr: 16,
	mc: 144, kc: 256, nc: 4096,
	fn: kernelAVX2,
}

// hasAVX2 reports whether the assembly may run: the processor has AVX2 and
// FMA, and the environment variable PATS_GEMM is not "go" (which forces the
// pure-Go kernel for a whole process, e.g. to time a run without the
// assembly).
func hasAVX2() bool {
	return cpu.X86.HasAVX2 && cpu.X86.HasFMA && os.Getenv("PATS_GEMM") != "go"
}

// avx512Kernel is the AVX2 kernel's tile and blocking with a second
// function: a 6x32 tile over two consecutive B micro-panels in 12 zmm
// accumulators, used wherever two full panels are side by side. Its sums
// run in the AVX2 kernel's order with the same fused multiply-adds, so it
// gives the AVX2 kernel's bits.
var avx512Kernel = &microKernel{
	name: "avx512",
	mr:   6, nr: 16,
	mc: 144, kc: 256, nc: 4096,
	fn:  kernelAVX2,
	fn2: kernelAVX512,
}

// hasAVX512 reports whether the AVX-512 kernel may run: AVX-512F with the
// operating system saving its registers, the AVX2 kernel available, and
// PATS_GEMM not "avx2" (which keeps a process on the AVX2 kernel).
func hasAVX512() bool {
	return hasAVX2() && cpu.X86.HasAVX512F && os.Getenv("PATS_GEMM") != "avx2"
}

func bestKernel() *microKernel {
	switch {
	case hasAVX512():
		return avx512Kernel
	case hasAVX2():
		return avx2Kernel
	}
	return genericKernel
}

func availableKernels() []*microKernel {
	ks := []*microKernel{genericKernel}
	if hasAVX2() {
		ks = append(ks, avx2Kernel)
	}
	if hasAVX512() {
		ks = append(ks, avx512Kernel)
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

// kernelAVX512x6x32 is implemented in kernel512_amd64.s.
//
//go:noescape
func kernelAVX512x6x32(kc int, a, b, c *float32, ldc int, alpha, beta float32)

func kernelAVX512(kc int, a, b, c []float32, ldc int, alpha, beta float32) {
	_ = a[kc*6-1]
	_ = b[kc*32-1]
	_ = c[5*ldc+31]
	kernelAVX512x6x32(kc, &a[0], &b[0], &c[0], ldc, alpha, beta)
}

// packB16AVX2 is implemented in kernel_amd64.s.
//
//go:noescape
func packB16AVX2(kc int, src *float32, ldb int, dst *float32)

// packB16 copies kc rows of 16 values, ldb apart, from src into dst.
func packB16(kc int, src []float32, ldb int, dst []float32) {
	if !hasAVX2() {
		packB16Go(kc, src, ldb, dst)
		return
	}
	_ = src[(kc-1)*ldb+15]
	_ = dst[kc*16-1]
	packB16AVX2(kc, &src[0], ldb, &dst[0])
}

// packA6AVX2 and packBT16AVX2 are implemented in kernel_amd64.s.
//
//go:noescape
func packA6AVX2(kc8 int, src *float32, lda int, dst *float32)

//go:noescape
func packBT16AVX2(kc8 int, src *float32, ldb int, dst *float32)

// packA6 interleaves 6 full rows of A (not transposed), lda apart, into
// dst[p*6+r] for p < kc.
func packA6(kc int, src []float32, lda int, dst []float32) {
	kc8 := 0
	if hasAVX2() {
		kc8 = kc &^ 7
		if kc8 > 0 {
			_ = src[5*lda+kc8-1]
			_ = dst[kc8*6-1]
			packA6AVX2(kc8, &src[0], lda, &dst[0])
		}
	}
	packA6Go(kc8, kc, src, lda, dst)
}

// packBT16 transposes 16 full rows of B (stored transposed), ldb apart, into
// dst[p*16+j] for p < kc.
func packBT16(kc int, src []float32, ldb int, dst []float32) {
	kc8 := 0
	if hasAVX2() {
		kc8 = kc &^ 7
		if kc8 > 0 {
			_ = src[15*ldb+kc8-1]
			_ = dst[kc8*16-1]
			packBT16AVX2(kc8, &src[0], ldb, &dst[0])
		}
	}
	packBT16Go(kc8, kc, src, ldb, dst)
}

//go:noescape
func dotNT4x2AVX2(k8 int, a *float32, lda int, b *float32, ldb int, out *[8]float32)

//go:noescape
func dotNT4x4AVX512(k8 int, a *float32, lda int, b *float32, ldb int, out *[16]float32)

// directWide reports whether the direct path runs rows 3 and 4 of A
// through dotNT4x4 (AVX-512, with dotNT4x2's bits): while the AVX-512
// kernel is the selected one.
func directWide() bool { return current == avx512Kernel }

// dotNT4x4 sets out[4*i+j] to the dot product over the first k8 (a
// positive multiple of 8) terms of row i of a (4 rows, lda apart) and row j
// of b (4 rows, ldb apart), each as dotNT4x2 computes it.
func dotNT4x4(k8 int, a []float32, lda int, b []float32, ldb int, out *[16]float32) {
	_ = a[3*lda+k8-1]
	_ = b[3*ldb+k8-1]
	dotNT4x4AVX512(k8, &a[0], lda, &b[0], ldb, out)
}

// directAvailable reports whether the direct A*B^T path may run: it uses
// AVX2, and only while an assembly kernel is the selected one.
func directAvailable() bool { return current == avx2Kernel || current == avx512Kernel }

// dotNT4x2 sets out[2*i+j] to the dot product over the first k8 (a positive
// multiple of 8) terms of row i of a (4 rows, lda apart) and row j of b
// (2 rows, ldb apart; ldb may be 0).
func dotNT4x2(k8 int, a []float32, lda int, b []float32, ldb int, out *[8]float32) {
	_ = a[3*lda+k8-1]
	_ = b[ldb+k8-1]
	dotNT4x2AVX2(k8, &a[0], lda, &b[0], ldb, out)
}

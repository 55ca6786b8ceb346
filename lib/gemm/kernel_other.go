//go:build !amd64

package gemm

func bestKernel() *microKernel { return genericKernel }

func availableKernels() []*microKernel { return []*microKernel{genericKernel} }

func packB16(kc int, src []float32, ldb int, dst []float32) { packB16Go(kc, src, ldb, dst) }

func packA6(kc int, src []float32, lda int, dst []float32) { packA6Go(0, kc, src, lda, dst) }

func packBT16(kc int, src []float32, ldb int, dst []float32) { packBT16Go(0, kc, src, ldb, dst) }

func directAvailable() bool { return false }

func dotNT4x2(k8 int, a []float32, lda int, b []float32, ldb int, out *[8]float32) {
	panic("gemm: direct path not available on this architecture")
}

func directWide() bool { return false }

func dotNT4x4(k8 int, a []float32, lda int, b []float32, ldb int, out *[16]float32) {
	panic("gemm: direct path not available on this architecture")
}

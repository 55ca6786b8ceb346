//go:build !amd64

package gemm

func bestKernel() *microKernel { return genericKernel }

func availableKernels() []*microKernel { return []*microKernel{genericKernel} }

func packB16(kc int, src []float32, ldb int, dst []float32) { packB16Go(kc, src, ldb, dst) }

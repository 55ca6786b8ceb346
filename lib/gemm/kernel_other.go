//go:build !amd64

package gemm

func bestKernel() *microKernel { return genericKernel }

func availableKernels() []*microKernel { return []*microKernel{genericKernel} }

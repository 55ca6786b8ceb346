//go:build openblas

package main

/*
#cgo LDFLAGS: -lopenblas
#include <cblas.h>
*/
import "C"

import "fmt"

func init() {
	openBLAS = cblasSgemm
	openBLASInfo = func() string {
		return fmt.Sprintf("OpenBLAS core %s, %d threads, config: %s",
			C.GoString(C.openblas_get_corename()), int(C.openblas_get_num_threads()), C.GoString(C.openblas_get_config()))
	}
}

func cblasSgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	ta, tb := uint32(C.CblasNoTrans), uint32(C.CblasNoTrans)
	if transA {
		ta = C.CblasTrans
	}
	if transB {
		tb = C.CblasTrans
	}
	C.cblas_sgemm(C.CblasRowMajor, C.enum_CBLAS_TRANSPOSE(ta), C.enum_CBLAS_TRANSPOSE(tb),
		C.blasint(m), C.blasint(n), C.blasint(k), C.float(alpha),
		(*C.float)(&a[0]), C.blasint(lda), (*C.float)(&b[0]), C.blasint(ldb),
		C.float(beta), (*C.float)(&c[0]), C.blasint(ldc))
}

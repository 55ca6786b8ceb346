package gemm

import (
	"fmt"
	"runtime"
)

// Sgemm computes C = alpha*op(A)*op(B) + beta*C for row-major matrices, where
// op(X) is X or its transpose. op(A) is m x k, op(B) is k x n, C is m x n;
// lda, ldb and ldc are the row strides of A, B and C as stored.
//
// When beta is 0, C is not read (NaN or Inf already in C do not propagate).
// Sgemm panics with a descriptive message when a dimension is negative, a
// stride is too small or a slice is too short for the shape it describes.
// The result does not depend on GOMAXPROCS: see the package documentation.
func Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	checkArgs(transA, transB, m, n, k, a, lda, b, ldb, c, ldc)
	if m == 0 || n == 0 {
		return
	}
	if k == 0 || alpha == 0 {
		scaleC(m, n, beta, c, ldc)
		return
	}
	sgemm(runtime.GOMAXPROCS(0), transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// sgemm is Sgemm on at most workers goroutines, after argument checks and
// with m, n, k > 0 and alpha != 0.
func sgemm(workers int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if useDirect(transA, transB, m, k) {
		if n*k < directParallelMin {
			workers = 1
		}
		gemmDirectNT(workers, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	if m*n*k < parallelMinWork {
		workers = 1
	}
	gemmBlocked(current, workers, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// directParallelMin is the smallest n*k (floats of B read) for which the
// direct path uses more than one goroutine.
const directParallelMin = 1 << 19

// parallelMinWork is the smallest m*n*k for which Sgemm uses more than one
// goroutine; below it, starting goroutines costs more than it saves.
const parallelMinWork = 1 << 20

// checkArgs validates the shape, strides and slice lengths of a call.
func checkArgs(transA, transB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	if m < 0 || n < 0 || k < 0 {
		panic(fmt.Sprintf("gemm: negative dimension m=%d n=%d k=%d", m, n, k))
	}
	check := func(name string, x []float32, rows, cols, ld int) {
		if rows == 0 || cols == 0 {
			return // an empty operand is never read
		}
		if ld < cols {
			panic(fmt.Sprintf("gemm: ld%s=%d smaller than the %d columns of %s as stored", name, ld, cols, name))
		}
		if need := (rows-1)*ld + cols; len(x) < need {
			panic(fmt.Sprintf("gemm: len(%s)=%d, need %d for %dx%d with ld%s=%d", name, len(x), need, rows, cols, name, ld))
		}
	}
	// Stored shapes: A is m x k (k x m when transposed), B is k x n (n x k).
	if m > 0 && n > 0 {
		if transA {
			check("a", a, k, m, lda)
		} else {
			check("a", a, m, k, lda)
		}
		if transB {
			check("b", b, n, k, ldb)
		} else {
			check("b", b, k, n, ldb)
		}
	}
	check("c", c, m, n, ldc)
}

// scaleC sets C = beta*C (C = 0 when beta is 0, without reading C).
func scaleC(m, n int, beta float32, c []float32, ldc int) {
	for i := 0; i < m; i++ {
		row := c[i*ldc : i*ldc+n]
		switch beta {
		case 0:
			clear(row)
		case 1:
		default:
			for j := range row {
				row[j] *= beta
			}
		}
	}
}

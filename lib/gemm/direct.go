package gemm

import (
	"runtime"
	"sync/atomic"
	"time"
)

// directMaxM is the largest m for which A*B^T (B stored row-major as n x k,
// the layout of weights [out, in]) runs as dot products straight from the
// operands instead of through packing: with few rows of A, packing B would
// cost more than the product (decoding one or a few tokens at a time).
const directMaxM = 4

// directRows is how many columns of C (rows of B) one work item of the
// direct path computes.
const directRows = 64

// useDirect reports whether the direct path handles this product.
func useDirect(transA, transB bool, m, k int) bool {
	return !transA && transB && m <= directMaxM && k >= 8 && directAvailable()
}

// gemmDirectNT computes C = alpha*A*B^T + beta*C for m <= directMaxM with
// the 4x2 dot-product kernel (or, for m > 2 where AVX-512 is selected, the
// 4x4 one, which computes each element with the same operations): each
// element is the kernel's fixed-order dot product over the first k&^7
// terms, plus the remaining terms in ascending order, whoever computes it.
func gemmDirectNT(workers, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	items := ceilDiv(n, directRows)
	// A copied into 4 rows of k (rows past m zero), so the kernel always
	// reads 4 rows; their extra results are discarded.
	apad := make([]float32, 4*k)
	for i := 0; i < m; i++ {
		copy(apad[i*k:(i+1)*k], a[i*lda:i*lda+k])
	}
	k8 := k &^ 7
	store := func(i, j int, s float32) {
		if k8 < k {
			ar, br := apad[i*k+k8:(i+1)*k], b[j*ldb+k8:j*ldb+k]
			for p, v := range ar {
				s += v * br[p]
			}
		}
		s *= alpha
		ci := i*ldc + j
		switch beta {
		case 0:
			c[ci] = s
		case 1:
			c[ci] += s
		default:
			c[ci] = s + beta*c[ci]
		}
	}
	if m <= 2 {
		// Roles swapped: 4 rows of B against the 1 or 2 rows of A, so that
		// no product is wasted on padding; the last rows of B, if fewer
		// than 4, are copied into a zero-padded block.
		astep := k
		if m == 1 {
			astep = 0 // the kernel reads row 0 twice
		}
		runItems(min(workers, items), items, func(it int) {
			var out [8]float32
			for j := it * directRows; j < min(n, (it+1)*directRows); j += 4 {
				nb := min(4, n-j)
				src, step := fourRows(b, ldb, j, nb, k)
				dotNT4x2(k8, src, step, apad, astep, &out)
				for r := 0; r < nb; r++ {
					for i := 0; i < m; i++ {
						store(i, j+r, out[2*r+i])
					}
				}
			}
		})
		return
	}
	if directWide() {
		// 4 rows of B at a time against the 4 rows of A, as in the m <= 2
		// case: the last rows of B, if fewer than 4, from a padded block.
		runItems(min(workers, items), items, func(it int) {
			var out [16]float32
			for j := it * directRows; j < min(n, (it+1)*directRows); j += 4 {
				nb := min(4, n-j)
				src, step := fourRows(b, ldb, j, nb, k)
				dotNT4x4(k8, apad, k, src, step, &out)
				for i := 0; i < m; i++ {
					for r := 0; r < nb; r++ {
						store(i, j+r, out[4*i+r])
					}
				}
			}
		})
		return
	}
	runItems(min(workers, items), items, func(it int) {
		var out [8]float32
		for j := it * directRows; j < min(n, (it+1)*directRows); j += 2 {
			nb, step := 2, ldb
			if j+1 == n {
				nb, step = 1, 0 // the kernel reads row j twice
			}
			dotNT4x2(k8, apad, k, b[j*ldb:], step, &out)
			for i := 0; i < m; i++ {
				for jj := j; jj < j+nb; jj++ {
					store(i, jj, out[2*i+jj-j])
				}
			}
		}
	})
}

// runItems runs fn(0..total-1) on the caller and up to workers-1 helpers,
// items taken from an atomic counter; it returns when all are done, without
// waiting for helpers that have not started.
func runItems(workers, total int, fn func(it int)) {
	r := &itemRun{fn: fn, total: int64(total)}
	if workers > 1 {
		r.closed = make(chan struct{})
		offer(r, workers-1)
	}
	r.help()
	start := time.Now()
	for spin := 1; r.done.Load() < r.total; spin++ {
		if spin&63 == 0 && time.Since(start) > spinTime {
			<-r.closed
			break
		}
		runtime.Gosched()
	}
}

// itemRun is the shared state of runItems.
type itemRun struct {
	fn         func(it int)
	total      int64
	next, done atomic.Int64
	closed     chan struct{} // closed by whoever finishes the last item
}

func (r *itemRun) help() {
	for {
		it := r.next.Add(1) - 1
		if it >= r.total {
			return
		}
		r.fn(int(it))
		if r.done.Add(1) == r.total && r.closed != nil {
			close(r.closed)
		}
	}
}

// Parallel runs fn(0..n-1) on the calling goroutine and up to workers-1 of
// the helper goroutines the products use, items taken from a shared
// counter; it returns when every item is done. A helper that is still
// polling after a product takes items at once, where a new goroutine would
// wait to be scheduled. Each index must touch disjoint outputs; fn may
// itself call Sgemm or Parallel.
func Parallel(workers, n int, fn func(i int)) {
	if workers = min(workers, n); workers <= 1 {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	runItems(workers, n, fn)
}

// fourRows returns rows j.. of b for a kernel that reads 4 rows of k
// values: b itself from row j when nb = 4 rows remain, else the nb rows
// copied into a zero-padded block of 4.
func fourRows(b []float32, ldb, j, nb, k int) (src []float32, step int) {
	if nb == 4 {
		return b[j*ldb:], ldb
	}
	src = make([]float32, 4*k)
	for r := 0; r < nb; r++ {
		copy(src[r*k:(r+1)*k], b[(j+r)*ldb:(j+r)*ldb+k])
	}
	return src, k
}

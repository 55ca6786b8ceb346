package gemm

import "sync"

// ceilDiv returns ceil(x/y) for positive y.
func ceilDiv(x, y int) int { return (x + y - 1) / y }

// roundUp rounds x up to a multiple of y.
func roundUp(x, y int) int { return ceilDiv(x, y) * y }

// plan holds the block sizes of one call. Only kcb affects the arithmetic
// (it fixes where the k sum is cut), and it depends on k alone; mcb, ncb and
// the split into work items only decide who computes which tile.
type plan struct {
	kcb, mcb, ncb int
	rowBlocks     int // ceil(m/mcb)
	colChunks     int // work items per row block within one column block
	workers       int
}

func makePlan(kn *microKernel, workers, m, n, k int) plan {
	var p plan
	p.kcb = ceilDiv(k, ceilDiv(k, kn.kc))
	p.ncb = roundUp(ceilDiv(n, ceilDiv(n, kn.nc)), kn.nr)

	rb := ceilDiv(m, kn.mc)
	if workers > 1 && rb > 1 && rb%workers != 0 {
		rb = roundUp(rb, workers)
	}
	p.mcb = roundUp(ceilDiv(m, rb), kn.mr)
	p.rowBlocks = ceilDiv(m, p.mcb)

	p.colChunks = 1
	if p.rowBlocks < workers {
		p.colChunks = ceilDiv(workers, p.rowBlocks)
	}
	// Never more chunks than micro-panels of B, nor more workers than items.
	p.colChunks = min(p.colChunks, ceilDiv(min(n, p.ncb), kn.nr))
	p.workers = min(workers, p.rowBlocks*p.colChunks)
	return p
}

// buffers caches packing space between calls.
var bufPool sync.Pool

func getBuf(n int) *[]float32 {
	if v, ok := bufPool.Get().(*[]float32); ok && cap(*v) >= n {
		*v = (*v)[:n]
		return v
	}
	s := make([]float32, n)
	return &s
}

func putBuf(b *[]float32) { bufPool.Put(b) }

// parallel runs f(0..workers-1), f(0) on the calling goroutine.
func parallel(workers int, f func(w int)) {
	if workers == 1 {
		f(0)
		return
	}
	var wg sync.WaitGroup
	wg.Add(workers - 1)
	for w := 1; w < workers; w++ {
		go func() {
			defer wg.Done()
			f(w)
		}()
	}
	f(0)
	wg.Wait()
}

// gemmBlocked is the blocked, packed, multi-goroutine product. Loop nest:
//
//	for jc over column blocks of C (ncb wide):
//	  for pc over k blocks (kcb deep, ascending):
//	    pack B[pc:pc+kc, jc:jc+nc] into nr-wide micro-panels (split across workers)
//	    for each work item (row block of mcb rows x chunk of columns), static split:
//	      pack A[rows, pc:pc+kc] into mr-tall micro-panels (per worker)
//	      for jr over nr-panels of the chunk: for ir over mr-panels: micro-kernel
func gemmBlocked(kn *microKernel, workers int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	p := makePlan(kn, workers, m, n, k)
	mr, nr := kn.mr, kn.nr

	bbuf := getBuf(p.kcb * p.ncb)
	defer putBuf(bbuf)
	bp := *bbuf
	abufs := make([]*[]float32, p.workers)
	for w := range abufs {
		abufs[w] = getBuf(p.mcb*p.kcb + mr*nr)
	}
	defer func() {
		for _, ab := range abufs {
			putBuf(ab)
		}
	}()

	items := p.rowBlocks * p.colChunks
	for jc := 0; jc < n; jc += p.ncb {
		nc := min(p.ncb, n-jc)
		npanels := ceilDiv(nc, nr)
		chunkW := roundUp(ceilDiv(nc, p.colChunks), nr)
		for pc := 0; pc < k; pc += p.kcb {
			kc := min(p.kcb, k-pc)
			betaEff := float32(1)
			if pc == 0 {
				betaEff = beta
			}
			parallel(p.workers, func(w int) {
				lo, hi := w*npanels/p.workers, (w+1)*npanels/p.workers
				for q := lo; q < hi; q++ {
					j0 := q * nr
					packB(transB, b, ldb, pc, kc, jc+j0, min(nr, nc-j0), nr, bp[q*kc*nr:(q+1)*kc*nr])
				}
			})
			parallel(p.workers, func(w int) {
				ab := *abufs[w]
				ap := ab[:p.mcb*kc]
				tmp := ab[p.mcb*p.kcb : p.mcb*p.kcb+mr*nr]
				lastRB := -1
				lo, hi := w*items/p.workers, (w+1)*items/p.workers
				for it := lo; it < hi; it++ {
					rb, cc := it/p.colChunks, it%p.colChunks
					i0 := rb * p.mcb
					mc := min(p.mcb, m-i0)
					if rb != lastRB {
						for q := 0; q*mr < mc; q++ {
							packA(transA, a, lda, i0+q*mr, min(mr, mc-q*mr), pc, kc, mr, ap[q*kc*mr:(q+1)*kc*mr])
						}
						lastRB = rb
					}
					c0, c1 := cc*chunkW, min((cc+1)*chunkW, nc)
					for jr := c0; jr < c1; jr += nr {
						bpan := bp[(jr/nr)*kc*nr : (jr/nr+1)*kc*nr]
						nrr := min(nr, nc-jr)
						for ir := 0; ir < mc; ir += mr {
							apan := ap[(ir/mr)*kc*mr : (ir/mr+1)*kc*mr]
							mrr := min(mr, mc-ir)
							off := (i0+ir)*ldc + jc + jr
							if mrr == mr && nrr == nr {
								kn.fn(kc, apan, bpan, c[off:], ldc, alpha, betaEff)
								continue
							}
							kn.fn(kc, apan, bpan, tmp, nr, alpha, 0)
							mergeEdge(tmp, nr, c[off:], ldc, mrr, nrr, betaEff)
						}
					}
				}
			})
		}
	}
}

// mergeEdge writes a partial tile: c = t + beta*c, where t already holds
// alpha*acc; C is not read when beta is 0.
func mergeEdge(t []float32, ldt int, c []float32, ldc, mr, nr int, beta float32) {
	for i := 0; i < mr; i++ {
		tr := t[i*ldt : i*ldt+nr]
		cr := c[i*ldc : i*ldc+nr]
		switch beta {
		case 0:
			copy(cr, tr)
		case 1:
			for j, v := range tr {
				cr[j] += v
			}
		default:
			for j, v := range tr {
				cr[j] = v + beta*cr[j]
			}
		}
	}
}

// packA copies rows [i0, i0+rows) x columns [p0, p0+kc) of op(A) into dst as
// one mr-tall micro-panel: dst[p*mr+r] = op(A)[i0+r][p0+p], zero for r >= rows.
func packA(trans bool, a []float32, lda, i0, rows, p0, kc, mr int, dst []float32) {
	dst = dst[:kc*mr]
	if rows < mr {
		clear(dst)
	}
	if trans {
		// op(A)[i][p] = a[p*lda+i]: each p is a contiguous run of rows.
		for p := 0; p < kc; p++ {
			copy(dst[p*mr:p*mr+rows], a[(p0+p)*lda+i0:])
		}
		return
	}
	for r := 0; r < rows; r++ {
		src := a[(i0+r)*lda+p0 : (i0+r)*lda+p0+kc]
		for p, v := range src {
			dst[p*mr+r] = v
		}
	}
}

// packB copies rows [p0, p0+kc) x columns [j0, j0+cols) of op(B) into dst as
// one nr-wide micro-panel: dst[p*nr+j] = op(B)[p0+p][j0+j], zero for j >= cols.
func packB(trans bool, b []float32, ldb, p0, kc, j0, cols, nr int, dst []float32) {
	dst = dst[:kc*nr]
	if cols < nr {
		clear(dst)
	}
	if !trans {
		for p := 0; p < kc; p++ {
			copy(dst[p*nr:p*nr+cols], b[(p0+p)*ldb+j0:])
		}
		return
	}
	// op(B)[p][j] = b[j*ldb+p]: each j is a contiguous run of p.
	for j := 0; j < cols; j++ {
		src := b[(j0+j)*ldb+p0 : (j0+j)*ldb+p0+kc]
		for p, v := range src {
			dst[p*nr+j] = v
		}
	}
}

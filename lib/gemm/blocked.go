package gemm

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// ceilDiv returns ceil(x/y) for positive y.
func ceilDiv(x, y int) int { return (x + y - 1) / y }

// roundUp rounds x up to a multiple of y.
func roundUp(x, y int) int { return ceilDiv(x, y) * y }

// plan holds the block sizes of one call. Only kcb affects the arithmetic
// (it fixes where the k sum is cut) and it depends on k alone; the other
// sizes only decide which goroutine computes which tile.
type plan struct {
	kcb       int // depth of a k block
	ncb       int // width of a column block (packed B is kcb x ncb)
	mcb       int // height of a row block (one compute item's A, in L2)
	mob       int // height of an outer row block (packed A is mob x kcb)
	chunk     int // width of one compute item, a multiple of nr
	packBStep int // B micro-panels per packing item
}

// spinTime is how long a goroutine yields in a loop while waiting for the
// other goroutines to finish a phase before it blocks.
const spinTime = 50 * time.Microsecond

// minRowBlock is the smallest row block worth a work item of its own.
const minRowBlock = 48

func makePlan(kn *microKernel, workers, m, n, k int) plan {
	var p plan
	p.kcb = ceilDiv(k, ceilDiv(k, kn.kc))
	p.ncb = roundUp(ceilDiv(n, ceilDiv(n, kn.nc)), kn.nr)

	rb := ceilDiv(m, kn.mc)
	if want := 2 * workers; workers > 1 && rb < want {
		rb = max(rb, min(want, m/minRowBlock))
	}
	p.mcb = roundUp(ceilDiv(m, rb), kn.mr)
	rb = ceilDiv(m, p.mcb)
	p.mob = p.mcb * min(rb, 16)

	// Enough items for the workers to balance: about 4 per worker.
	nc := min(n, p.ncb)
	cc := 1
	if rbo := ceilDiv(min(m, p.mob), p.mcb); workers > 1 && rbo < 4*workers {
		cc = ceilDiv(4*workers, rbo)
	}
	p.chunk = max(4*kn.nr, roundUp(ceilDiv(nc, cc), kn.nr))
	p.packBStep = max(4, ceilDiv(ceilDiv(nc, kn.nr), 4*workers))
	return p
}

// aPool and bPool keep packing space for A and for B between calls (apart,
// so that a small A buffer is not handed out for a large B panel).
var aPool, bPool sync.Pool

// getBuf returns a buffer of n floats from pool, allocating when the pooled
// one is too small.
func getBuf(pool *sync.Pool, n int) *[]float32 {
	if v, ok := pool.Get().(*[]float32); ok && cap(*v) >= n {
		*v = (*v)[:n]
		return v
	}
	s := make([]float32, n)
	return &s
}

// step is one (outer row block, column block, k block) of the loop nest.
type step struct {
	i0, mo int // rows [i0, i0+mo)
	j0, nc int // columns [j0, j0+nc)
	p0, kc int // k range [p0, p0+kc)
	first  bool
}

// phase is a set of independent work items; all of phase f finish before
// any item of phase f+1 starts.
type phase struct {
	packA, packB, compute int // item counts, in this order
	next, done            atomic.Int64
	closed                chan struct{} // closed by whoever finishes the last item
}

func (ph *phase) total() int64 { return int64(ph.packA + ph.packB + ph.compute) }

// job is the shared state of one blocked product.
type job struct {
	kn               *microKernel
	p                plan
	transA, transB   bool
	m, n, k          int
	alpha, beta      float32
	a, b, c          []float32
	lda, ldb, ldc    int
	steps            []step
	phases           []phase
	apack, bpack     [2][]float32 // double buffers, step s uses index s%2
	apanels, bpanels int          // micro-panels per buffer slot
	finished         atomic.Bool
	tmp              [maxTile]float32 // edge-tile scratch of the calling goroutine
}

// maxTile bounds the tile of fn (mr*nr) and of fn2 (2*mr*nr) over the
// kernels.
const maxTile = 6 * 32

// tile is the number of floats of edge-tile scratch a kernel needs.
func (kn *microKernel) tile() int {
	if kn.fn2 != nil {
		return 2 * kn.mr * kn.nr
	}
	return kn.mr * kn.nr
}

// gemmBlocked is the blocked, packed product on up to workers goroutines.
//
// Loop nest (the "steps"): for each outer row block io, column block jc and
// k block pc (ascending): pack op(A)[io, pc] into mr-tall micro-panels, pack
// op(B)[pc, jc] into nr-wide micro-panels, then for every tile of mcb rows x
// chunk columns, and inside it for each B micro-panel (jr) and A micro-panel
// (ir), run the micro-kernel, which adds alpha*sum_pc to C (beta applied on
// the first k block). Phase f packs step f and computes step f-1, so one
// barrier separates steps; items are taken from an atomic counter, so the
// caller finishes the work alone if the other goroutines start late.
func gemmBlocked(kn *microKernel, workers int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	j := &job{kn: kn, p: makePlan(kn, workers, m, n, k), transA: transA, transB: transB,
		m: m, n: n, k: k, alpha: alpha, beta: beta, a: a, b: b, c: c, lda: lda, ldb: ldb, ldc: ldc}
	p := j.p
	j.steps = make([]step, 0, ceilDiv(m, p.mob)*ceilDiv(n, p.ncb)*ceilDiv(k, p.kcb))
	for i0 := 0; i0 < m; i0 += p.mob {
		for j0 := 0; j0 < n; j0 += p.ncb {
			for p0 := 0; p0 < k; p0 += p.kcb {
				j.steps = append(j.steps, step{i0: i0, mo: min(p.mob, m-i0), j0: j0, nc: min(p.ncb, n-j0), p0: p0, kc: min(p.kcb, k-p0), first: p0 == 0})
			}
		}
	}
	j.apanels = ceilDiv(min(m, p.mob), kn.mr)
	j.bpanels = ceilDiv(min(n, p.ncb), kn.nr)
	nbuf := min(2, len(j.steps))
	var bufs [4]*[]float32
	for s := 0; s < nbuf; s++ {
		ab := getBuf(&aPool, j.apanels*kn.mr*p.kcb)
		bb := getBuf(&bPool, j.bpanels*kn.nr*p.kcb)
		bufs[2*s], bufs[2*s+1] = ab, bb
		j.apack[s], j.bpack[s] = *ab, *bb
	}
	j.phases = make([]phase, len(j.steps)+1)
	for f := range j.phases {
		ph := &j.phases[f]
		if f < len(j.steps) {
			st := j.steps[f]
			ph.packA = ceilDiv(st.mo, p.mcb)
			ph.packB = ceilDiv(ceilDiv(st.nc, kn.nr), p.packBStep)
		}
		if f > 0 {
			st := j.steps[f-1]
			ph.compute = ceilDiv(st.mo, p.mcb) * ceilDiv(st.nc, p.chunk)
		}
	}
	maxItems := 0
	for f := range j.phases {
		maxItems = max(maxItems, int(j.phases[f].total()))
	}
	helpers := min(workers, maxItems) - 1
	if helpers > 0 {
		for f := range j.phases {
			j.phases[f].closed = make(chan struct{})
		}
	}
	offer(j, helpers)
	j.work(j.tmp[:kn.tile()])
	j.finished.Store(true)
	for s := 0; s < nbuf; s++ {
		aPool.Put(bufs[2*s])
		bPool.Put(bufs[2*s+1])
	}
}

// help is the helpers' entry to the job.
func (j *job) help() {
	if !j.finished.Load() {
		j.work(make([]float32, j.kn.tile()))
	}
}

// work runs items until every phase is done. Helpers that start after the
// product is complete return at once.
func (j *job) work(tmp []float32) {
	for f := range j.phases {
		if j.finished.Load() {
			return
		}
		ph := &j.phases[f]
		total := ph.total()
		for {
			it := ph.next.Add(1) - 1
			if it >= total {
				break
			}
			j.runItem(f, int(it), tmp)
			if ph.done.Add(1) == total && ph.closed != nil {
				close(ph.closed)
			}
		}
		// The last items are running elsewhere: spin for a while (they
		// usually finish within an item's time, and waking a sleeping
		// goroutine costs more), then sleep until the phase closes.
		var start time.Time
		for spin := 0; ph.done.Load() < total; spin++ {
			if spin&63 == 0 {
				if spin == 0 {
					start = time.Now()
				} else if time.Since(start) > spinTime {
					<-ph.closed
					break
				}
			}
			runtime.Gosched()
		}
	}
}

func (j *job) runItem(f, it int, tmp []float32) {
	ph := &j.phases[f]
	kn, p := j.kn, j.p
	mr, nr := kn.mr, kn.nr
	if it < ph.packA {
		st := j.steps[f]
		dst := j.apack[f%2]
		r0 := it * p.mcb
		r1 := min(r0+p.mcb, st.mo)
		for r := r0; r < r1; r += mr {
			q := r / mr
			packA(j.transA, j.a, j.lda, st.i0+r, min(mr, st.mo-r), st.p0, st.kc, mr, dst[q*st.kc*mr:(q+1)*st.kc*mr])
		}
		return
	}
	it -= ph.packA
	if it < ph.packB {
		st := j.steps[f]
		dst := j.bpack[f%2]
		np := ceilDiv(st.nc, nr)
		for q := it * p.packBStep; q < min(np, (it+1)*p.packBStep); q++ {
			c0 := q * nr
			packB(j.transB, j.b, j.ldb, st.p0, st.kc, st.j0+c0, min(nr, st.nc-c0), nr, dst[q*st.kc*nr:(q+1)*st.kc*nr])
		}
		return
	}
	it -= ph.packB
	// Compute item: tile (row block rb, column chunk cc) of step f-1.
	st := j.steps[f-1]
	ap, bp := j.apack[(f-1)%2], j.bpack[(f-1)%2]
	ncc := ceilDiv(st.nc, p.chunk)
	rb, cc := it/ncc, it%ncc
	r0, r1 := rb*p.mcb, min((rb+1)*p.mcb, st.mo)
	c0, c1 := cc*p.chunk, min((cc+1)*p.chunk, st.nc)
	beta := float32(1)
	if st.first {
		beta = j.beta
	}
	kc := st.kc
	jr := c0
	if kn.fn2 != nil {
		// Pairs of full B panels through the wide kernel; rows at the
		// bottom edge and a last single panel go through fn below.
		for ; jr+2*nr <= c1; jr += 2 * nr {
			bpan := bp[(jr/nr)*kc*nr : (jr/nr+2)*kc*nr]
			for ir := r0; ir < r1; ir += mr {
				apan := ap[(ir/mr)*kc*mr : (ir/mr+1)*kc*mr]
				off := (st.i0+ir)*j.ldc + st.j0 + jr
				if mrr := min(mr, st.mo-ir); mrr < mr {
					// The wide kernel into scratch (each element as fn
					// computes it), then the edge rows into C.
					kn.fn2(kc, apan, bpan, tmp, 2*nr, j.alpha, 0)
					mergeEdge(tmp, 2*nr, j.c[off:], j.ldc, mrr, 2*nr, beta)
					continue
				}
				kn.fn2(kc, apan, bpan, j.c[off:], j.ldc, j.alpha, beta)
			}
		}
	}
	for ; jr < c1; jr += nr {
		bpan := bp[(jr/nr)*kc*nr : (jr/nr+1)*kc*nr]
		nrr := min(nr, st.nc-jr)
		for ir := r0; ir < r1; ir += mr {
			apan := ap[(ir/mr)*kc*mr : (ir/mr+1)*kc*mr]
			mrr := min(mr, st.mo-ir)
			off := (st.i0+ir)*j.ldc + st.j0 + jr
			if mrr == mr && nrr == nr {
				kn.fn(kc, apan, bpan, j.c[off:], j.ldc, j.alpha, beta)
				continue
			}
			kn.fn(kc, apan, bpan, tmp, nr, j.alpha, 0)
			mergeEdge(tmp, nr, j.c[off:], j.ldc, mrr, nrr, beta)
		}
	}
}

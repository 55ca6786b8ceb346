package model

import (
	"math"
	"runtime"
	"testing"
)

// TestGOMAXPROCSIndependent runs forward+backward under GOMAXPROCS 1 and 2
// on a configuration large enough to take the parallel code paths, and
// requires bit-identical log-probs and gradients.
func TestGOMAXPROCSIndependent(t *testing.T) {
	cfg := base(200, 64, 2, 4, 2, 96)
	cfg.MaxPositionEmbeddings = 256
	seqs := randomSeqs(6, cfg.VocabSize, 150, 40)
	w := make([][]float32, len(seqs))
	for i, s := range seqs {
		w[i] = make([]float32, len(s))
		for j := range w[i] {
			w[i][j] = float32(j%5) - 2
		}
	}
	run := func(procs int) ([]uint32, []uint32) {
		old := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(old)
		m := randomModel(t, cfg, 12)
		m.ZeroGrad()
		lp, _, err := m.ForwardBackward(seqs, nil, func(i int, _, _ []float32) []float32 { return w[i] })
		if err != nil {
			t.Fatal(err)
		}
		var lb, gb []uint32
		for _, r := range lp {
			for _, v := range r {
				lb = append(lb, math.Float32bits(v))
			}
		}
		for _, p := range m.Params() {
			for _, v := range p.G {
				gb = append(gb, math.Float32bits(v))
			}
		}
		d := m.NewDecoder()
		logits, err := d.Append(seqs[0][:100])
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range logits {
			lb = append(lb, math.Float32bits(v))
		}
		return lb, gb
	}
	l1, g1 := run(1)
	l2, g2 := run(2)
	for i := range l1 {
		if l1[i] != l2[i] {
			t.Fatalf("log-prob/logit %d differs between GOMAXPROCS 1 and 2", i)
		}
	}
	for i := range g1 {
		if g1[i] != g2[i] {
			t.Fatalf("gradient element %d differs between GOMAXPROCS 1 and 2", i)
		}
	}
}

// TestTrainingReducesLoss: a few AdamW steps on one sequence raise its
// log-likelihood (the pieces fit together).
func TestTrainingReducesLoss(t *testing.T) {
	cfg := testConfig(true)
	m, err := New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	seqs := randomSeqs(9, cfg.VocabSize, 12)
	w := [][]float32{make([]float32, 12)}
	for j := 1; j < 12; j++ {
		w[0][j] = -1 // loss = -sum log p
	}
	opt := NewAdamW(m, DefaultAdamW())
	var first, last float64
	for step := 0; step < 30; step++ {
		m.ZeroGrad()
		lp, _, err := m.ForwardBackward(seqs, nil, func(int, []float32, []float32) []float32 { return w[0] })
		if err != nil {
			t.Fatal(err)
		}
		var nll float64
		for _, v := range lp[0] {
			nll -= float64(v)
		}
		if step == 0 {
			first = nll
		}
		last = nll
		m.ClipGradNorm(1)
		opt.Step(1e-2)
	}
	if !(last < 0.5*first) {
		t.Errorf("negative log-likelihood %g -> %g after 30 steps", first, last)
	}
}

// TestForwardBackwardEqualsBackward: the one-pass API gives the same
// log-probs as LogProbs and the same gradients as Backward (to rounding).
func TestForwardBackwardEqualsBackward(t *testing.T) {
	cfg := testConfig(false)
	m := randomModel(t, cfg, 4)
	seqs := randomSeqs(8, cfg.VocabSize, 6, 9)
	w := [][]float32{{0, 1, 0, -2, 0.5, 0}, {0, 0, 0, 1, 1, 1, 0, 0, 3}}
	m.ZeroGrad()
	if err := m.Backward(seqs, w); err != nil {
		t.Fatal(err)
	}
	var g1 []float32
	for _, p := range m.Params() {
		g1 = append(g1, p.G...)
	}
	m.ZeroGrad()
	lp, _, err := m.ForwardBackward(seqs, nil, func(i int, _, _ []float32) []float32 { return w[i] })
	if err != nil {
		t.Fatal(err)
	}
	var g2 []float32
	for _, p := range m.Params() {
		g2 = append(g2, p.G...)
	}
	// Backward skips the vocabulary rows of zero weight, ForwardBackward
	// projects every row: the matrix products see other row counts and may
	// round differently (lib/gemm's direct path for one to four rows).
	scale := 0.0
	for _, g := range g1 {
		scale = math.Max(scale, math.Abs(float64(g)))
	}
	if d := maxAbsDiff(g1, g2); d > 1e-4*scale {
		t.Errorf("gradients differ by %g (largest gradient %g)", d, scale)
	}
	ref, _, _ := m.LogProbs(seqs, nil)
	for i := range ref {
		if d := maxAbsDiff(ref[i], lp[i]); d != 0 {
			t.Errorf("seq %d: log-probs differ by %g", i, d)
		}
	}
	if err := m.Backward(seqs, w[:1]); err == nil {
		t.Error("mismatched weights accepted")
	}
}

// TestConcurrentDecoders: decoders sharing one model in parallel give the
// same logits as one after the other.
func TestConcurrentDecoders(t *testing.T) {
	cfg := testConfig(true)
	m := randomModel(t, cfg, 6)
	seqs := randomSeqs(10, cfg.VocabSize, 12, 12, 12, 12)
	run := func(s []int32) []float32 {
		d := m.NewDecoder()
		var all []float32
		for _, tok := range s {
			l, err := d.Append([]int32{tok})
			if err != nil {
				panic(err)
			}
			all = append(all, l...)
		}
		return all
	}
	want := make([][]float32, len(seqs))
	for i, s := range seqs {
		want[i] = run(s)
	}
	got := make([][]float32, len(seqs))
	done := make(chan int)
	for i, s := range seqs {
		go func() { got[i] = run(s); done <- i }()
	}
	for range seqs {
		<-done
	}
	for i := range seqs {
		if d := maxAbsDiff(want[i], got[i]); d != 0 {
			t.Errorf("decoder %d differs by %g when run concurrently", i, d)
		}
	}
}

// TestAppendBatchGOMAXPROCSIndependent decodes batches of 1 to 16
// decoders (ragged contexts, one-token steps and a multi-token chunk) under
// GOMAXPROCS 1, 2 and 3 on a configuration large enough that the matrix
// products, the decoders' attention and the heads within one decoder take
// their parallel paths, and requires bit-identical logits.
func TestAppendBatchGOMAXPROCSIndependent(t *testing.T) {
	// lm_head 4200 x 128: the direct path splits it (n*k >= directParallelMin)
	// and so does the blocked path from 2 rows (m*n*k >= parallelMinWork).
	cfg := base(4200, 128, 2, 4, 2, 384)
	cfg.MaxPositionEmbeddings = 512
	run := func(procs int) []uint32 {
		old := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(old)
		m := randomModel(t, cfg, 21)
		var bits []uint32
		for _, B := range []int{1, 2, 3, 4, 5, 8, 16} {
			lens := make([]int, B)
			for i := range lens {
				lens[i] = 60 + 37*i%200
			}
			seqs := randomSeqs(uint64(B), cfg.VocabSize, lens...)
			decs := make([]*Decoder, B)
			for i := range decs {
				decs[i] = m.NewDecoder()
				if _, err := decs[i].Append(seqs[i][:len(seqs[i])-24]); err != nil {
					t.Fatal(err)
				}
			}
			chunks := make([][]int32, B)
			for step := 0; step < 4; step++ {
				for i, s := range seqs {
					n := decs[i].Len()
					chunks[i] = s[n : n+1]
					if step == 3 && i%2 == 0 {
						chunks[i] = s[n : n+20] // a chunk: rows x keys large enough to split heads
					}
				}
				out, err := m.AppendBatch(decs, chunks)
				if err != nil {
					t.Fatal(err)
				}
				for _, l := range out {
					for _, v := range l {
						bits = append(bits, math.Float32bits(v))
					}
				}
			}
		}
		return bits
	}
	want := run(1)
	for _, procs := range []int{2, 3} {
		got := run(procs)
		if len(got) != len(want) {
			t.Fatalf("GOMAXPROCS %d: %d logits, want %d", procs, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("GOMAXPROCS %d: batched logit %d differs from GOMAXPROCS 1", procs, i)
			}
		}
	}
}

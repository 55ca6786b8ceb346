package model

import (
	"fmt"
	"runtime"
	"testing"
)

// gradsOf runs Backward (or ForwardBackwardPrefix with prefix p > 0) on a
// fresh copy of the seeded model, with an adapter when lora, and returns
// every trained tensor's gradient.
func gradsOf(t testing.TB, cfg Config, lora, recompute bool, p int, seqs [][]int32) [][]float32 {
	t.Helper()
	m := randomModel(t, cfg, 31)
	if lora {
		randomAdapter(t, m, LoRAConfig{Rank: 3, Alpha: 6}, 8)
	}
	m.SetRecompute(recompute)
	w := make([][]float32, len(seqs))
	masks := make([][]bool, len(seqs))
	for i, s := range seqs {
		w[i] = make([]float32, len(s))
		masks[i] = make([]bool, len(s))
		for j := p + 1; j < len(s); j++ {
			w[i][j] = float32(j%3) - 1.2
			masks[i][j] = true
		}
	}
	m.ZeroGrad()
	var err error
	if p > 0 {
		_, _, err = m.ForwardBackwardPrefix(p, seqs, masks, func(i int, _, _ []float32) []float32 { return w[i] })
	} else {
		err = m.Backward(seqs, w)
	}
	if err != nil {
		t.Fatal(err)
	}
	var g [][]float32
	for _, x := range m.Trainable() {
		g = append(g, x.G)
	}
	return g
}

// TestRecomputeSameGradients: with SetRecompute the gradients of full and
// LoRA training, of whole sequences and of sequences sharing a prefix,
// are those without (bit for bit: the recomputed forward runs the same
// operations on the same inputs), and the forward keeps less.
func TestRecomputeSameGradients(t *testing.T) {
	cfg := testConfig(false)
	seqs := randomSeqs(13, cfg.VocabSize, 12, 9)
	pre := randomSeqs(14, cfg.VocabSize, 15, 15)
	copy(pre[1][:6], pre[0][:6])
	for _, lora := range []bool{false, true} {
		for _, c := range []struct {
			p    int
			seqs [][]int32
		}{{0, seqs}, {6, pre}} {
			want := gradsOf(t, cfg, lora, false, c.p, c.seqs)
			got := gradsOf(t, cfg, lora, true, c.p, c.seqs)
			nonzero := false
			for i := range want {
				if !bitsEqual(got[i], want[i]) {
					t.Errorf("lora=%v prefix %d: tensor %d's gradient differs with recompute by %g", lora, c.p, i, maxAbsDiff(got[i], want[i]))
				}
				nonzero = nonzero || maxAbsDiff(want[i], make([]float32, len(want[i]))) > 0
			}
			if !nonzero {
				t.Errorf("lora=%v prefix %d: all gradients zero", lora, c.p)
			}
		}
	}
	m := randomModel(t, cfg, 31)
	full := m.forward(seqs[0], nil, true).keptBytes()
	m.SetRecompute(true)
	kept := m.forward(seqs[0], nil, true)
	if !kept.recomputed || kept.keptBytes() >= full/3 {
		t.Errorf("recompute keeps %d bytes of activations, without %d", kept.keptBytes(), full)
	}
}

// BenchmarkRecompute measures one forward+backward of a 512-token
// sequence on the small model, full and LoRA, with and without
// recomputation. peak-act-B is the activation memory held at the
// backward's peak as counted from the buffers: what the forward kept,
// plus under recomputation the one layer recomputed at a time (the
// logits, alike in both, apart); held-B is the heap a kept forward holds
// as the Go runtime measures it (after a collection, logits included).
func BenchmarkRecompute(b *testing.B) {
	cfg := Small(6000)
	seq := randomSeqs(1, cfg.VocabSize, 512)
	w := [][]float32{make([]float32, 512)}
	for j := 1; j < 512; j++ {
		w[0][j] = -1
	}
	for _, lora := range []bool{false, true} {
		for _, rec := range []bool{false, true} {
			b.Run(fmt.Sprintf("lora=%v/recompute=%v", lora, rec), func(b *testing.B) {
				m, err := New(cfg, 1)
				if err != nil {
					b.Fatal(err)
				}
				if lora {
					if _, err := m.AddAdapter(LoRAConfig{Rank: 16, Alpha: 32}, 1); err != nil {
						b.Fatal(err)
					}
				}
				m.SetRecompute(rec)
				var ms0, ms1 runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&ms0)
				a := m.forward(seq[0], nil, true)
				runtime.GC()
				runtime.ReadMemStats(&ms1)
				held := float64(ms1.HeapAlloc) - float64(ms0.HeapAlloc)
				peak := a.keptBytes()
				if rec {
					L := m.newLayerAct(512, true)
					one := &seqAct{layers: []layerAct{L}}
					peak += one.keptBytes() + 4*512*cfg.HiddenSize // the layer and its xmid
				}
				runtime.KeepAlive(a)
				m.ZeroGrad()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := m.Backward(seq, w); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(peak), "peak-act-B")
				b.ReportMetric(held, "held-B")
				b.ReportMetric(float64(b.N*512)/b.Elapsed().Seconds(), "tokens/s")
			})
		}
	}
}

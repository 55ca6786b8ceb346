package model

import (
	"fmt"
	"testing"
)

// benchConfigs are the built-in sizes with a 6000-token vocabulary.
var benchConfigs = []struct {
	name string
	cfg  Config
}{{"tiny", Tiny(6000)}, {"small", Small(6000)}}

// BenchmarkTrain measures forward+backward over 4 sequences of 128 tokens,
// every position scored; the tokens/s metric counts input tokens.
func BenchmarkTrain(b *testing.B) {
	for _, bc := range benchConfigs {
		b.Run(bc.name, func(b *testing.B) {
			m, err := New(bc.cfg, 1)
			if err != nil {
				b.Fatal(err)
			}
			seqs := randomSeqs(1, bc.cfg.VocabSize, 128, 128, 128, 128)
			w := make([][]float32, len(seqs))
			for i := range w {
				w[i] = make([]float32, 128)
				for j := 1; j < 128; j++ {
					w[i][j] = -1
				}
			}
			m.ZeroGrad()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := m.Backward(seqs, w); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*4*128)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}

// BenchmarkDecode measures one-token-at-a-time decoding after a 64-token
// prompt: 64 steps per iteration, each step's logits sampled greedily.
func BenchmarkDecode(b *testing.B) {
	for _, bc := range benchConfigs {
		b.Run(bc.name, func(b *testing.B) {
			m, err := New(bc.cfg, 1)
			if err != nil {
				b.Fatal(err)
			}
			prompt := randomSeqs(2, bc.cfg.VocabSize, 64)[0]
			d0 := m.NewDecoder()
			logits, err := d0.Append(prompt)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				d := d0.Clone()
				l := logits
				for s := 0; s < 64; s++ {
					tok, _ := Sample(l, 0, 1, nil)
					if l, err = d.Append([]int32{tok}); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.N*64)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}

// BenchmarkPrefill measures appending a 256-token prompt in one chunk.
func BenchmarkPrefill(b *testing.B) {
	for _, bc := range benchConfigs {
		b.Run(bc.name, func(b *testing.B) {
			m, _ := New(bc.cfg, 1)
			prompt := randomSeqs(3, bc.cfg.VocabSize, 256)[0]
			for i := 0; i < b.N; i++ {
				if _, err := m.NewDecoder().Append(prompt); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*256)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}

func TestPresetSizes(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want int
	}{{Tiny(6000), 1162368}, {Small(6000), 4686080}} {
		m, err := New(c.cfg, 1)
		if err != nil {
			t.Fatal(err)
		}
		if m.NumParams() != c.want || c.cfg.NumParams() != c.want {
			t.Errorf("%d layers: %d params (config says %d), want %d", c.cfg.NumHiddenLayers, m.NumParams(), c.cfg.NumParams(), c.want)
		}
		if c.cfg.MaxPositionEmbeddings != 4096 {
			t.Errorf("max positions %d", c.cfg.MaxPositionEmbeddings)
		}
	}
	if testConfig(false).NumParams()-testConfig(true).NumParams() != 23*16 {
		t.Error("untied lm_head not counted once more")
	}
}

// BenchmarkDecodeBatch measures batched one-token decoding (AppendBatch)
// after a 128-token prompt shared by every decoder of the batch: 32 steps
// per iteration; tokens/s counts every decoder's token.
func BenchmarkDecodeBatch(b *testing.B) {
	for _, bc := range benchConfigs {
		for _, B := range []int{1, 2, 4, 8, 16, 64} {
			b.Run(fmt.Sprintf("%s/batch=%d", bc.name, B), func(b *testing.B) {
				m, err := New(bc.cfg, 1)
				if err != nil {
					b.Fatal(err)
				}
				base := m.NewDecoder()
				if _, err := base.Append(randomSeqs(4, bc.cfg.VocabSize, 128)[0]); err != nil {
					b.Fatal(err)
				}
				chunks := make([][]int32, B)
				for i := range chunks {
					chunks[i] = []int32{int32(i)}
				}
				decs := make([]*Decoder, B)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					for j := range decs {
						decs[j] = base.Clone()
					}
					b.StartTimer()
					for s := 0; s < 32; s++ {
						if _, err := m.AppendBatch(decs, chunks); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.ReportMetric(float64(b.N*32*B)/b.Elapsed().Seconds(), "tokens/s")
			})
		}
	}
}

// BenchmarkTrainPrefix measures one windowed episode's SFT step shape: 16
// sequences that share a 200-token prompt, each with a 60-token rest
// whose last 6 tokens are scored, trained with the prompt run once
// (ForwardBackwardPrefix, "shared") against each sequence whole
// (ForwardBackward, "whole"); tokens/s counts the whole sequences' tokens
// in both.
func BenchmarkTrainPrefix(b *testing.B) {
	const p, rest, n = 200, 60, 16
	cfg := Tiny(6000)
	prefix := randomSeqs(1, cfg.VocabSize, p)[0]
	var seqs [][]int32
	var masks [][]bool
	for i := 0; i < n; i++ {
		s := append(append([]int32{}, prefix...), randomSeqs(uint64(3+i), cfg.VocabSize, rest)[0]...)
		mk := make([]bool, len(s))
		for t := len(s) - 6; t < len(s); t++ {
			mk[t] = true
		}
		seqs, masks = append(seqs, s), append(masks, mk)
	}
	w := func(i int, lp, _ []float32) []float32 {
		out := make([]float32, len(lp))
		for t, on := range masks[i] {
			if on {
				out[t] = -1
			}
		}
		return out
	}
	for _, shared := range []bool{true, false} {
		name := map[bool]string{true: "shared", false: "whole"}[shared]
		b.Run(name, func(b *testing.B) {
			m, err := New(cfg, 1)
			if err != nil {
				b.Fatal(err)
			}
			m.ZeroGrad()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if shared {
					_, _, err = m.ForwardBackwardPrefix(p, seqs, masks, w)
				} else {
					_, _, err = m.ForwardBackward(seqs, masks, w)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*n*(p+rest))/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}

// Command e2e measures the model end to end on this machine: training
// tokens per second (forward and backward) and model FLOP utilisation for
// the built-in sizes, and decoding tokens per second per batch size. It
// prints Markdown tables; bench/run.sh puts them into bench/results.md.
//
// FLOPs per trained token are counted as 6 x parameters (every weight used
// once forward and twice backward, lm_head included) plus 12 x layers x
// hidden x context for attention scores and values. Peak is cores x clock x
// FLOP per cycle: 64 with AVX-512 (two 16-wide FMA units), else 32 (two
// 8-wide AVX2 FMA units), read from /proc/cpuinfo. The clock there is the
// listed one, and cores that boost above it make that ceiling too low, so
// the tables also give every figure against the measured matrix peak: the
// best GFLOP/s of our own 512 x 512 x 512 product on all cores in this run.
//
// FLOPs per decoded token are counted as 2 x parameters plus 4 x layers x
// hidden x context (scores and values over the KV cache), at the mean
// context of the measurement (the 128-token prompt plus half of the 256
// steps after which the caches are reset). Decoding visits the batch sizes
// in turn for -rounds rounds and keeps each size's best round, so that a
// change of load on a shared machine does not favour one size.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/pats-rl/pats/lib/gemm"
	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/tokenizer"
)

func main() {
	minTime := flag.Duration("time", 3*time.Second, "minimum time per measurement")
	rounds := flag.Int("rounds", 3, "decoding: rounds over the batch sizes (the best of each size is kept)")
	decodeOnly := flag.Bool("decode-only", false, "only the decoding table")
	flag.Parse()
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	vocab := tok.VocabSize()
	peak := peakGFLOPs()
	measured := matrixPeak(*minTime)
	fmt.Printf("Built-in vocabulary %d; GOMAXPROCS %d; peak assumed %.0f GFLOP/s (cores x listed clock x FLOP per cycle of the widest FMA units); measured matrix peak %.0f GFLOP/s (our 512^3 product, this run).\n\n", vocab, runtime.GOMAXPROCS(0), peak, measured)
	sizes := []struct {
		name string
		cfg  model.Config
	}{{"tiny", model.Tiny(vocab)}, {"small", model.Small(vocab)}}
	if !*decodeOnly {
		fmt.Println("| model | parameters | sequences x length | train tokens/s | GFLOP/s | MFU (assumed peak) | share of measured matrix peak |")
		fmt.Println("| --- | ---: | --- | ---: | ---: | ---: | ---: |")
		for _, s := range sizes {
			const nseq, T = 8, 256
			m, err := model.New(s.cfg, 1)
			if err != nil {
				fmt.Fprintln(os.Stderr, "e2e:", err)
				os.Exit(1)
			}
			seqs, masks := randomBatch(vocab, nseq, T)
			weights := func(i int, lp, ent []float32) []float32 {
				w := make([]float32, len(lp))
				for j := 1; j < len(w); j++ {
					w[j] = -1 / float32(nseq*(T-1))
				}
				return w
			}
			run := func() {
				m.ZeroGrad()
				if _, _, err := m.ForwardBackward(seqs, masks, weights); err != nil {
					fmt.Fprintln(os.Stderr, "e2e:", err)
					os.Exit(1)
				}
			}
			run()
			n, el := repeat(*minTime, run)
			tps := float64(n*nseq*T) / el.Seconds()
			c := s.cfg
			flops := 6*float64(m.NumParams()) + 12*float64(c.NumHiddenLayers*c.HiddenSize)*float64(T)/2
			g := tps * flops / 1e9
			fmt.Printf("| %s | %d | %d x %d | %.0f | %.1f | %.1f%% | %.1f%% |\n", s.name, m.NumParams(), nseq, T, tps, g, 100*g/peak, 100*g/measured)
		}
	}
	fmt.Println()
	fmt.Println("| model | batch | decode tokens/s (after a 128-token prompt) | GFLOP/s | share of assumed peak | share of measured matrix peak |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: |")
	for _, s := range sizes {
		m, _ := model.New(s.cfg, 1)
		c := s.cfg
		const meanContext = 128 + 256/2
		flops := 2*float64(m.NumParams()) + 4*float64(c.NumHiddenLayers*c.HiddenSize)*meanContext
		for i, tps := range decodeRates(m, vocab, *minTime, *rounds) {
			g := tps * flops / 1e9
			fmt.Printf("| %s | %d | %.0f | %.1f | %.1f%% | %.1f%% |\n", s.name, decodeBatches[i], tps, g, 100*g/peak, 100*g/measured)
		}
	}
}

// decodeBatches are the batch sizes of the decoding table.
var decodeBatches = []int{1, 2, 4, 8, 16, 64}

// decodeRates measures batched one-token decoding after a 128-token prompt
// at every batch size of decodeBatches, in rounds that visit the sizes in
// turn (each for min/rounds), so that a change of load shifts every size
// alike; it returns the best tokens per second of each size over the
// rounds.
func decodeRates(m *model.Model, vocab int, min time.Duration, rounds int) []float64 {
	prompt, _ := randomBatch(vocab, 1, 128)
	base := m.NewDecoder()
	if _, err := base.Append(prompt[0]); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	best := make([]float64, len(decodeBatches))
	for r := 0; r < rounds; r++ {
		for bi, B := range decodeBatches {
			decs := make([]*model.Decoder, B)
			chunks := make([][]int32, B)
			for i := range decs {
				decs[i] = base.Clone()
				chunks[i] = []int32{int32(i % vocab)}
			}
			steps := 0
			n, el := repeat(min/time.Duration(rounds), func() {
				if steps == 256 { // keep the context bounded
					for i := range decs {
						decs[i] = base.Clone()
					}
					steps = 0
				}
				if _, err := m.AppendBatch(decs, chunks); err != nil {
					fmt.Fprintln(os.Stderr, "e2e:", err)
					os.Exit(1)
				}
				steps++
			})
			best[bi] = max(best[bi], float64(n*B)/el.Seconds())
		}
	}
	return best
}

// matrixPeak is the best GFLOP/s of gemm.Sgemm on a 512 x 512 x 512
// product over rounds of about min/4 each.
func matrixPeak(min time.Duration) float64 {
	const n = 512
	a, b, c := make([]float32, n*n), make([]float32, n*n), make([]float32, n*n)
	for i := range a {
		a[i], b[i] = float32(i%7)/7, float32(i%5)/5
	}
	best := 0.0
	for round := 0; round < 4; round++ {
		k, el := repeat(min/4, func() { gemm.Sgemm(false, false, n, n, n, 1, a, n, b, n, 0, c, n) })
		if g := float64(k) * 2 * n * n * n / el.Seconds() / 1e9; g > best {
			best = g
		}
	}
	return best
}

func randomBatch(vocab, n, T int) ([][]int32, [][]bool) {
	r := rand.New(rand.NewPCG(1, 2))
	seqs := make([][]int32, n)
	masks := make([][]bool, n)
	for i := range seqs {
		seqs[i] = make([]int32, T)
		masks[i] = make([]bool, T)
		for j := range seqs[i] {
			seqs[i][j] = int32(r.IntN(vocab))
			masks[i][j] = j > 0
		}
	}
	return seqs, masks
}

func repeat(min time.Duration, f func()) (int, time.Duration) {
	start := time.Now()
	n := 0
	for time.Since(start) < min || n < 2 {
		f()
		n++
	}
	return n, time.Since(start)
}

func peakGFLOPs() float64 {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	mhz, perCycle := 0.0, 32.0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "cpu MHz":
			if mhz == 0 {
				mhz, _ = strconv.ParseFloat(strings.TrimSpace(v), 64)
			}
		case "flags":
			if strings.Contains(v, " avx512f") {
				perCycle = 64
			}
		}
	}
	return float64(runtime.GOMAXPROCS(0)) * mhz / 1000 * perCycle
}

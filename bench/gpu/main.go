//go:build cuda

// Command gpubench measures the CUDA backend (libpatscuda.so) on the GPU
// it finds and writes Markdown (bench/gpu.md): training tokens/s and MFU
// for the Qwen2.5-0.5B and 1.5B shapes, decoding tokens/s at batch 1 to
// 256, one GRPO iteration split into rollout and update, the device
// memory a model of each size holds, and (issue 60, lora.go) the memory
// and tokens/s of LoRA and full updates over a BF16 base with recomputed
// activations at the 1.5B, 7B and Qwen3-8B shapes. Models have random weights; token ids
// are random. It stops starting new measurements when its time budget
// (-budget) is spent.
//
// Build: make gpu-tests (go build -tags cuda -o build/gpu/gpubench
// ./bench/gpu). Run: PATS_CUDA_LIB=bin/libpatscuda.so build/gpu/gpubench
// -o bench/gpu.md.
package main

import (
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/pats-rl/pats/lib/device"
	"github.com/pats-rl/pats/lib/model"
)

// Peak figures of an H200 SXM (NVIDIA's data sheet): dense BF16 tensor
// throughput (989 TFLOP/s, 1979 with 2:4 sparsity, which nothing here
// uses) and HBM3e bandwidth (4.8 TB/s).
const (
	peakBF16  = 989e12
	peakBytes = 4.8e12
)

type shape struct {
	name string
	cfg  model.Config
}

func qwen(vocab, hidden, inter, layers, heads, kv int, tied bool) model.Config {
	c := model.Tiny(vocab)
	c.HiddenSize, c.IntermediateSize, c.NumHiddenLayers = hidden, inter, layers
	c.NumAttentionHeads, c.NumKeyValueHeads = heads, kv
	c.MaxPositionEmbeddings, c.RopeTheta, c.TieWordEmbeddings = 32768, 1e6, tied
	return c
}

var shapes = []shape{
	{"Qwen2.5-0.5B", qwen(151936, 896, 4864, 24, 14, 2, true)},
	{"Qwen2.5-1.5B", qwen(151936, 1536, 8960, 28, 12, 2, true)},
	{"Qwen2.5-3B", qwen(151936, 2048, 11008, 36, 16, 2, true)},
	{"Qwen2.5-7B", qwen(152064, 3584, 18944, 28, 28, 4, false)},
}

// sizes lists the parameter tensors' element counts in Params order and
// whether each is a norm weight (set to 1); Qwen3 (QKNorm) has its head
// norms where Qwen2 has the q, k and v biases.
func sizes(c model.Config) (n []int, norm []bool) {
	h, q, kv, in, v, hd := c.HiddenSize, c.QDim(), c.KVDim(), c.IntermediateSize, c.VocabSize, c.HeadDim()
	add := func(k int, isNorm bool) { n, norm = append(n, k), append(norm, isNorm) }
	add(v*h, false)
	for l := 0; l < c.NumHiddenLayers; l++ {
		add(h, true)
		add(q*h, false)
		if c.QKNorm() {
			add(hd, true)
			add(kv*h, false)
			add(hd, true)
			add(kv*h, false)
		} else {
			add(q, false)
			add(kv*h, false)
			add(kv, false)
			add(kv*h, false)
			add(kv, false)
		}
		add(h*q, false)
		add(h, true)
		add(in*h, false)
		add(in*h, false)
		add(h*in, false)
	}
	add(h, true)
	if !c.TieWordEmbeddings {
		add(v*h, false)
	}
	return n, norm
}

// newModel makes a device model with small random weights (one random
// buffer, its prefixes uploaded to every tensor; norm weights 1).
func newModel(d *device.Device, c model.Config) (model.Accelerator, error) {
	acc, err := d.NewModel(c)
	if err != nil {
		return nil, err
	}
	return acc, upload(acc, c, nil)
}

// upload sets every tensor of acc: the base's (sizes), then, when extra
// is given, the extra tensors of those sizes (a LoRA adapter's), from the
// same random buffer.
func upload(acc model.Accelerator, c model.Config, extra []int) error {
	n, norm := sizes(c)
	for _, k := range extra {
		n, norm = append(n, k), append(norm, false)
	}
	big := 0
	for _, k := range n {
		big = max(big, k)
	}
	buf := make([]float32, big)
	x := uint64(0x9e3779b97f4a7c15)
	for i := range buf {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		buf[i] = (float32(x>>40)/float32(1<<24) - 0.5) * 0.04
	}
	ones := make([]float32, max(c.HiddenSize, c.HeadDim()))
	for i := range ones {
		ones[i] = 1
	}
	for i, k := range n {
		src := buf[:k]
		if norm[i] {
			src = ones[:k]
		}
		if err := acc.SetParam(i, src); err != nil {
			acc.Close()
			return err
		}
	}
	return nil
}

func randTokens(rng *rand.Rand, n, vocab int) []int32 {
	t := make([]int32, n)
	for i := range t {
		t[i] = int32(rng.IntN(vocab))
	}
	return t
}

// step is one training step over seqs (every position scored): forward
// with activations kept, backward of the mean log-likelihood, gradient
// clipping, AdamW.
func step(acc model.Accelerator, seqs [][]int32, nparams int) error {
	if err := acc.ZeroGrad(); err != nil {
		return err
	}
	for _, s := range seqs {
		T := len(s)
		rows, targets := make([]int32, T-1), make([]int32, T-1)
		for i := range rows {
			rows[i], targets[i] = int32(i), s[i+1]
		}
		lp := make([]float32, T-1)
		if err := acc.Forward(s, rows, targets, lp, nil, true); err != nil {
			return err
		}
		dlp := make([]float32, T-1)
		for i := range dlp {
			dlp[i] = -1 / float32(T-1)
		}
		if err := acc.Backward(dlp); err != nil {
			return err
		}
	}
	if _, err := acc.ClipGradNorm(1); err != nil {
		return err
	}
	decay := make([]bool, nparams)
	for i := range decay {
		decay[i] = true
	}
	return acc.AdamW(model.AdamWStep{LR: 1e-5, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, WeightDecay: 0.01, BC1: 0.1, BC2: 0.001}, decay)
}

type bench struct {
	d        *device.Device
	w        io.Writer
	deadline time.Time
	rng      *rand.Rand
}

func (b *bench) left() time.Duration { return time.Until(b.deadline) }

func gib(x int64) string { return fmt.Sprintf("%.2f GiB", float64(x)/(1<<30)) }

// memory: bytes held by a fresh model of each size.
func (b *bench) memory() {
	fmt.Fprintf(b.w, "## Device memory per model size\n\n")
	fmt.Fprintf(b.w, "Bytes the device model holds right after it is made (pc_model_memory: FP32 parameters, gradients and two AdamW moments, scratch), before any activation or KV cache.\n\n")
	fmt.Fprintf(b.w, "| shape | parameters | 16 bytes per parameter | held |\n| --- | ---: | ---: | ---: |\n")
	for _, s := range shapes {
		if b.left() < 20*time.Second {
			fmt.Fprintf(b.w, "| %s | %.2fB | | not measured (time budget) |\n", s.name, float64(s.cfg.NumParams())/1e9)
			continue
		}
		acc, err := b.d.NewModel(s.cfg)
		held := ""
		if err != nil {
			held = "does not fit: " + strings.ReplaceAll(err.Error(), "|", "/")
		} else {
			m, err := acc.Memory()
			if err != nil {
				held = err.Error()
			} else {
				held = gib(m)
			}
			acc.Close()
		}
		fmt.Fprintf(b.w, "| %s | %.2fB | %s | %s |\n", s.name, float64(s.cfg.NumParams())/1e9, gib(16*int64(s.cfg.NumParams())), held)
	}
	fmt.Fprintln(b.w)
}

// train: tokens/s and MFU of whole training steps.
func (b *bench) train(seqLen, batch int, budget time.Duration) {
	fmt.Fprintf(b.w, "## Training\n\n")
	fmt.Fprintf(b.w, "One step: %d sequences of %d tokens, every position scored, forward with activations kept, backward, gradient clipping, AdamW. "+
		"FLOPs per token 6N + 12 L H T (N parameters with the tied head counted once, L layers, H hidden, T sequence length; the count llm.c uses). "+
		"MFU against the H200's dense BF16 peak of %.0f TFLOP/s.\n\n", batch, seqLen, peakBF16/1e12)
	fmt.Fprintf(b.w, "| shape | steps timed | tokens/s | TFLOP/s | MFU | memory after a step |\n| --- | ---: | ---: | ---: | ---: | ---: |\n")
	for _, s := range shapes[:2] {
		if b.left() < budget/2 {
			fmt.Fprintf(b.w, "| %s | not measured (time budget) | | | | |\n", s.name)
			continue
		}
		c := s.cfg
		acc, err := newModel(b.d, c)
		if err != nil {
			fmt.Fprintf(b.w, "| %s | failed: %v | | | | |\n", s.name, err)
			continue
		}
		np := len(mustSizes(c))
		seqs := make([][]int32, batch)
		for i := range seqs {
			seqs[i] = randTokens(b.rng, seqLen, c.VocabSize)
		}
		if err := step(acc, seqs, np); err != nil { // warm-up
			fmt.Fprintf(b.w, "| %s | failed: %v | | | | |\n", s.name, err)
			acc.Close()
			continue
		}
		mem, _ := acc.Memory()
		start := time.Now()
		n := 0
		var serr error
		for n < 20 && time.Since(start) < budget && b.left() > 10*time.Second {
			if serr = step(acc, seqs, np); serr != nil {
				break
			}
			n++
		}
		el := time.Since(start).Seconds()
		acc.Close()
		if serr != nil || n == 0 {
			fmt.Fprintf(b.w, "| %s | failed after %d steps: %v | | | | |\n", s.name, n, serr)
			continue
		}
		tps := float64(n*batch*seqLen) / el
		flops := 6*float64(c.NumParams()) + 12*float64(c.NumHiddenLayers*c.HiddenSize*seqLen)
		fmt.Fprintf(b.w, "| %s | %d | %.0f | %.1f | %.1f%% | %s |\n", s.name, n, tps, tps*flops/1e12, 100*tps*flops/peakBF16, gib(mem))
	}
	fmt.Fprintln(b.w)
}

func mustSizes(c model.Config) []int {
	n, _ := sizes(c)
	return n
}

// decodeRate appends a prompt of prompt tokens to each of batch decoders,
// then times steps of one token per decoder drawn greedily on the device.
func decodeRate(acc model.Accelerator, rng *rand.Rand, vocab, batch, prompt, steps int, s model.Sampling) (float64, error) {
	decs := make([]model.DeviceDecoder, batch)
	for i := range decs {
		d, err := acc.NewDecoder(prompt + steps + 1)
		if err != nil {
			return 0, err
		}
		decs[i] = d
	}
	tokens := randTokens(rng, batch*prompt, vocab)
	off := make([]int32, batch+1)
	for i := range off {
		off[i] = int32(i * prompt)
	}
	u := make([]float64, batch)
	tok := make([]int32, batch)
	logp := make([]float32, batch)
	if err := acc.AppendBatch(decs, tokens, off, nil, &s, u, tok, logp); err != nil {
		return 0, err
	}
	for i := range off {
		off[i] = int32(i)
	}
	start := time.Now()
	for k := 0; k < steps; k++ {
		for i := range u {
			u[i] = rng.Float64()
		}
		next := append([]int32(nil), tok...)
		if err := acc.AppendBatch(decs, next, off, nil, &s, u, tok, logp); err != nil {
			return 0, err
		}
	}
	return float64(batch*steps) / time.Since(start).Seconds(), nil
}

// decode: tokens/s at batch 1 to 256.
func (b *bench) decode(budget time.Duration) {
	fmt.Fprintf(b.w, "## Decoding\n\n")
	fmt.Fprintf(b.w, "Each decoder holds a 128-token prompt, then 64 steps of one token per decoder, drawn greedily on the device (pc_append_batch with pc_sampling; no logits to the host). "+
		"Weight traffic assumes each BF16 weight is read once per step (2N bytes), against the H200's %.1f TB/s.\n\n", peakBytes/1e12)
	fmt.Fprintf(b.w, "| shape | batch | tokens/s | weight traffic at that rate | share of bandwidth |\n| --- | ---: | ---: | ---: | ---: |\n")
	for _, s := range shapes[:2] {
		c := s.cfg
		acc, err := newModel(b.d, c)
		if err != nil {
			fmt.Fprintf(b.w, "| %s | | failed: %v | | |\n", s.name, err)
			continue
		}
		for _, batch := range []int{1, 2, 4, 8, 16, 32, 64, 128, 256} {
			if b.left() < budget/4 {
				fmt.Fprintf(b.w, "| %s | %d | not measured (time budget) | | |\n", s.name, batch)
				continue
			}
			tps, err := decodeRate(acc, b.rng, c.VocabSize, batch, 128, 64, model.Sampling{Temperature: 0, TopP: 1})
			if err != nil {
				fmt.Fprintf(b.w, "| %s | %d | failed: %v | | |\n", s.name, batch, err)
				continue
			}
			runtime.GC() // the decoders of the last batch size free their caches
			steps := tps / float64(batch)
			bytes := steps * 2 * float64(c.NumParams())
			fmt.Fprintf(b.w, "| %s | %d | %.0f | %.2f TB/s | %.0f%% |\n", s.name, batch, tps, bytes/1e12, 100*bytes/peakBytes)
		}
		acc.Close()
	}
	fmt.Fprintln(b.w)
}

// grpo: one iteration of 8 tasks x 8 samples on the 0.5B shape: rollout
// (a 256-token prompt per task decoded once and cloned per sample, then
// 128 tokens per sample drawn at temperature 1, top-p 0.95, all 64
// decoders in one batch) and update (forward and backward of the 64
// sequences of 384 tokens, clipping, AdamW).
func (b *bench) grpo() {
	fmt.Fprintf(b.w, "## One GRPO iteration (Qwen2.5-0.5B shape)\n\n")
	if b.left() < 30*time.Second {
		fmt.Fprintf(b.w, "Not measured (time budget).\n\n")
		return
	}
	c := shapes[0].cfg
	acc, err := newModel(b.d, c)
	if err != nil {
		fmt.Fprintf(b.w, "Failed: %v\n\n", err)
		return
	}
	defer acc.Close()
	const tasks, group, prompt, answer = 8, 8, 256, 128
	start := time.Now()
	var decs []model.DeviceDecoder
	var seqs [][]int32
	for k := 0; k < tasks; k++ {
		p := randTokens(b.rng, prompt, c.VocabSize)
		head, err := acc.NewDecoder(prompt + answer + 1)
		if err != nil {
			fmt.Fprintf(b.w, "Failed: %v\n\n", err)
			return
		}
		if err := acc.AppendBatch([]model.DeviceDecoder{head}, p, []int32{0, prompt}, make([]float32, c.VocabSize), nil, nil, nil, nil); err != nil {
			fmt.Fprintf(b.w, "Failed: %v\n\n", err)
			return
		}
		for g := 0; g < group; g++ {
			d, err := head.Clone()
			if err != nil {
				fmt.Fprintf(b.w, "Failed: %v\n\n", err)
				return
			}
			decs = append(decs, d)
			seqs = append(seqs, append([]int32(nil), p...))
		}
	}
	n := len(decs)
	off := make([]int32, n+1)
	for i := range off {
		off[i] = int32(i)
	}
	s := model.Sampling{Temperature: 1, TopP: 0.95}
	u := make([]float64, n)
	tok := randTokens(b.rng, n, c.VocabSize)
	logp := make([]float32, n)
	for k := 0; k < answer; k++ {
		for i := range u {
			u[i] = b.rng.Float64()
		}
		next := append([]int32(nil), tok...)
		for i := range seqs {
			seqs[i] = append(seqs[i], next[i])
		}
		if err := acc.AppendBatch(decs, next, off, nil, &s, u, tok, logp); err != nil {
			fmt.Fprintf(b.w, "Failed: %v\n\n", err)
			return
		}
	}
	roll := time.Since(start).Seconds()
	start = time.Now()
	if err := step(acc, seqs, len(mustSizes(c))); err != nil {
		fmt.Fprintf(b.w, "Failed: %v\n\n", err)
		return
	}
	upd := time.Since(start).Seconds()
	mem, _ := acc.Memory()
	fmt.Fprintf(b.w, "%d tasks x %d samples, %d-token prompts decoded once per task and cloned, %d tokens drawn per sample (temperature 1, top-p 0.95, on the device); "+
		"the update is one step over the %d sequences of %d tokens. Random weights and tokens; no environment.\n\n", tasks, group, prompt, answer, n, prompt+answer)
	fmt.Fprintf(b.w, "| part | seconds | tokens/s |\n| --- | ---: | ---: |\n")
	fmt.Fprintf(b.w, "| rollout | %.2f | %.0f (drawn) |\n", roll, float64(n*answer)/roll)
	fmt.Fprintf(b.w, "| update | %.2f | %.0f (trained) |\n", upd, float64(n*(prompt+answer))/upd)
	fmt.Fprintf(b.w, "| iteration | %.2f | |\n\n", roll+upd)
	fmt.Fprintf(b.w, "Device memory after the iteration: %s.\n\n", gib(mem))
}

func main() {
	out := flag.String("o", "", "write the Markdown here (default stdout)")
	budget := flag.Duration("budget", 4*time.Minute, "stop starting measurements after this long")
	flag.Parse()
	d, err := device.Open(device.CUDA)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gpubench: %v\n", err)
		os.Exit(2)
	}
	var sb strings.Builder
	b := &bench{d: d, w: &sb, deadline: time.Now().Add(*budget), rng: rand.New(rand.NewPCG(1, 2))}
	t0 := time.Now()
	// The file is rewritten after every section, so that a run stopped
	// from outside leaves what it measured.
	flush := func() {
		if *out == "" {
			return
		}
		if err := os.WriteFile(*out, []byte(sb.String()), 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "gpubench: %v\n", err)
			os.Exit(1)
		}
	}
	fmt.Fprintf(&sb, "# GPU benchmark\n\n")
	fmt.Fprintf(&sb, "Made by `build/gpu/gpubench` (bench/gpu/main.go) through libpatscuda.so on %s. Random weights and token ids.\n\n", d)
	// issue 60's LoRA and recompute figures come first: the earlier
	// sections' figures are already on record from earlier runs.
	for _, section := range []func(){b.memory, func() { b.lora(*budget * 2 / 3) }, func() { b.train(1024, 8, *budget/4) }, func() { b.decode(*budget) }, b.grpo} {
		section()
		flush()
	}
	fmt.Fprintf(&sb, "Total time %.0f s (budget %s).\n", time.Since(t0).Seconds(), *budget)
	if *out == "" {
		fmt.Print(sb.String())
		return
	}
	flush()
}

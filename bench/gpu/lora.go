//go:build cuda

package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/pats-rl/pats/lib/model"
)

// loraRank is the adapter rank of the memory table (docs/real-models.md).
const loraRank = 64

// qwen3x8b is Qwen3-8B's shape: hidden 4,096, intermediate 12,288, 36
// layers, 32 heads and 8 key/value heads of 128, vocabulary 151,936,
// untied, query and key head norms.
func qwen3x8b() model.Config {
	c := qwen(151936, 4096, 12288, 36, 32, 8, false)
	c.ModelType, c.Architectures, c.HeadDimension = model.Qwen3, []string{"Qwen3ForCausalLM"}, 128
	return c
}

// adapterSizes are the element counts of a rank-r adapter on every
// projection, in the device's order (per layer, q k v o gate up down, A
// then B).
func adapterSizes(c model.Config, r int) []int {
	h, q, kv, in := c.HiddenSize, c.QDim(), c.KVDim(), c.IntermediateSize
	io := [][2]int{{h, q}, {h, kv}, {h, kv}, {q, h}, {h, in}, {h, in}, {in, h}} // in, out
	var n []int
	for l := 0; l < c.NumHiddenLayers; l++ {
		for _, p := range io {
			n = append(n, r*p[0], p[1]*r)
		}
	}
	return n
}

// loraRun is one row of the LoRA section: a shape, full or LoRA, with or
// without recompute.
type loraRun struct {
	name      string
	cfg       model.Config
	lora      bool
	recompute bool
	speed     bool // time steps after the first (else memory only)
}

// lora: the device memory a LoRA update holds (rank 64 on every
// projection, BF16 base, recompute on, 8 sequences of 1,024 tokens) at the
// 7B and Qwen3-8B shapes, and tokens/s of full and LoRA updates at the
// 1.5B and 7B shapes, each against Config.PlanMemory's figure.
func (b *bench) lora(budget time.Duration) {
	const batch, seqLen = 8, 1024
	fmt.Fprintf(b.w, "## LoRA, a BF16 frozen base and recomputed activations (issue 60)\n\n")
	fmt.Fprintf(b.w, "One update: %d sequences of %d tokens, every position scored, forward, backward, clipping, AdamW. "+
		"LoRA: rank %d on q, k, v, o, gate, up and down of every layer, the base frozen in BF16 (2 bytes a parameter), the adapters with FP32 masters, gradients and moments. "+
		"Recompute: each layer's input kept, the layer's forward run again in the backward. "+
		"Held: pc_model_memory after the first step; planned: Config.PlanMemory (docs/real-models.md's update table). "+
		"Tokens/s over the steps after the first.\n\n", batch, seqLen, loraRank)
	fmt.Fprintf(b.w, "| shape | update | recompute | trained parameters | planned | held after a step | steps timed | tokens/s |\n| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |\n")
	q15, q7 := shapes[1].cfg, shapes[3].cfg
	runs := []loraRun{
		{"Qwen2.5-7B", q7, true, true, true},
		{"Qwen3-8B shape", qwen3x8b(), true, true, false},
		{"Qwen2.5-1.5B", q15, true, true, true},
		{"Qwen2.5-1.5B", q15, false, false, true},
		{"Qwen2.5-7B", q7, false, true, true},
	}
	start := time.Now()
	for i, r := range runs {
		share := (budget - time.Since(start)) / time.Duration(len(runs)-i)
		mode, rec := "full", "off"
		if r.lora {
			mode = fmt.Sprintf("LoRA r%d", loraRank)
		}
		if r.recompute {
			rec = "on"
		}
		plan := r.cfg.PlanMemory(model.TrainPlan{LoRARank: map[bool]int{true: loraRank}[r.lora], Recompute: r.recompute, SeqTokens: seqLen})
		trained := fmt.Sprintf("%.2f B", plan.Params/1e9)
		if r.lora {
			trained = fmt.Sprintf("%.1f M", plan.AdapterParams/1e6)
		}
		row := fmt.Sprintf("| %s | %s | %s | %s | %s |", r.name, mode, rec, trained, gib(int64(plan.Total)))
		if b.left() < 30*time.Second {
			fmt.Fprintf(b.w, "%s not measured (time budget) | | |\n", row)
			continue
		}
		held, steps, tps := b.loraRow(r, batch, seqLen, share)
		fmt.Fprintf(b.w, "%s %s | %s | %s |\n", row, held, steps, tps)
	}
	fmt.Fprintln(b.w)
}

// loraRow measures one run: the memory held after a first step, then
// steps timed within share.
func (b *bench) loraRow(r loraRun, batch, seqLen int, share time.Duration) (held, steps, tps string) {
	c := r.cfg
	var acc model.Accelerator
	var err error
	var extra []int
	if r.lora {
		acc, err = b.d.NewLoRAModel(c, model.LoRAConfig{Rank: loraRank, Alpha: 2 * loraRank})
		extra = adapterSizes(c, loraRank)
	} else {
		acc, err = b.d.NewModel(c)
	}
	if err == nil {
		err = upload(acc, c, extra)
	}
	if err != nil {
		return "does not fit: " + strings.ReplaceAll(err.Error(), "|", "/"), "", ""
	}
	defer acc.Close()
	if rc, ok := acc.(model.RecomputeAccelerator); ok {
		rc.SetRecompute(r.recompute)
	} else if r.recompute {
		return "the device model does not recompute", "", ""
	}
	nt := len(mustSizes(c)) + len(extra)
	seqs := make([][]int32, batch)
	for i := range seqs {
		seqs[i] = randTokens(b.rng, seqLen, c.VocabSize)
	}
	t0 := time.Now()
	if err := step(acc, seqs, nt); err != nil {
		return "failed: " + strings.ReplaceAll(err.Error(), "|", "/"), "", ""
	}
	first := time.Since(t0)
	mem, err := acc.Memory()
	if err != nil {
		return err.Error(), "", ""
	}
	held = gib(mem)
	if !r.speed {
		return held, "", ""
	}
	start := time.Now()
	n := 0
	for n < 10 && time.Since(start)+first < share && b.left() > 10*time.Second {
		if err := step(acc, seqs, nt); err != nil {
			return held, fmt.Sprintf("failed after %d: %v", n, err), ""
		}
		n++
	}
	if n == 0 {
		return held, "0 (time budget)", ""
	}
	return held, fmt.Sprint(n), fmt.Sprintf("%.0f", float64(n*batch*seqLen)/time.Since(start).Seconds())
}

package model

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The update memory table of docs/real-models.md (issue 60), recomputed
// from Config.PlanMemory for each Qwen2.5-Instruct size and a Qwen3-8B
// shape, full training and LoRA of rank 64 on all seven projections,
// without and with recompute, for a step of 8 sequences of 1,024 tokens
// (sequences run one at a time: the activations are one sequence's).

// qwen3Shape is Qwen3-8B's published shape (vocabulary 151,936, hidden
// 4,096, intermediate 12,288, 36 layers, 32 heads, 8 key/value heads of
// 128, untied, no attention biases, RMSNorm on each query and key head).
var qwen3Shape = func() Config {
	c := qwenShape(151936, 4096, 12288, 36, 32, 8, false)
	c.ModelType, c.HeadDimension = Qwen3, 128
	return c
}()

func updateRow(name, mode string, c Config, p TrainPlan) string {
	gb := func(b float64) string { return fmt.Sprintf("%.1f GB", b/1e9) }
	a := c.PlanMemory(p)
	p.Recompute = true
	r := c.PlanMemory(p)
	trained := fmt.Sprintf("%.2f B", a.Params/1e9)
	if p.LoRARank > 0 {
		trained = fmt.Sprintf("%.1f M", a.AdapterParams/1e6)
	}
	return fmt.Sprintf("| %s | %s | %s | %s | %s | %s | %s | %s | %s |", name, mode, trained,
		gb(a.Model), gb(a.Activations), gb(a.Logits), gb(a.Total), gb(r.Activations), gb(r.Total))
}

func TestUpdateMemoryTable(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "real-models.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	sizes := append(qwenSizes[:len(qwenSizes):len(qwenSizes)], struct {
		name string
		cfg  Config
	}{"Qwen3-8B shape", qwen3Shape})
	for _, s := range sizes {
		for _, mode := range []struct {
			name string
			plan TrainPlan
		}{{"full", TrainPlan{SeqTokens: 1024}}, {"LoRA r64", TrainPlan{LoRARank: 64, SeqTokens: 1024}}} {
			want := updateRow(s.name, mode.name, s.cfg, mode.plan)
			var got string
			for _, l := range lines {
				if strings.HasPrefix(l, "| "+s.name+" | "+mode.name+" |") {
					got = l
				}
			}
			if got != want {
				t.Errorf("docs/real-models.md's update row of %s, %s:\n got  %s\n want %s", s.name, mode.name, got, want)
			}
		}
	}
	for _, c := range []Config{qwenSizes[3].cfg, qwen3Shape} {
		m := c.PlanMemory(TrainPlan{LoRARank: 64, Recompute: true, SeqTokens: 1024})
		if m.Total >= 80e9 {
			t.Errorf("hidden %d: LoRA with recompute needs %.1f GB, over 80", c.HiddenSize, m.Total/1e9)
		}
		if full := c.PlanMemory(TrainPlan{SeqTokens: 1024}); full.Total < 80e9 {
			t.Errorf("hidden %d: full training fits 80 GB (%.1f GB): the table's point is gone", c.HiddenSize, full.Total/1e9)
		}
	}
	if n := qwen3Shape.NumParams(); n < 8.18e9 || n > 8.20e9 {
		t.Errorf("Qwen3-8B shape: %d parameters, want about the published 8.19 B", n)
	}
}

// TestLoRAParamsCount: LoRAParams counts what AddAdapter allocates.
func TestLoRAParamsCount(t *testing.T) {
	cfg := testConfig(false)
	for _, targets := range [][]string{nil, {"k_proj", "down_proj"}} {
		m := randomModel(t, cfg, 1)
		ad, err := m.AddAdapter(LoRAConfig{Rank: 3, Alpha: 1, Targets: targets}, 1)
		if err != nil {
			t.Fatal(err)
		}
		if got := cfg.LoRAParams(3, targets); got != float64(ad.NumParams()) {
			t.Errorf("targets %v: LoRAParams %g, the adapter has %d", targets, got, ad.NumParams())
		}
	}
}

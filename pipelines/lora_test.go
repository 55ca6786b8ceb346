package pipelines

import (
	"fmt"
	"strings"
	"testing"
)

// TestLoRAServedLoop: with LORA_RANK every update is learn grpo
// --lora-rank on ckpt/k with the reference ckpt/0, and with POLICY_SERVER
// too the restart hook runs before iteration 0's rollouts only (the
// engine starts on the base) while iteration k >= 1's rollouts load ckpt/k
// into the running engine as POLICY_MODEL-k (dropping POLICY_MODEL-(k-1))
// and request it by that name; without LORA_RANK nothing of this appears.
func TestLoRAServedLoop(t *testing.T) {
	const url = "http://127.0.0.1:8000/v1"
	lines := iterationCommands(t, "LORA_RANK=16", "ITERS=3", "POLICY_SERVER="+url, "POLICY_MODEL=qwen", "POLICY_SERVER_RESTART=my-restart")
	for k := 0; k < 3; k++ {
		ckpt := fmt.Sprintf("runs/r/ckpt/%d", k)
		g, ok := commandFlags(lines, "bin/learn grpo", "--init "+ckpt+" ")
		if !ok || g["--lora-rank"] != "16" || g["--ref"] != "runs/r/ckpt/0" {
			t.Errorf("iteration %d: learn grpo flags %v", k, g)
		}
		out := fmt.Sprintf("runs/r/traj/%d.parquet", k)
		i := -1
		for j, l := range lines {
			if strings.HasPrefix(l, "bin/rollout") && strings.Contains(l, "-o "+out) {
				i = j
			}
		}
		if i < 1 {
			t.Fatalf("no rollout writing %s", out)
		}
		f, _ := commandFlags(lines[i:i+1], "bin/rollout")
		restart := strings.HasPrefix(strings.TrimSpace(lines[i-1]), "my-restart")
		switch k {
		case 0:
			if f["--model"] != "qwen" || !restart || f["--tokenizer"] != ckpt {
				t.Errorf("iteration 0: %v, restart before it %v", f, restart)
			}
			if _, ok := f["--load-adapter"]; ok {
				t.Errorf("iteration 0 loads an adapter: %v", f)
			}
		default:
			_, load := f["--load-adapter"]
			wantUnload := ""
			if k > 1 {
				wantUnload = fmt.Sprintf("qwen-%d", k-1)
			}
			if restart || !load || f["--model"] != fmt.Sprintf("qwen-%d", k) || f["--unload-adapter"] != wantUnload || f["--tokenizer"] != ckpt {
				t.Errorf("iteration %d: %v, restart before it %v", k, f, restart)
			}
		}
	}
	for _, l := range iterationCommands(t) {
		if strings.Contains(l, "--lora-rank") || strings.Contains(l, "--load-adapter") {
			t.Errorf("without LORA_RANK: %s", l)
		}
	}
	if out, err := dryRun(t, "pats", "RUN=r", "LORA_RANK=8;rm"); err == nil || !strings.Contains(out, "LORA_RANK holds a shell character") {
		t.Errorf("a shell character in LORA_RANK: %v\n%s", err, out)
	}
}

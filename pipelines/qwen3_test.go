package pipelines

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// qwen3Checkpoint writes a Qwen3-shaped checkpoint with random weights at
// dir with scripts/qwen3-checkpoint (head_dim 16 over hidden size 32, the
// real Qwen3 tokenizer and chat template); extra are the script's flags.
func qwen3Checkpoint(t *testing.T, root, dir string, extra ...string) {
	t.Helper()
	cmd := exec.Command("go", append([]string{"run", "./scripts/qwen3-checkpoint", "-o", dir}, extra...)...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scripts/qwen3-checkpoint: %v\n%s", err, out)
	}
}

// TestQwen3Loop runs a Qwen3-shaped checkpoint through the stages on the
// CPU: oracle demonstrations in its tokenizer and chat format, a short
// learn sft from it (the checkpoint written is Qwen3 and its weights,
// head norms included, moved), sampled rollouts of the trained checkpoint
// and learn grpo on them; with agent.json's enable_thinking false every
// assistant cue closes an empty thinking block and the rollout's
// metadata records it; a config.json that contradicts its weights is
// refused by learn sft with one line and exit 2.
func TestQwen3Loop(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries and runs rollout and learn (about half a minute)")
	}
	root := repoRoot(t)
	bin := buildTools(t, root)
	dir := t.TempDir()
	run := func(name string, args ...string) { t.Helper(); tool(t, bin, dir, name, args...) }
	qwen3Checkpoint(t, root, filepath.Join(dir, "q3"))
	qwen3Checkpoint(t, root, filepath.Join(dir, "q3-nothink"), "--no-thinking")

	run("rollout", "--env", "household", "--tasks", "2", "--group", "1", "--seed", "6", "--policy", "oracle",
		"--tokenizer", "q3", "-o", "demos.parquet")
	run("learn", "sft", "--init", "q3", "--traj", "demos.parquet", "-o", "q3-sft", "--epochs", "1", "--lr", "1e-3", "--seed", "1")
	base, err := model.Load(filepath.Join(dir, "q3"))
	if err != nil {
		t.Fatal(err)
	}
	sft, err := model.Load(filepath.Join(dir, "q3-sft"))
	if err != nil {
		t.Fatal(err)
	}
	if !sft.Cfg.QKNorm() || sft.Cfg.HeadDim() != 16 || sft.Cfg.ModelType != "qwen3" {
		t.Fatalf("learn sft wrote %+v", sft.Cfg)
	}
	for i, p := range sft.Params() {
		if q := base.Params()[i]; p.Name != q.Name || maxDiff(p.W, q.W) == 0 {
			t.Errorf("%s: not trained (base %s, difference %g)", p.Name, q.Name, maxDiff(p.W, q.W))
		}
		if strings.Contains(p.Name, "bias") {
			t.Errorf("the trained checkpoint has %s", p.Name)
		}
	}

	// Decoding with sampling, then an update on what was sampled.
	run("rollout", "--env", "household", "--tasks", "2", "--group", "2", "--seed", "5", "--policy", "q3-sft",
		"--temperature", "1", "--top-p", "1", "--top-k", "0", "--repetition-penalty", "1",
		"--max-action-tokens", "8", "--max-context", "700", "-o", "traj.parquet")
	rows, _, err := table.ReadFiles[table.Trajectory](filepath.Join(dir, "traj.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 {
		t.Fatalf("%d rows, want 4", len(rows))
	}
	distinct := map[int32]bool{}
	for _, r := range rows {
		for j, role := range r.Roles {
			if table.PolicyWritten(role) {
				distinct[r.Tokens[j]] = true
			}
		}
	}
	if len(distinct) < 10 {
		t.Errorf("the sampled answers hold %d distinct tokens", len(distinct))
	}
	run("learn", "grpo", "--init", "q3-sft", "--ref", "q3-sft", "traj.parquet", "-o", "q3-grpo", "--seed", "1", "--metrics", "grpo.parquet")

	// enable_thinking false: the empty block after every cue.
	run("rollout", "--env", "household", "--tasks", "1", "--group", "1", "--seed", "5", "--policy", "q3-nothink",
		"--temperature", "1", "--max-action-tokens", "4", "--max-context", "500", "-o", "nothink.parquet")
	rows, metas, err := table.ReadFiles[table.Trajectory](filepath.Join(dir, "nothink.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokenizer.Load(filepath.Join(dir, "q3", "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	text := tok.Decode(rows[0].Tokens)
	cues := strings.Count(text, "<|im_start|>assistant\n")
	if cues < 2 || strings.Count(text, "<|im_start|>assistant\n<think>\n\n</think>\n\n") != cues {
		t.Errorf("%d cues, not each with an empty thinking block:\n%s", cues, text)
	}
	if got := metas[0].Extra["agent_context"]; got != "enable_thinking=false" {
		t.Errorf("agent_context %q", got)
	}

	// A config.json that says Qwen2 over Qwen3 weights: one line, exit 2.
	bad := filepath.Join(dir, "q3-bad")
	qwen3Checkpoint(t, root, bad)
	p := filepath.Join(bad, "config.json")
	b, _ := os.ReadFile(p)
	b = bytes.ReplaceAll(bytes.ReplaceAll(b, []byte(`"qwen3"`), []byte(`"qwen2"`)), []byte("Qwen3ForCausalLM"), []byte("Qwen2ForCausalLM"))
	os.WriteFile(p, b, 0o644)
	cmd := exec.Command(filepath.Join(bin, "learn"), "sft", "--init", "q3-bad", "--traj", "demos.parquet", "-o", "q3-bad-sft")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	msg := strings.TrimSpace(stderr.String())
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || strings.Count(msg, "\n") != 0 ||
		!strings.Contains(msg, "q_norm.weight is present but model_type is qwen2") {
		t.Errorf("learn sft on Qwen3 weights under a qwen2 config.json: %v, stderr %q", err, msg)
	}
	if _, err := os.Stat(filepath.Join(dir, "q3-bad-sft")); !os.IsNotExist(err) {
		t.Errorf("a refused learn sft left its output (%v)", err)
	}
}

// maxDiff is the largest absolute difference of two tensors.
func maxDiff(a, b []float32) float64 {
	var d float64
	for i := range a {
		if x := float64(a[i] - b[i]); x > d {
			d = x
		} else if -x > d {
			d = -x
		}
	}
	return d
}

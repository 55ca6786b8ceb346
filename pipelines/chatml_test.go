package pipelines

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pats-rl/pats/lib/agent"
	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// qwenFiles are the tokenizer files of the Qwen-family checkpoint the
// tests build: the real Qwen3 tokenizer of lib/tokenizer's tests.
var qwenFiles = []string{"tokenizer.json", "tokenizer_config.json"}

// qwenGeneration is a generation_config.json as Qwen2.5-Instruct ships it.
const qwenGeneration = `{
  "bos_token_id": 151643,
  "pad_token_id": 151643,
  "do_sample": true,
  "eos_token_id": [151645, 151643],
  "repetition_penalty": 1.05,
  "temperature": 0.7,
  "top_p": 0.8,
  "top_k": 20
}
`

// qwenCheckpoint writes a Qwen2.5-shaped checkpoint with random weights
// (Qwen2.5's vocabulary of 151,936 ids, tied embeddings, rope theta 1e6;
// 2 layers of hidden size 32) and the real Qwen tokenizer files.
func qwenCheckpoint(t *testing.T, root, dir string) {
	t.Helper()
	cfg := model.Config{
		Architectures: []string{"Qwen2ForCausalLM"}, ModelType: "qwen2",
		HiddenSize: 32, NumHiddenLayers: 2, NumAttentionHeads: 4, NumKeyValueHeads: 2, IntermediateSize: 64,
		VocabSize: 151936, MaxPositionEmbeddings: 4096, RopeTheta: 1e6, RMSNormEps: 1e-6,
		TieWordEmbeddings: true, TorchDtype: "float32", HiddenAct: "silu", InitializerRange: 0.02, UseCache: true,
	}
	m, err := model.New(cfg, 7)
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(root, "lib", "tokenizer", "testdata", "qwen3")
	js, err := os.ReadFile(filepath.Join(src, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save(dir, js); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(src, "tokenizer_config.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "generation_config.json"), []byte(qwenGeneration), 0o644); err != nil {
		t.Fatal(err)
	}
}

// tool runs one binary and fails the test on a non-zero exit.
func tool(t *testing.T, bin, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, name), args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
}

// TestChatMLLoop runs the PATS stages on a random Qwen2.5-shaped checkpoint
// with the real Qwen tokenizer, on CPU: rollout with a scaffold and skills
// (chatml chosen from the checkpoint's chat template) -> cards -> control
// -> validate, and learn grpo under both credits (and GiGPO's step
// credit, which needs one step key per answer, invalid ones included).
func TestChatMLLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries and runs every stage (about a minute)")
	}
	root := repoRoot(t)
	bin := buildTools(t, root)
	dir := t.TempDir()
	run := func(name string, args ...string) { t.Helper(); tool(t, bin, dir, name, args...) }

	// B_0 from evidence (the built-in oracle and random policies), so that
	// the Qwen rollout carries a scaffold.
	run("validate", "init", "-o", "empty.parquet")
	run("rollout", "--env", "household", "--tasks", "6", "--group", "2", "--policy", "oracle", "--seed", "3", "-o", "boot-oracle.parquet")
	run("rollout", "--env", "household", "--tasks", "6", "--group", "2", "--policy", "random", "--seed", "3", "-o", "boot-random.parquet")
	run("report", "mix", "boot-oracle.parquet", "boot-random.parquet", "-o", "boot.parquet")
	run("cards", "boot.parquet", "-o", "boot-cards.parquet")
	run("control", "--cards", "boot-cards.parquet", "--scaffold", "empty.parquet", "-o", "boot-proposals.parquet",
		"--state-out", "boot-state.parquet", "--primitives", "expand", "--rho-r", "1", "--rho-c", "1")
	run("validate", "--scaffold", "empty.parquet", "--proposals", "boot-proposals.parquet", "--cards", "boot-cards.parquet",
		"-o", "snap0.parquet", "--decisions", "boot-decisions.parquet", "--primitives", "expand", "--rho-r", "1", "--rho-c", "1")

	ckpt := filepath.Join(dir, "ckpt0")
	qwenCheckpoint(t, root, ckpt)
	run("rollout", "--env", "household", "--tasks", "2", "--group", "3", "--seed", "5", "--policy", "ckpt0",
		"--scaffold", "snap0.parquet", "--skills", "--slate", "4", "--temperature", "1", "--top-p", "1",
		"--max-action-tokens", "6", "--max-context", "900", "--iteration", "0", "-o", "traj.parquet")
	run("cards", "traj.parquet", "-o", "cards.parquet")
	run("control", "--cards", "cards.parquet", "--scaffold", "snap0.parquet", "-o", "proposals.parquet", "--state-out", "state.parquet")
	run("validate", "--scaffold", "snap0.parquet", "--proposals", "proposals.parquet", "--cards", "cards.parquet",
		"-o", "snap1.parquet", "--decisions", "decisions.parquet")
	for _, credit := range []string{"broadcast", "skillgate", "gigpo"} {
		run("learn", "grpo", "--init", "ckpt0", "--ref", "ckpt0", "traj.parquet", "-o", "ckpt-"+credit,
			"--credit", credit, "--metrics", "metrics-"+credit+".parquet", "--advantages", "adv-"+credit+".parquet", "--seed", "1")
	}
	// Evaluation runs the checkpoint in its chat format too.
	run("evaluate", "--policy", "ckpt0", "--env", "household", "--split", "valid_seen", "--tasks", "2",
		"--max-action-tokens", "4", "--max-context", "400", "-o", "eval.parquet")
	// The audits read chat trajectories as they read built-in ones.
	run("audit", "credit", "traj.parquet", "--advantages", "adv-skillgate.parquet", "-o", "credit.parquet")
	run("audit", "scaffold", "--policy", "ckpt0,ckpt-broadcast", "--traj", "traj.parquet", "-o", "nll.parquet")
	nll, _, err := table.ReadFiles[table.ScaffoldAudit](filepath.Join(dir, "nll.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(nll) != 2 || nll[0].Episodes != 6 || nll[0].Tokens == 0 || nll[0].Gap == nil || table.OrNaN(nll[0].NLLWith) < 10 {
		t.Errorf("audit scaffold rows %+v", nll)
	}

	// The warm-up: oracle demonstrations written with the checkpoint's
	// tokenizer and chat format, and SFT from the checkpoint.
	run("rollout", "--env", "household", "--tasks", "2", "--group", "1", "--seed", "6", "--policy", "oracle",
		"--tokenizer", "ckpt0", "--skills", "--slate", "4", "-o", "demos.parquet")
	run("learn", "sft", "--init", "ckpt0", "--traj", "demos.parquet", "-o", "ckpt-sft", "--epochs", "1", "--batch-tokens", "4096")
	demos, _, err := table.ReadFiles[table.Trajectory](filepath.Join(dir, "demos.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range demos {
		if !r.Success || r.Invalid != 0 || len(r.Reads) != 1 || !strings.HasPrefix(r.Actions[0], "read_skill ") {
			t.Errorf("demo %d: success %v, %d invalid, reads %v, actions %q", i, r.Success, r.Invalid, r.Reads, r.Actions)
		}
		if n := countRole(r.Roles, table.RoleSkillName); n == 0 {
			t.Errorf("demo %d: no skill_name tokens", i)
		}
	}

	rows, _, err := table.ReadFiles[table.Trajectory](filepath.Join(dir, "traj.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokenizer.Load(filepath.Join(ckpt, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	checkChatTrajectories(t, rows, tok)

	// The written checkpoints keep the vocabulary and the tokenizer files.
	for _, credit := range []string{"broadcast", "skillgate", "gigpo", "sft"} {
		out := filepath.Join(dir, "ckpt-"+credit)
		cfg, err := model.LoadConfig(filepath.Join(out, model.ConfigFile))
		if err != nil {
			t.Fatal(err)
		}
		if cfg.VocabSize != 151936 {
			t.Errorf("%s: vocab_size %d, want 151936", credit, cfg.VocabSize)
		}
		for _, name := range append(slices.Clone(qwenFiles), "generation_config.json") {
			a, _ := os.ReadFile(filepath.Join(ckpt, name))
			b, err := os.ReadFile(filepath.Join(out, name))
			if err != nil || !bytes.Equal(a, b) {
				t.Errorf("%s: %s not carried byte for byte (%v)", credit, name, err)
			}
		}
		if credit == "sft" {
			continue
		}
		ms, _, err := table.ReadFiles[table.TrainMetrics](filepath.Join(dir, "metrics-"+credit+".parquet"))
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) == 0 || ms[0].RatioMean == nil || math.Abs(*ms[0].RatioMean-1) > 1e-4 {
			t.Errorf("%s: first step's ratio mean %v, want 1 within 1e-4", credit, ms)
		}
	}

	// The behaviour log-probabilities equal what the model recomputes for
	// the whole sequence (what learn does) within 1e-4.
	m, err := model.Load(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	var seqs [][]int32
	var masks [][]bool
	for _, r := range rows {
		seqs = append(seqs, r.Tokens)
		mask := make([]bool, len(r.Tokens))
		for i, role := range r.Roles {
			mask[i] = table.PolicyWritten(role)
		}
		masks = append(masks, mask)
	}
	lp, _, err := m.LogProbs(seqs, masks)
	if err != nil {
		t.Fatal(err)
	}
	n, worst := 0, 0.0
	for i, r := range rows {
		for j, role := range r.Roles {
			if table.PolicyWritten(role) {
				worst = math.Max(worst, math.Abs(float64(lp[i][j])-float64(r.Logprobs[j])))
				n++
			}
		}
	}
	if n < 100 || worst > 1e-4 {
		t.Errorf("%d policy tokens, largest log-probability difference %g (want <= 1e-4)", n, worst)
	}
	t.Logf("%d episodes, %d policy tokens, largest log-probability difference %.2g", len(rows), n, worst)
}

// checkChatTrajectories checks rollouts of the random Qwen checkpoint:
// chatml was chosen (no token added to the vocabulary), every answer was
// invalid and penalised, the harness's chat tokens are never
// policy-written, and every text column is valid UTF-8.
func checkChatTrajectories(t *testing.T, rows []table.Trajectory, tok tokenizer.Tokenizer) {
	t.Helper()
	start, _ := tok.TokenID(agent.ImStart)
	if len(rows) != 6 {
		t.Fatalf("%d rows, want 6", len(rows))
	}
	for i, r := range rows {
		if r.Tokens[0] != start || r.NScaffoldTokens == 0 || len(r.Slate) != 4 {
			t.Errorf("row %d: first token %d (want <|im_start|> %d), %d scaffold tokens, slate %v", i, r.Tokens[0], start, r.NScaffoldTokens, r.Slate)
		}
		if r.Invalid == 0 || math.Abs(r.Reward-(-0.1*float64(r.Invalid))) > 1e-12 || r.Steps != 0 {
			t.Errorf("row %d: %d invalid answers, reward %v, %d steps", i, r.Invalid, r.Reward, r.Steps)
		}
		if r.FailureMode != "invalid_answer" && r.FailureMode != "context_limit" {
			t.Errorf("row %d: failure mode %q", i, r.FailureMode)
		}
		for j, id := range r.Tokens {
			// The model's vocabulary (151,936) is larger than the
			// tokenizer's; random weights may sample the padding ids,
			// which decode to nothing.
			if id < 0 || id >= 151936 {
				t.Fatalf("row %d token %d: id %d outside the vocabulary", i, j, id)
			}
			if id == start && table.PolicyWritten(r.Roles[j]) {
				t.Errorf("row %d token %d: <|im_start|> is policy-written", i, j)
			}
		}
		for _, s := range append(append([]string{r.Goal}, r.Actions...), r.Observations...) {
			if !utf8.ValidString(s) {
				t.Errorf("row %d: text %+q is not valid UTF-8", i, s)
			}
		}
	}
}

func countRole(roles []int8, role int8) int {
	n := 0
	for _, r := range roles {
		if r == role {
			n++
		}
	}
	return n
}

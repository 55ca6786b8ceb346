package pipelines

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// tinyWordLevelCheckpoint writes a one-layer checkpoint with random weights
// over the built-in vocabulary.
func tinyWordLevelCheckpoint(t *testing.T, dir string) {
	t.Helper()
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	c := model.Tiny(tok.VocabSize())
	c.HiddenSize, c.NumHiddenLayers, c.NumAttentionHeads, c.NumKeyValueHeads, c.IntermediateSize = 32, 1, 2, 1, 64
	m, err := model.New(c, 9)
	if err != nil {
		t.Fatal(err)
	}
	js, err := tok.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save(dir, js); err != nil {
		t.Fatal(err)
	}
}

// TestHistoryWindow rolls out with --history 2 under both formats (a tiny
// built-in checkpoint; the random Qwen-shaped checkpoint under chatml):
// the episodes outgrow the window, each answer's recorded behaviour
// log-probabilities equal what the model gives its token under the
// context the answer saw (rebuilt here from the trajectory's columns, skill
// bodies of dropped turns pinned after the prompt)
// within 1e-4, learn grpo's first step has ratio mean 1 within 1e-4
// under every credit, and only the answers' tokens are policy-written;
// --history -1 is a usage error.
func TestHistoryWindow(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries and runs rollout and learn on two checkpoints")
	}
	root := repoRoot(t)
	bin := buildTools(t, root)
	dir := t.TempDir()
	run := func(name string, args ...string) { t.Helper(); tool(t, bin, dir, name, args...) }
	tinyWordLevelCheckpoint(t, filepath.Join(dir, "tinyck"))
	qwenCheckpoint(t, root, filepath.Join(dir, "qwen"))
	for _, tc := range []struct {
		ckpt, format string
		args         []string
	}{
		{"tinyck", "builtin", []string{"--env", "household", "--skills", "--slate", "4", "--max-action-tokens", "4"}},
		{"qwen", "chatml", []string{"--env", "searchqa", "--skills", "--slate", "3", "--max-action-tokens", "5"}},
	} {
		t.Run(tc.format, func(t *testing.T) {
			traj := tc.ckpt + "-traj.parquet"
			common := append([]string{"--tasks", "2", "--group", "2", "--seed", "4", "--policy", tc.ckpt, "--temperature", "1", "--top-p", "1", "--max-context", "4096"}, tc.args...)
			run("rollout", append(common, "--history", "2", "-o", traj)...)
			for _, credit := range []string{"broadcast", "skillgate", "gigpo"} {
				met := tc.ckpt + "-metrics-" + credit + ".parquet"
				run("learn", "grpo", "--init", tc.ckpt, "--ref", tc.ckpt, traj, "-o", tc.ckpt+"-"+credit,
					"--credit", credit, "--metrics", met, "--seed", "1")
				ms, _, err := table.ReadFiles[table.TrainMetrics](filepath.Join(dir, met))
				if err != nil {
					t.Fatal(err)
				}
				if len(ms) == 0 || ms[0].RatioMean == nil || math.Abs(*ms[0].RatioMean-1) > 1e-4 {
					t.Errorf("%s: first step's ratio mean %v, want 1 within 1e-4", credit, ms)
				}
			}
			rows, _, err := table.ReadFiles[table.Trajectory](filepath.Join(dir, traj))
			if err != nil {
				t.Fatal(err)
			}
			m, err := model.Load(filepath.Join(dir, tc.ckpt))
			if err != nil {
				t.Fatal(err)
			}
			var seqs [][]int32
			var masks [][]bool
			var want [][]float32
			dropped := 0
			for i, r := range rows {
				if r.History != 2 || len(r.TurnAt) != len(r.Actions) || len(r.HistoryMarker) == 0 {
					t.Fatalf("row %d: history %d, %d turn_at for %d actions, marker %v", i, r.History, len(r.TurnAt), len(r.Actions), r.HistoryMarker)
				}
				for k, at := range r.TurnAt {
					from := r.TurnFrom[k]
					wantFrom := r.PromptLen
					if k > 2 {
						// The cue of answer k-2 starts after answer k-3
						// and its reply.
						wantFrom = r.TurnAt[k-2] - 1
						if tc.format == "chatml" {
							wantFrom = r.TurnAt[k-2] - 3 // <|im_start|> assistant \n
						}
					}
					if from != wantFrom {
						t.Errorf("row %d answer %d: turn_from %d, want %d", i, k, from, wantFrom)
					}
					end := int(at)
					for end < len(r.Roles) && table.PolicyWritten(r.Roles[end]) {
						end++
					}
					var ctx []int32
					if from > r.PromptLen {
						dropped++
						ctx = append(ctx, r.Tokens[:r.PromptLen]...)
						for b := range r.BodyAt {
							if r.BodyEnd[b] <= from {
								ctx = append(ctx, r.Tokens[r.BodyAt[b]:r.BodyEnd[b]]...) // a body read in a dropped turn stays in view
							}
						}
						ctx = append(append(ctx, r.HistoryMarker...), r.Tokens[from:end]...)
					} else {
						ctx = append(ctx, r.Tokens[:end]...)
					}
					n := end - int(at)
					mask := make([]bool, len(ctx))
					for j := len(ctx) - n; j < len(ctx); j++ {
						mask[j] = true
					}
					seqs, masks, want = append(seqs, ctx), append(masks, mask), append(want, r.Logprobs[at:end])
				}
			}
			if dropped == 0 {
				t.Fatalf("no answer saw a dropped turn")
			}
			lp, _, err := m.LogProbs(seqs, masks)
			if err != nil {
				t.Fatal(err)
			}
			n, worst := 0, 0.0
			for i := range seqs {
				off := len(seqs[i]) - len(want[i])
				for j, w := range want[i] {
					worst = math.Max(worst, math.Abs(float64(lp[i][off+j])-float64(w)))
					n++
				}
			}
			if worst > 1e-4 {
				t.Errorf("%d policy tokens, largest log-probability difference %g (want <= 1e-4)", n, worst)
			}
			t.Logf("%s: %d episodes, %d answers (%d after a drop), %d policy tokens, largest difference %.2g", tc.format, len(rows), len(seqs), dropped, n, worst)
			// The harness's tokens keep their roles: every token that is
			// not in an answer is written by the harness, and the scaffold
			// and slate roles are those of the prompt.
			for i, r := range rows {
				inAnswer := make([]bool, len(r.Tokens))
				for _, at := range r.TurnAt {
					for e := int(at); e < len(r.Roles) && table.PolicyWritten(r.Roles[e]); e++ {
						inAnswer[e] = true
					}
				}
				for j, role := range r.Roles {
					if table.PolicyWritten(role) != inAnswer[j] {
						t.Fatalf("row %d token %d: role %d, in an answer %v", i, j, role, inAnswer[j])
					}
				}
				if n := countRole(r.Roles[:r.PromptLen], table.RoleSkillSlate); n == 0 {
					t.Errorf("row %d: no skill slate in the prompt", i)
				}
			}
		})
	}
	// Bad input: a negative window is one line, exit 2, no output.
	for _, name := range []string{"rollout", "evaluate"} {
		out := filepath.Join(dir, "bad-"+name+".parquet")
		cmd := exec.Command(filepath.Join(bin, name), "--policy", "oracle", "--history", "-1", "-o", out)
		b, err := cmd.CombinedOutput()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 2 || strings.Count(strings.TrimSpace(string(b)), "\n") != 0 || !strings.Contains(string(b), "--history") {
			t.Errorf("%s --history -1: %v, output %q; want exit 2 and one line naming --history", name, err, b)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s --history -1 wrote %s", name, out)
		}
	}
}

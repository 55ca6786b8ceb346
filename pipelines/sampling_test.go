package pipelines

import (
	"bytes"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/rl"
	"github.com/pats-rl/pats/lib/table"
)

// refused runs one binary that must refuse: exit code want, one line on
// stderr containing each of wantIn, and none of the paths in outs
// written.
func refused(t *testing.T, bin, dir string, want int, wantIn []string, outs []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, name), args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	msg := stderr.String()
	if code != want {
		t.Errorf("%s %s: exit %d, want %d\n%s", name, strings.Join(args, " "), code, want, msg)
	}
	if strings.Count(msg, "\n") != 1 || !strings.HasSuffix(msg, "\n") {
		t.Errorf("%s %s: stderr is not one line: %q", name, strings.Join(args, " "), msg)
	}
	for _, w := range wantIn {
		if !strings.Contains(msg, w) {
			t.Errorf("%s %s: stderr %q does not name %q", name, strings.Join(args, " "), msg, w)
		}
	}
	for _, o := range outs {
		if _, err := os.Stat(filepath.Join(dir, o)); err == nil {
			t.Errorf("%s %s: refused but wrote %s", name, strings.Join(args, " "), o)
		}
	}
	return msg
}

// firstRatio is the first step's ratio_mean of a learn grpo metrics file.
func firstRatio(t *testing.T, path string) float64 {
	t.Helper()
	ms, _, err := table.ReadFiles[table.TrainMetrics](path)
	if err != nil || len(ms) == 0 {
		t.Fatalf("%s: %v (%d rows)", path, err, len(ms))
	}
	if ms[0].RatioMean == nil {
		t.Fatalf("%s: first step's ratio_mean is NULL", path)
	}
	return *ms[0].RatioMean
}

// TestSamplingReproduced is the sampling contract between rollout and learn
// grpo on a random Qwen2.5-shaped checkpoint whose generation_config.json
// is Qwen2.5-Instruct's (temperature 0.7, top-p 0.8, top-k 20, repetition
// penalty 1.05):
//   - a rollout with no sampling flags applies and records all four, and
//     the checkpoint's weights hash; learn grpo's first step has a ratio of
//     1 within 1e-5 (the recorded log-probabilities are not those at
//     temperature 1, so scoring at temperature 1 would miss it);
//   - the same with --temperature 1 --top-p 1 --top-k 0
//     --repetition-penalty 1 (every cut off);
//   - the two rollouts together are refused (exit 2, one line, nothing
//     written), and so is an --init whose weights did not play, unless
//     --off-policy, which the metrics' metadata records.
func TestSamplingReproduced(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries and runs rollouts and updates on a Qwen-sized vocabulary")
	}
	root := repoRoot(t)
	bin := buildTools(t, root)
	dir := t.TempDir()
	run := func(name string, args ...string) { t.Helper(); tool(t, bin, dir, name, args...) }
	ckpt := filepath.Join(dir, "ckpt0")
	qwenCheckpoint(t, root, ckpt)
	hash, err := model.WeightsHash(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.Load(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	roll := func(out string, flags ...string) {
		t.Helper()
		run("rollout", append([]string{"--env", "household", "--tasks", "2", "--group", "2", "--seed", "5", "--policy", "ckpt0",
			"--max-action-tokens", "8", "--max-context", "600", "-o", out}, flags...)...)
	}
	cases := []struct {
		name  string
		flags []string
		want  rl.Sampling // the sampling columns
	}{
		{"generation_config", nil, rl.Sampling{Temperature: 0.7, TopP: 0.8, TopK: 20, RepPenalty: 1.05}},
		{"t1p1", []string{"--temperature", "1", "--top-p", "1", "--top-k", "0", "--repetition-penalty", "1", "--iteration", "1"},
			rl.Sampling{Temperature: 1, TopP: 1, RepPenalty: 1}},
	}
	for _, c := range cases {
		traj := c.name + ".parquet"
		roll(traj, c.flags...)
		rows, _, err := table.ReadFiles[table.Trajectory](filepath.Join(dir, traj))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if r.Temperature == nil || r.TopP == nil || r.TopK == nil || r.RepetitionPenalty == nil ||
				rl.SamplingOf(&r) != c.want || r.PolicyHash != hash {
				t.Fatalf("%s: recorded %s (NULL columns: %v %v %v %v) hash %q, want %s and %q", c.name,
					rl.SamplingOf(&r), r.Temperature == nil, r.TopP == nil, r.TopK == nil, r.RepetitionPenalty == nil, r.PolicyHash, c.want, hash)
			}
		}
		run("learn", "grpo", "--init", "ckpt0", "--ref", "ckpt0", traj, "-o", "ck-"+c.name, "--metrics", "m-"+c.name+".parquet", "--seed", "1")
		ratio := firstRatio(t, filepath.Join(dir, "m-"+c.name+".parquet"))
		if math.Abs(ratio-1) > 1e-5 {
			t.Errorf("%s: first step's ratio mean %.8f, want 1 within 1e-5", c.name, ratio)
		}
		// What scoring at temperature 1 would have given.
		if err := m.SetScoringTemperature(1); err != nil {
			t.Fatal(err)
		}
		var seqs [][]int32
		var masks [][]bool
		for _, r := range rows {
			mask := make([]bool, len(r.Tokens))
			for i, role := range r.Roles {
				mask[i] = table.PolicyWritten(role)
			}
			seqs, masks = append(seqs, r.Tokens), append(masks, mask)
		}
		lp, _, err := m.LogProbs(seqs, masks)
		if err != nil {
			t.Fatal(err)
		}
		var sum float64
		n := 0
		for i, r := range rows {
			for j := range masks[i] {
				if masks[i][j] {
					sum += math.Exp(float64(lp[i][j]) - float64(r.Logprobs[j]))
					n++
				}
			}
		}
		t.Logf("%s: %d policy tokens; first step's ratio %.8f; at temperature 1 it would be %.6f", c.name, n, ratio, sum/float64(n))
		if c.want.Temperature != 1 && math.Abs(sum/float64(n)-1) < 1e-3 {
			t.Errorf("%s: scoring at temperature 1 gives a ratio of %.6f, too close to 1 for the test to tell the rules apart", c.name, sum/float64(n))
		}
	}

	// Two rules in one update.
	refused(t, bin, dir, 2, []string{"t1p1.parquet", "generation_config.parquet", "temperature 0.7", "temperature 1"},
		[]string{"ck-mix", "m-mix.parquet"},
		"learn", "grpo", "--init", "ckpt0", "--ref", "ckpt0", "generation_config.parquet", "t1p1.parquet", "-o", "ck-mix", "--metrics", "m-mix.parquet")
	// Weights that did not play.
	other, err := model.WeightsHash(filepath.Join(dir, "ck-t1p1"))
	if err != nil {
		t.Fatal(err)
	}
	refused(t, bin, dir, 2, []string{"ck-t1p1", hash, other, "--off-policy"}, []string{"ck-wrong", "m-wrong.parquet"},
		"learn", "grpo", "--init", "ck-t1p1", "--ref", "ckpt0", "t1p1.parquet", "-o", "ck-wrong", "--metrics", "m-wrong.parquet")
	run("learn", "grpo", "--init", "ck-t1p1", "--ref", "ckpt0", "t1p1.parquet", "-o", "ck-off", "--metrics", "m-off.parquet", "--off-policy")
	_, metas, err := table.ReadFiles[table.TrainMetrics](filepath.Join(dir, "m-off.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if metas[0].Extra["off_policy"] != "true" {
		t.Errorf("--off-policy not recorded in the metrics' metadata: %v", metas[0].Extra)
	}
}

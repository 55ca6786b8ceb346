package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/rollout/episodetest"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

func run(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var e bytes.Buffer
	code := command.Run(app(), append([]string{"learn"}, args...), &e)
	return code, e.String()
}

// fixture: oracle demonstrations, a small checkpoint with the built-in
// tokenizer, and rollouts sampled from that checkpoint (rewarded as in
// lib/rl's tests: an untrained model never succeeds).
type fixture struct {
	dir, demos, ckpt, traj string
	rows                   []table.Trajectory
}

var (
	fxOnce sync.Once
	fx     fixture
	fxErr  error
)

func setup(t *testing.T) fixture {
	t.Helper()
	fxOnce.Do(func() { fx, fxErr = build() })
	if fxErr != nil {
		t.Fatal(fxErr)
	}
	return fx
}

func build() (fixture, error) {
	dir, err := os.MkdirTemp("", "learn-test-")
	if err != nil {
		return fixture{}, err
	}
	f := fixture{dir: dir, demos: filepath.Join(dir, "demos.parquet"), ckpt: filepath.Join(dir, "ckpt0"),
		traj: filepath.Join(dir, "traj.parquet")}
	demos, err := episodetest.Household(nil, 3, 1, 2, false, 0)
	if err != nil {
		return f, err
	}
	if err := table.WriteFile(f.demos, demos, table.Meta{}); err != nil {
		return f, err
	}
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		return f, err
	}
	m, err := model.New(episodetest.TinyConfig(tok.VocabSize()), 9)
	if err != nil {
		return f, err
	}
	js, err := tok.JSON()
	if err != nil {
		return f, err
	}
	if err := m.Save(f.ckpt, js); err != nil {
		return f, err
	}
	p := episodetest.ModelPolicy{PolicyName: f.ckpt, Model: m, Tok: tok, MaxTokens: 5}
	rows, err := episodetest.Household(p, 2, 3, 4, false, 150)
	if err != nil {
		return f, err
	}
	for i := range rows {
		rows[i].Reward = float64(rows[i].Sample % 2) // spread within every group
	}
	f.rows = rows
	return f, table.WriteFile(f.traj, rows, table.Meta{})
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fx.dir != "" {
		os.RemoveAll(fx.dir)
	}
	os.Exit(code)
}

func TestSFT(t *testing.T) {
	f := setup(t)
	out := filepath.Join(t.TempDir(), "ckpt")
	metrics := filepath.Join(t.TempDir(), "m.parquet")
	code, stderr := run(t, "sft", "--init", "tiny", "--demos", f.demos, "-o", out, "--epochs", "2",
		"--batch-tokens", "600", "--lr", "3e-3", "--metrics", metrics, "--seed", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m, err := model.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokenizer.Load(filepath.Join(out, model.TokenizerFile))
	if err != nil {
		t.Fatal(err)
	}
	bt, _ := tokenizer.ShippedWordLevel()
	if tok.Hash() != bt.Hash() || m.Cfg.HiddenSize != model.Tiny(bt.VocabSize()).HiddenSize {
		t.Errorf("checkpoint tokenizer %s (want %s), hidden %d", tok.Hash(), bt.Hash(), m.Cfg.HiddenSize)
	}
	rows, _, err := table.ReadFiles[table.TrainMetrics](metrics)
	if err != nil {
		t.Fatal(err)
	}
	opt, err := model.LoadAdamW(out, m)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 2 || opt.StepN != len(rows) {
		t.Fatalf("%d metrics rows, optimizer at step %d", len(rows), opt.StepN)
	}
	for _, r := range rows {
		if r.Phase != "sft" || r.Tokens == 0 || math.IsNaN(r.Loss) || r.Epoch > 1 {
			t.Errorf("metrics row %+v", r)
		}
	}
	// Continue from the checkpoint with its tokenizer.
	out2 := filepath.Join(t.TempDir(), "ckpt2")
	if code, stderr := run(t, "sft", "--init", out, f.demos, "-o", out2, "--epochs", "1", "--batch-tokens", "100000"); code != 0 {
		t.Fatalf("sft from a checkpoint: exit %d: %s", code, stderr)
	}
}

// TestGRPO runs learn grpo on rollouts of the checkpoint, twice (with
// GOMAXPROCS 1 and 2): the weights are byte-identical, the optimizer state continues, and the
// advantages file matches the trajectories token for token.
func TestGRPO(t *testing.T) {
	f := setup(t)
	var weights [][]byte
	for i := 0; i < 2; i++ {
		prev := runtime.GOMAXPROCS(i + 1)
		defer runtime.GOMAXPROCS(prev)
		dir := t.TempDir()
		out := filepath.Join(dir, "ckpt1")
		adv := filepath.Join(dir, "adv.parquet")
		met := filepath.Join(dir, "m.parquet")
		code, stderr := run(t, "grpo", "--init", f.ckpt, "--ref", f.ckpt, f.traj, "-o", out, "--metrics", met,
			"--advantages", adv, "--credit", "skillgate", "--epochs", "2", "--minibatch", "4", "--lr", "1e-3")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		b, err := os.ReadFile(filepath.Join(out, "model.safetensors"))
		if err != nil {
			t.Fatal(err)
		}
		weights = append(weights, b)
		ms, _, err := table.ReadFiles[table.TrainMetrics](met)
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) != 4 { // 6 episodes, minibatch 4: 2 steps per epoch
			t.Errorf("%d metrics rows, want 4", len(ms))
		}
		if ms[0].ClipFrac == nil || *ms[0].ClipFrac != 0 || ms[0].RatioMean == nil || math.Abs(*ms[0].RatioMean-1) > 1e-3 {
			t.Errorf("first step off-policy: %+v", ms[0])
		}
		m, err := model.Load(out)
		if err != nil {
			t.Fatal(err)
		}
		opt, err := model.LoadAdamW(out, m)
		if err != nil || opt.StepN != 4 {
			t.Errorf("optimizer state: %v, step %v", err, opt)
		}
		as, _, err := table.ReadFiles[table.TokenAdvantages](adv)
		if err != nil {
			t.Fatal(err)
		}
		if len(as) != len(f.rows) {
			t.Fatalf("%d advantage rows for %d episodes", len(as), len(f.rows))
		}
		for k, a := range as {
			r := f.rows[k]
			if a.GroupID != r.GroupID || a.Sample != r.Sample || len(a.Advantages) != len(r.Tokens) || a.Credit != "skillgate" {
				t.Errorf("advantages row %d does not match its episode", k)
			}
			for tk, ch := range a.Channels {
				want := int8(0)
				if r.Roles[tk] == table.RoleAction {
					want = 1
				}
				if ch != want || (ch == 1 && float64(a.Advantages[tk]) != float64(float32(a.Outcome))) {
					t.Errorf("row %d token %d: channel %d advantage %v (role %d, outcome %v)", k, tk, ch, a.Advantages[tk], r.Roles[tk], a.Outcome)
					break
				}
			}
		}
	}
	if !bytes.Equal(weights[0], weights[1]) {
		t.Error("two identical runs wrote different weights")
	}
}

// TestBadInput: each bad input is one line on stderr, exit 2, and no
// checkpoint or metrics file.
func TestBadInput(t *testing.T) {
	f := setup(t)
	dir := t.TempDir()
	variant := func(name string, edit func(rows []table.Trajectory) []table.Trajectory) string {
		rows := append([]table.Trajectory(nil), f.rows...)
		for i := range rows {
			rows[i].Logprobs = append([]float32(nil), rows[i].Logprobs...)
		}
		p := filepath.Join(dir, name+".parquet")
		if err := table.WriteUnchecked(p, edit(rows), table.Meta{}); err != nil {
			t.Fatal(err)
		}
		return p
	}
	otherTok := variant("othertok", func(r []table.Trajectory) []table.Trajectory {
		for i := range r {
			r[i].Tokenizer = "0123456789abcdef"
		}
		return r
	})
	oracle := variant("oracle", func(r []table.Trajectory) []table.Trajectory {
		for i := range r {
			r[i].Policy = "oracle"
		}
		return r
	})
	zeroLP := variant("zerolp", func(r []table.Trajectory) []table.Trajectory {
		for i := range r[2].Logprobs {
			r[2].Logprobs[i] = 0
		}
		return r
	})
	shortLP := variant("shortlp", func(r []table.Trajectory) []table.Trajectory {
		r[1].Logprobs = r[1].Logprobs[:len(r[1].Logprobs)-1]
		return r
	})
	single := variant("single", func(r []table.Trajectory) []table.Trajectory { return r[:4] })
	nan := variant("nan", func(r []table.Trajectory) []table.Trajectory { r[0].Reward = math.NaN(); return r })
	inf := variant("inf", func(r []table.Trajectory) []table.Trajectory { r[3].Reward = math.Inf(1); return r })
	grpo := func(traj string, extra ...string) []string {
		return append([]string{"grpo", "--init", f.ckpt, "--ref", f.ckpt, traj}, extra...)
	}
	cases := []struct {
		name string
		args []string
		want string // in the message
	}{
		{"other tokenizer", grpo(otherTok), "tokenizer"},
		{"oracle policy", grpo(oracle), "oracle"},
		{"logprobs all zero", grpo(zeroLP), "behaviour log-probabilities"},
		{"logprobs length", grpo(shortLP), "logprobs for"},
		{"group of one", grpo(single), "group of one"},
		{"NaN reward", grpo(nan), "not finite"},
		{"inf reward", grpo(inf), "not finite"},
		{"missing trajectories", grpo(filepath.Join(dir, "none.parquet")), "none.parquet"},
		{"fresh init", []string{"grpo", "--init", "tiny", f.traj}, "checkpoint folder"},
		{"missing init", []string{"grpo", "--init", filepath.Join(dir, "nockpt"), "--kl", "0", f.traj}, "nockpt"}, // with --kl, --ref is asked for first
		{"no ref", []string{"grpo", "--init", f.ckpt, f.traj}, "--ref"},
		{"bad credit", grpo(f.traj, "--credit", "gate"), "credit"},
		{"bad agg", grpo(f.traj, "--loss-agg", "sum"), "loss-agg"},
		{"bad select-norm", grpo(f.traj, "--credit", "skillgate", "--select-norm", "episode"), "--select-norm"},
		{"bad lr", grpo(f.traj, "--lr", "0"), "--lr"},
		{"no trajectories", []string{"grpo", "--init", f.ckpt}, "argument"},
		{"sft other tokenizer", []string{"sft", "--init", "tiny", "--demos", otherTok}, "tokenizer"},
		{"sft bad init", []string{"sft", "--init", "huge", "--traj", f.demos}, "huge"},
		{"sft no trajectories", []string{"sft", "--init", "tiny"}, "--traj"},
	}
	for _, c := range cases {
		out := filepath.Join(dir, "out-"+strings.ReplaceAll(c.name, " ", "-"))
		met := out + ".metrics.parquet"
		code, stderr := run(t, append(c.args, "-o", out, "--metrics", met)...)
		t.Logf("%s: %s", c.name, strings.TrimSpace(stderr))
		if code != command.ExitUsage {
			t.Errorf("%s: exit %d, want 2 (%q)", c.name, code, stderr)
		}
		if strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: stderr %q: want one line mentioning %q", c.name, stderr, c.want)
		}
		for _, p := range []string{out, met} {
			if _, err := os.Stat(p); err == nil {
				t.Errorf("%s: %s written", c.name, p)
			}
		}
	}
}

// TestNonFiniteStep: a step whose loss is not finite exits 1, names the
// step and writes nothing.
func TestNonFiniteStep(t *testing.T) {
	f := setup(t)
	rows := append([]table.Trajectory(nil), f.rows...)
	for i := range rows {
		if rows[i].Sample%2 == 0 { // below the group mean: negative advantage
			lp := make([]float32, len(rows[i].Logprobs))
			for tk, r := range rows[i].Roles {
				if table.PolicyWritten(r) {
					lp[tk] = -1e4
				}
			}
			rows[i].Logprobs = lp
		}
	}
	traj := filepath.Join(t.TempDir(), "t.parquet")
	if err := table.WriteFile(traj, rows, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "ckpt")
	code, stderr := run(t, "grpo", "--init", f.ckpt, "--ref", f.ckpt, traj, "-o", out)
	if code != command.ExitFailure || !strings.Contains(stderr, "step 1") {
		t.Errorf("exit %d, stderr %q; want 1 naming step 1", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("checkpoint written after a non-finite step")
	}
}

package stage_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/rl"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/stage/audit"
	"github.com/pats-rl/pats/lib/stage/cards"
	"github.com/pats-rl/pats/lib/stage/control"
	"github.com/pats-rl/pats/lib/stage/evaluate"
	"github.com/pats-rl/pats/lib/stage/learn"
	"github.com/pats-rl/pats/lib/stage/play"
	"github.com/pats-rl/pats/lib/stage/report"
	"github.com/pats-rl/pats/lib/stage/rollout"
	"github.com/pats-rl/pats/lib/stage/validate"
)

// TestCheckBeforeRead: every stage runs its checker before it reads a
// file or loads a model. Each is given one bad option and inputs that
// cannot be read (a table file that is not Parquet, a checkpoint folder
// whose config.json and agent.json are not JSON); the refusal it reports
// is the option's, not the input's.
func TestCheckBeforeRead(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.parquet")
	ck := filepath.Join(dir, "ckpt")
	if err := os.MkdirAll(ck, 0o755); err != nil {
		t.Fatal(err)
	}
	for path, text := range map[string]string{bad: "not parquet", filepath.Join(ck, "config.json"): "{", filepath.Join(ck, "agent.json"): "{"} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := func(name string) string { return filepath.Join(dir, "out", name) }
	episodes := func(set func(*play.Options)) play.Options {
		f := play.Options{Env: "household", Split: "train", Group: 1, Seed: 1, Policy: ck, Scaffold: bad, Slate: 4,
			Batch: play.DefaultBatch, ScaffoldBudget: play.DefaultScaffoldBudget,
			PolicyOptions: play.PolicyOptions{Temperature: 1, TopP: 1, RepPenalty: 1, MaxContext: play.DefaultMaxContext}}
		set(&f)
		return f
	}
	sft := rl.DefaultSFT()
	sft.Optim.LR = 0
	grpo := rl.DefaultGRPO()
	loop := stage.DefaultLoop()
	loop.Limits.MaxItems = 0
	ctx, std := context.Background(), stage.Streams{}
	cases := []struct {
		stage string
		run   func() error
		want  string // the option's refusal
	}{
		{"rollout", func() error {
			return rollout.Run(ctx, rollout.Options{Options: episodes(func(f *play.Options) { f.Group = -1 }), Output: out("t.parquet")}, std)
		}, "--group"},
		{"evaluate --policy", func() error {
			return evaluate.Run(ctx, evaluate.Options{Play: episodes(func(f *play.Options) { f.TopK = -1 })}, std)
		}, "--top-k"},
		{"audit reading", func() error {
			return audit.RunReading(ctx, audit.ReadingOptions{Options: episodes(func(f *play.Options) { f.Temperature = -1 }), Output: out("r.parquet")}, std)
		}, "--temperature"},
		{"audit credit", func() error {
			return audit.RunCredit(ctx, audit.CreditOptions{Traj: []string{bad}, Advantages: bad, Output: out("c.parquet"), Bins: 0}, std)
		}, "--bins"},
		{"audit scaffold", func() error {
			return audit.RunScaffold(ctx, audit.ScaffoldOptions{Checkpoints: []string{ck}, Traj: []string{bad}, Output: out("s.parquet"), Device: "tpu"}, std)
		}, "--device"},
		{"audit lift without --without", func() error {
			return audit.RunLift(ctx, audit.LiftOptions{With: []string{bad}, Output: out("l.parquet")}, std)
		}, "--without is required"},
		{"audit truth", func() error {
			return audit.RunTruth(ctx, audit.TruthOptions{Scaffold: bad, Iteration: -1, Env: "household", Output: out("t.parquet")}, std)
		}, "--iteration"},
		{"learn merge", func() error {
			return learn.RunMerge(ctx, learn.MergeOptions{Adapter: ck, Output: out("merged"), DType: "f16"}, std)
		}, "--dtype"},
		{"learn sft", func() error {
			return learn.RunSFT(ctx, learn.SFTOptions{Init: ck, Demos: []string{bad}, Output: out("sft"), Config: sft}, std)
		}, "--lr"},
		{"learn grpo without --ref", func() error {
			return learn.RunGRPO(ctx, learn.GRPOOptions{Init: ck, Traj: []string{bad}, Output: out("grpo"), Config: grpo}, std)
		}, "--ref is required"},
		{"cards", func() error {
			return cards.Run(ctx, cards.Options{Inputs: []string{bad}, Output: out("c.parquet"), Per: "group", Top: 0}, std)
		}, "--top"},
		{"control", func() error {
			return control.Run(ctx, control.Options{Cards: bad, Scaffold: bad, Output: out("p.parquet"), StateOut: out("s.json"),
				Window: -1, Loop: stage.DefaultLoop(), Refiner: "builtin"}, std)
		}, "--window"},
		{"control with rho-r above rho-c", func() error {
			l := stage.DefaultLoop()
			l.RhoR, l.RhoC = 0.9, 0.1
			return control.Run(ctx, control.Options{Cards: bad, Scaffold: bad, Output: out("p.parquet"), StateOut: out("s.json"),
				Loop: l, Refiner: "builtin"}, std)
		}, "rho"},
		{"validate", func() error {
			return validate.Run(ctx, validate.Options{Scaffold: bad, Proposals: bad, Cards: bad, Output: out("snap.parquet"),
				Decisions: out("d.parquet"), Limits: loop.Limits}, std)
		}, "caps must be positive"},
		{"report mix without -o", func() error {
			return report.RunMix(ctx, report.MixOptions{Inputs: []string{bad}}, std)
		}, "-o is required"},
		{"report iteration", func() error {
			return report.RunIteration(ctx, report.IterationOptions{Run: dir, K: "0", Scaffold: bad, Iterations: -1}, std)
		}, "--of"},
		{"report groups without files", func() error {
			return report.RunGroups(ctx, report.GroupsOptions{}, std)
		}, "at least one trajectory file"},
		{"report run without a folder", func() error {
			return report.RunSummary(ctx, report.SummaryOptions{}, std)
		}, "wants a run folder"},
		{"report compare", func() error {
			return report.RunCompare(ctx, report.CompareOptions{Entries: []string{"ckpt"}}, std)
		}, "LABEL="},
		{"report sweep", func() error {
			return report.RunSweep(ctx, report.SweepOptions{Root: dir, Variants: []string{"a", "a"}, Seeds: []int64{1}}, std)
		}, "--variants"},
		{"report plots --variants without --seeds", func() error {
			return report.RunPlots(ctx, report.PlotsOptions{Run: dir, Output: bad, Variants: []string{"a"}}, std)
		}, "--seeds"},
		{"report tensorboard without a folder", func() error {
			return report.RunTensorboard(ctx, report.TensorboardOptions{Output: bad}, std)
		}, "wants a run folder"},
		{"report settings without -o", func() error {
			return report.RunSettings(ctx, report.SettingsOptions{From: bad, Write: true}, std)
		}, "--from and -o"},
		{"validate init to stdout", func() error {
			return validate.RunInit(ctx, validate.InitOptions{From: bad, Output: "-"}, std)
		}, "-o: a snapshot is written to a file"},
		{"validate diff --proposals without --decisions", func() error {
			return validate.RunDiff(ctx, validate.DiffOptions{Old: bad, New: bad, Proposals: bad}, std)
		}, "--proposals and --decisions go together"},
		{"validate show", func() error {
			return validate.RunShow(ctx, validate.ShowOptions{Snapshot: bad, Budget: -1}, std)
		}, "--budget"},
	}
	if grpo.KL == 0 {
		t.Fatal("learn grpo's default --kl is 0: the case without --ref shows nothing")
	}
	for _, c := range cases {
		err := c.run()
		if err == nil || command.Code(err) != command.ExitUsage || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want the option's refusal (%q)", c.stage, err, c.want)
			continue
		}
		if strings.Contains(err.Error(), dir) {
			t.Errorf("%s: %v names an input: the input was read before the options were checked", c.stage, err)
		}
	}
}

package pipelines

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/parquet-go/parquet-go"

	"github.com/pats-rl/pats/lib/rl"
	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/stage"
	stageaudit "github.com/pats-rl/pats/lib/stage/audit"
	"github.com/pats-rl/pats/lib/stage/cards"
	"github.com/pats-rl/pats/lib/stage/control"
	"github.com/pats-rl/pats/lib/stage/evaluate"
	"github.com/pats-rl/pats/lib/stage/learn"
	"github.com/pats-rl/pats/lib/stage/play"
	"github.com/pats-rl/pats/lib/stage/rollout"
	"github.com/pats-rl/pats/lib/table"
)

var quiet = stage.Streams{Stdout: io.Discard, Stderr: io.Discard}

// nullCounts returns the NULL count of each named column of a Parquet
// file (from its column chunks' statistics) and its row count.
func nullCounts(t *testing.T, path string, cols []string) (map[string]int64, int64) {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(fh, st.Size())
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	got := map[string]int64{}
	for _, name := range cols {
		l, ok := f.Schema().Lookup(name)
		if !ok {
			t.Fatalf("%s: no column %s", path, name)
		}
		got[name] = 0
		for _, rg := range f.Metadata().RowGroups {
			got[name] += rg.Columns[l.ColumnIndex].MetaData.Statistics.NullCount
		}
	}
	return got, f.NumRows()
}

// rolloutFile runs the rollout stage with policy (oracle, random or a
// checkpoint folder) into dir/name and returns its path.
func rolloutFile(t *testing.T, dir, name, policy string) string {
	t.Helper()
	out := filepath.Join(dir, name)
	ro := rollout.Options{Options: play.Options{Batch: play.DefaultBatch, Server: play.ServerOptions{Concurrency: play.DefaultConcurrency}, Env: "household", Split: "train", Tasks: 3, Group: 2, Seed: 5,
		Policy: policy, PolicyOptions: play.PolicyOptions{Temperature: 1, TopP: 1, RepPenalty: 1, MaxContext: play.DefaultMaxContext, MaxActionTokens: 4,
			Admissible: "none"}, InvalidPenalty: play.DefaultInvalidPenalty}, Output: out}
	if err := ro.Check(); err != nil {
		t.Fatal(err)
	}
	if err := rollout.Run(context.Background(), ro, quiet); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestNullsInOutputs: the files the stages write from real runs carry
// NULL, not a stand-in (0, NaN, -1, ""), where a value is absent, and a
// value where it is not. Each case names a column's NULL count as a share
// of the file's rows: all (every row lacks it), none, or an exact count.
func TestNullsInOutputs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs rollouts and training on a tiny checkpoint")
	}
	dir := t.TempDir()
	ck := filepath.Join(dir, "tinyck")
	tinyWordLevelCheckpoint(t, ck)
	const all = -1 // every row
	cases := []struct {
		name string
		file func() string
		want map[string]int64 // column -> NULL count (all: every row)
	}{
		{"oracle rollout: no sampling rule, no weights", func() string { return rolloutFile(t, dir, "oracle.parquet", "oracle") },
			map[string]int64{"temperature": all, "top_p": all, "top_k": all, "repetition_penalty": all, "policy_hash": all, "run": all, "env": 0}},
		{"random rollout", func() string { return rolloutFile(t, dir, "random.parquet", "random") },
			map[string]int64{"temperature": all, "top_p": all, "top_k": all, "repetition_penalty": all, "policy_hash": all}},
		{"checkpoint rollout: its sampling rule", func() string { return rolloutFile(t, dir, "ckpt.parquet", ck) },
			map[string]int64{"temperature": 0, "top_p": 0, "top_k": 0, "repetition_penalty": 0, "policy_hash": 0}},
		{"learn sft metrics: no GRPO columns", func() string {
			out := filepath.Join(dir, "sft.parquet")
			cfg := rl.DefaultSFT()
			cfg.Epochs = 1
			if err := learn.RunSFT(context.Background(), learn.SFTOptions{Init: ck, Demos: []string{filepath.Join(dir, "oracle.parquet")},
				Output: filepath.Join(dir, "ck-sft"), Metrics: out, Seed: 1, Config: cfg}, quiet); err != nil {
				t.Fatal(err)
			}
			return out
		}, map[string]int64{"policy_loss": all, "kl": all, "clip_frac": all, "ratio_mean": all, "adv_mean": all, "adv_std": all,
			"skill_name_share": all, "zero_var_groups": all, "groups": all, "entropy": 0, "loss": 0}},
		{"learn grpo metrics: every GRPO column", func() string {
			out := filepath.Join(dir, "grpo.parquet")
			if err := learn.RunGRPO(context.Background(), learn.GRPOOptions{Init: ck, Ref: ck, Traj: []string{filepath.Join(dir, "ckpt.parquet")},
				Output: filepath.Join(dir, "ck-grpo"), Metrics: out, Advantages: filepath.Join(dir, "adv.parquet"), Seed: 1, Config: rl.DefaultGRPO()}, quiet); err != nil {
				t.Fatal(err)
			}
			return out
			// The random checkpoint fails every episode: every group is
			// flat, no token carries loss weight, and the share of that
			// weight on skill names (0/0) is NULL.
		}, map[string]int64{"policy_loss": 0, "kl": 0, "clip_frac": 0, "ratio_mean": 0, "adv_mean": 0, "adv_std": 0,
			"skill_name_share": all, "zero_var_groups": 0, "groups": 0, "entropy": 0}},
		{"controller state: no success rate before a type's first evidence", func() string {
			// Cards of the oracle's episodes, and a snapshot with an item
			// of a task type those episodes do not have: its state has no
			// success rate yet; each observed type (and the general
			// layer) has one.
			p := func(n string) string { return filepath.Join(dir, n) }
			if err := cards.Run(context.Background(), cards.Options{Inputs: []string{p("oracle.parquet")}, Output: p("cards.parquet"),
				Per: "group", Top: 8}, quiet); err != nil {
				t.Fatal(err)
			}
			item := table.ScaffoldItem{ID: "t-unseen-0001", Layer: "task", TaskType: "unseen", Text: "look first", Tokens: 2}
			if err := scaffold.WriteSnapshot(p("snap0.parquet"), scaffold.Snapshot{Items: []table.ScaffoldItem{item}}, table.Meta{}); err != nil {
				t.Fatal(err)
			}
			if err := control.Run(context.Background(), control.Options{Cards: p("cards.parquet"), Scaffold: p("snap0.parquet"),
				Output: p("proposals.parquet"), StateOut: p("state0.parquet"), Loop: stage.DefaultLoop()}, quiet); err != nil {
				t.Fatal(err)
			}
			states, _, err := table.ReadFiles[table.ControllerState](p("state0.parquet"))
			if err != nil {
				t.Fatal(err)
			}
			observed := 0
			for _, s := range states {
				if s.Observed {
					observed++
				}
			}
			if observed == 0 || observed == len(states) {
				t.Fatalf("%d of %d states observed; the case wants both kinds", observed, len(states))
			}
			return p("state0.parquet")
		}, map[string]int64{"smoothed_success": 1, "last_success": 1, "task_type": 1, "primitive": 0}},
		{"audit reading: no right-read share without reads", func() string {
			// With a slate the oracle reads only in the two skill
			// conditions (its given read); the other three have no reads.
			out := filepath.Join(dir, "reading.parquet")
			if err := stageaudit.RunReading(context.Background(), stageaudit.ReadingOptions{Options: play.Options{Policy: "oracle", Env: "household", Split: "train",
				Tasks: 2, Group: 1, Seed: 3, Skills: true, Slate: 4, PolicyOptions: play.PolicyOptions{Temperature: 1, TopP: 1, RepPenalty: 1, MaxContext: play.DefaultMaxContext, Admissible: "none"}},
				Output: out}, quiet); err != nil {
				t.Fatal(err)
			}
			return out
		}, map[string]int64{"right_reads": 3, "reads": 0, "success": 0}},
		{"audit credit: no read figures without reads", func() string {
			// The checkpoint's episodes had no slate, hence no reads: every
			// bin's read figures are NULL; their turns have step keys, so
			// the anchor coverage and step-group size are values.
			out := filepath.Join(dir, "credit.parquet")
			if err := stageaudit.RunCredit(context.Background(), stageaudit.CreditOptions{Traj: []string{filepath.Join(dir, "ckpt.parquet")},
				Advantages: filepath.Join(dir, "adv.parquet"), Output: out, Bins: 2}, quiet); err != nil {
				t.Fatal(err)
			}
			return out
		}, map[string]int64{"right_neg_frac": all, "right_sign": all, "wrong_sign": all, "rho_right_neg": all, "rho_right_sign": all,
			"rho_wrong_sign": all, "anchor_coverage": 0, "step_group_size": 0, "episodes": 0}},
		{"evaluate: no read rates without reads", func() string {
			// The oracle's episodes without a slate read nothing: every
			// row's read rates are NULL, the "all" row's task type too,
			// and the oracle has no temperature; the misleading exposure,
			// a share of episodes, is 0, not NULL.
			out := filepath.Join(dir, "metrics.parquet")
			if err := evaluate.Run(context.Background(), evaluate.Options{Inputs: []string{filepath.Join(dir, "oracle.parquet")}, Output: out}, quiet); err != nil {
				t.Fatal(err)
			}
			return out
		}, map[string]int64{"right_read_rate": all, "misleading_read_rate": all, "misleading_exposure": 0, "reads_per_episode": 0, "temperature": all, "task_type": 1}},
		{"audit scaffold: NLLs and gap where tokens were scored", func() string {
			// The checkpoint's episodes with a general-layer scaffold in
			// their context, audited at the checkpoint twice.
			p := func(n string) string { return filepath.Join(dir, n) }
			item := table.ScaffoldItem{ID: "g-0001", Layer: "general", Text: "look first", Tokens: 2}
			if err := scaffold.WriteSnapshot(p("snap-general.parquet"), scaffold.Snapshot{Items: []table.ScaffoldItem{item}}, table.Meta{}); err != nil {
				t.Fatal(err)
			}
			ro := rollout.Options{Options: play.Options{Batch: play.DefaultBatch, Server: play.ServerOptions{Concurrency: play.DefaultConcurrency}, Env: "household", Split: "train", Tasks: 2, Group: 1, Seed: 5,
				Policy: ck, PolicyOptions: play.PolicyOptions{Temperature: 1, TopP: 1, RepPenalty: 1, MaxContext: play.DefaultMaxContext, MaxActionTokens: 4,
					Admissible: "none"}, InvalidPenalty: play.DefaultInvalidPenalty, Scaffold: p("snap-general.parquet")}, Output: p("scaffolded.parquet")}
			if err := ro.Check(); err != nil {
				t.Fatal(err)
			}
			if err := rollout.Run(context.Background(), ro, quiet); err != nil {
				t.Fatal(err)
			}
			if err := stageaudit.RunScaffold(context.Background(), stageaudit.ScaffoldOptions{Checkpoints: []string{ck, ck},
				Traj: []string{p("scaffolded.parquet")}, Output: p("nll.parquet")}, quiet); err != nil {
				t.Fatal(err)
			}
			return p("nll.parquet")
		}, map[string]int64{"nll_with": 0, "nll_without": 0, "gap": 0, "gap_relative": 0, "tokens": 0}},
		{"audit scaffold: no NLL without scored tokens", func() string {
			// The same episodes with their policy-written tokens marked as
			// observations: scaffold tokens, nothing to score.
			p := func(n string) string { return filepath.Join(dir, n) }
			traj, _, err := table.ReadFiles[table.Trajectory](p("scaffolded.parquet"))
			if err != nil {
				t.Fatal(err)
			}
			for i := range traj {
				for j, r := range traj[i].Roles {
					if table.PolicyWritten(r) {
						traj[i].Roles[j] = table.RoleObservation
					}
				}
			}
			if err := table.WriteFile(p("silent.parquet"), traj, table.Meta{}); err != nil {
				t.Fatal(err)
			}
			if err := stageaudit.RunScaffold(context.Background(), stageaudit.ScaffoldOptions{Checkpoints: []string{ck, ck},
				Traj: []string{p("silent.parquet")}, Output: p("nll-silent.parquet")}, quiet); err != nil {
				t.Fatal(err)
			}
			return p("nll-silent.parquet")
		}, map[string]int64{"nll_with": all, "nll_without": all, "gap": all, "gap_relative": all, "tokens": 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := c.file()
			var cols []string
			for col := range c.want {
				cols = append(cols, col)
			}
			got, n := nullCounts(t, path, cols)
			if n == 0 {
				t.Fatalf("%s: no rows", path)
			}
			want := map[string]int64{}
			for col, k := range c.want {
				if k == all {
					k = n
				}
				want[col] = k
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("NULL counts of %d rows (-want +got):\n%s", n, diff)
			}
		})
	}
}

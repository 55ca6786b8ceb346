package play

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/rollout"
	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/table"
)

// base are options that resolve: two household train tasks by the oracle.
func base() Options {
	return Options{Env: "household", Split: "train", Tasks: 2, Group: 1, Seed: 3, Policy: "oracle",
		Slate: 4, ScaffoldBudget: DefaultScaffoldBudget, Batch: DefaultBatch, InvalidPenalty: DefaultInvalidPenalty,
		PolicyOptions: PolicyOptions{Temperature: 1, TopP: 1, RepPenalty: 1, MaxContext: DefaultMaxContext}}
}

// TestResolveJobs: each job of Resolve sets what it is for, and the
// episodes it resolves play.
func TestResolveJobs(t *testing.T) {
	snap := filepath.Join(t.TempDir(), "snap.parquet")
	item := table.ScaffoldItem{ID: "g-0001", Layer: "general", Text: "look first", Tokens: 2}
	if err := scaffold.WriteSnapshot(snap, scaffold.Snapshot{Items: []table.ScaffoldItem{item}, Version: 3, Parent: "sha256:p"}, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		set   func(*Options)
		check func(ep Episodes) string // "" when right
	}{
		{"environment", func(*Options) {}, func(ep Episodes) string {
			if ep.Env.Name() != "household" || ep.Split != "train" || ep.Seed != 3 || ep.ScaffoldVersion != -1 || ep.Context != nil {
				return "environment, split, seed or no-scaffold version not set"
			}
			return ""
		}},
		{"policy and format", func(f *Options) { f.Policy = "random" }, func(ep Episodes) string {
			if ep.Policy.Name() != "random" || ep.Tok == nil || ep.Format == nil || ep.InvalidPenalty != DefaultInvalidPenalty {
				return "policy, tokenizer, format or penalty not set"
			}
			return ""
		}},
		{"skills", func(f *Options) { f.Skills = true }, func(ep Episodes) string {
			if ep.Skills == nil || ep.Slate != 4 || !strings.Contains(ep.SkillsFrom, "household") {
				return "slate not set"
			}
			return ""
		}},
		{"scaffold", func(f *Options) { f.Scaffold = snap }, func(ep Episodes) string {
			if ep.ScaffoldVersion != 3 || !strings.Contains(ep.Scaffold("pick_and_place_simple"), "look first") {
				return "scaffold not rendered"
			}
			return ""
		}},
		{"hints", func(f *Options) { f.Hints = rollout.HintsRight }, func(ep Episodes) string {
			if ep.Hint == nil {
				return "no hint function"
			}
			return ""
		}},
		{"preread", func(f *Options) { f.Preread = "right" }, func(ep Episodes) string {
			if ep.Preread == nil {
				return "no preread function"
			}
			return ""
		}},
	}
	for _, c := range cases {
		f := base()
		c.set(&f)
		ep, err := f.Resolve(context.Background())
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if msg := c.check(ep); msg != "" {
			t.Errorf("%s: %s", c.name, msg)
		}
		rows, err := rollout.Run(context.Background(), ep.Options)
		if err != nil || len(rows) != 2 {
			t.Errorf("%s: %d rows, %v", c.name, len(rows), err)
		}
	}
}

// TestResolveRefuses: each job refuses a bad value with one usage line
// that names the option and the value.
func TestResolveRefuses(t *testing.T) {
	cases := []struct {
		name string
		set  func(*Options)
		want string
	}{
		{"environment", func(f *Options) { f.Env = "nowhere" }, "nowhere"},
		{"split", func(f *Options) { f.Split = "dev" }, `unknown split "dev"`},
		{"shard", func(f *Options) { f.Shard = "3/2" }, "--shard"},
		{"policy", func(f *Options) { f.Policy = "nobody" }, `unknown --policy "nobody"`},
		{"device", func(f *Options) { f.Device = "abacus" }, "--device"},
		{"prompt format", func(f *Options) { f.PromptFormat = "xml" }, `--prompt-format "xml"`},
		{"builtin tokens", func(f *Options) { f.PromptFormat = "chatml" }, "--prompt-format chatml"},
		{"slate", func(f *Options) { f.Skills, f.Slate = true, 10000 }, "--slate 10000"},
		{"text read", func(f *Options) { f.Skills, f.TextRead = true, "maybe" }, `--text-read "maybe"`},
		{"skills dir", func(f *Options) { f.SkillsDir = "/nonexistent/skills" }, "/nonexistent/skills"},
		{"scaffold", func(f *Options) { f.Scaffold = "/nonexistent/snap.parquet" }, "/nonexistent/snap.parquet"},
		{"hints", func(f *Options) { f.Hints = "loud" }, "--hints"},
		{"preread with skills", func(f *Options) { f.Skills, f.Preread = true, "right" }, "--preread right"},
		{"group", func(f *Options) { f.Group = MaxEpisodes + 1 }, "--group"},
		{"episodes", func(f *Options) { f.Tasks, f.Group = 0, MaxEpisodes }, "more than one run's limit"},
		{"vLLM without a model", func(f *Options) { f.Policy, f.Tokenizer = "http://127.0.0.1:8000/v1", "/nonexistent/ckpt" }, "needs --model"},
		{"server option without a server", func(f *Options) { f.Server.Set, f.Server.Model = true, "m" }, "go with a server --policy"},
		{"tokenizer with a checkpoint", func(f *Options) { f.Policy, f.Tokenizer = "/nonexistent/ckpt", "/nonexistent/tok" }, "--tokenizer is for the oracle and random"},
		{"unload without load", func(f *Options) {
			f.Policy, f.Tokenizer, f.Server.Kind, f.Server.UnloadAdapter = "http://127.0.0.1:8000", "/nonexistent/ckpt", "sglang", "old"
		}, "--unload-adapter goes with --load-adapter"},
	}
	for _, c := range cases {
		f := base()
		c.set(&f)
		_, err := f.Resolve(context.Background())
		if err == nil || command.Code(err) != command.ExitUsage || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one usage line with %q", c.name, err, c.want)
		}
	}
}

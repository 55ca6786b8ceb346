package play

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/policy"
)

// The specs of the three commands that play episodes, as their stages
// declare them (the stages import this package, not the other way).
var (
	full    = Spec{Split: "train", Policy: "oracle", Temperature: TrainTemperature, Scaffold: true, SkillsDir: true, Training: true}
	eval    = Spec{Split: "valid_seen", Temperature: EvalTemperature, Scaffold: true}
	reading = Spec{Split: "valid_seen", Temperature: EvalTemperature, Required: true, SkillsDir: true}
)

// from runs an app of spec s's flags on args and returns what From read.
func from(t *testing.T, s Spec, args ...string) Options {
	t.Helper()
	var got Options
	app := &cli.App{Name: "t", Flags: Flags(s), Action: func(c *cli.Context) error {
		var err error
		got, err = From(c, s)
		return err
	}}
	if err := app.Run(append([]string{"t"}, args...)); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return got
}

func names(fs []cli.Flag) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Names()[0])
	}
	return out
}

// TestFlagsBySpec: the core options every command offers, and each group
// only where its spec asks for it.
func TestFlagsBySpec(t *testing.T) {
	core := []string{"device", "env", "split", "tasks", "group", "seed", "policy", "skills", "slate",
		"temperature", "top-p", "top-k", "repetition-penalty", "greedy", "prompt-format", "action-format", "max-action-tokens",
		"history", "admissible", "max-context", "step-timeout", "progress", "progress-interval",
		"tokenizer", "model", "api-key", "concurrency", "server-kind", "server-timeout", "server-retries",
		"load-adapter", "unload-adapter", "env-concurrency", "env-timeout", "env-retries", "env-workers"}
	groups := map[string][]string{
		"scaffold":  {"scaffold", "scaffold-budget"},
		"skillsdir": {"skills-dir"},
		"training":  {"shard", "first-sample", "text-read", "preread", "hints", "invalid-penalty", "batch"},
	}
	cases := []struct {
		name string
		s    Spec
		with []string
	}{
		{"rollout", full, []string{"scaffold", "skillsdir", "training"}},
		{"evaluate", eval, []string{"scaffold"}},
		{"audit reading", reading, []string{"skillsdir"}},
	}
	for _, c := range cases {
		want := slices.Clone(core)
		for _, g := range c.with {
			want = append(want, groups[g]...)
		}
		got := names(Flags(c.s))
		if d := cmp.Diff(want, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, d)
		}
	}
}

// TestFromDefaults: an option a command does not offer, and one not
// given, takes its named default.
func TestFromDefaults(t *testing.T) {
	want := Options{Env: DefaultEnv, Split: "valid_seen", Group: DefaultGroup, Seed: DefaultSeed,
		Slate: DefaultSlate, ScaffoldBudget: DefaultScaffoldBudget, Batch: DefaultBatch, InvalidPenalty: DefaultInvalidPenalty,
		Device: "cpu", PolicyOptions: PolicyOptions{Temperature: EvalTemperature, TopP: 1, RepPenalty: 1,
			Admissible: DefaultAdmissible, MaxContext: DefaultMaxContext},
		Server:    ServerOptions{Concurrency: DefaultConcurrency, Timeout: policy.DefaultServerTimeout, Retries: policy.DefaultServerRetries},
		EnvLimits: EnvOptions{Concurrency: env.DefaultServerConcurrency, Timeout: env.DefaultServerTimeout, Retries: env.DefaultServerRetries, Workers: 1}}
	t.Setenv("OPENAI_API_KEY", "")
	opts := cmpopts.IgnoreFields(Options{}, "Progress")
	if d := cmp.Diff(want, from(t, eval), opts); d != "" {
		t.Errorf("evaluate (-want +got):\n%s", d)
	}
	if d := cmp.Diff(want, from(t, reading, "--policy", "oracle"), opts, cmpopts.IgnoreFields(Options{}, "Policy")); d != "" {
		t.Errorf("audit reading (-want +got):\n%s", d)
	}
	want.Split, want.Policy, want.Temperature, want.Hints, want.Preread = "train", "oracle", TrainTemperature, DefaultHints, DefaultPreread
	if d := cmp.Diff(want, from(t, full), opts); d != "" {
		t.Errorf("rollout (-want +got):\n%s", d)
	}
}

// TestFromReadsEvery: each option a command offers, given a value other
// than its default, changes what From reads; none is declared and left
// unread.
func TestFromReadsEvery(t *testing.T) {
	value := map[string]string{"device": "cuda", "split": "valid_unseen", "progress": "none", "progress-interval": "7s",
		"shard": "1/2", "text-read": "none", "preread": "right", "hints": "right", "admissible": "all",
		"prompt-format": "chatml", "step-timeout": "3s", "policy": "random", "server-timeout": "3s",
		"env-timeout": "3s", "env-retries": "5"}
	for _, s := range []Spec{full, eval, reading} {
		base := from(t, s, "--policy", "oracle")
		for _, f := range Flags(s) {
			name := f.Names()[0]
			if name == "help" {
				continue
			}
			v, ok := value[name]
			if !ok {
				switch f.(type) {
				case *cli.BoolFlag:
					v = "true"
				case *cli.StringFlag:
					v = "x"
				default:
					v = "3"
				}
			}
			args := []string{"--" + name + "=" + v}
			if name != "policy" {
				args = append(args, "--policy", "oracle")
			}
			got := from(t, s, args...)
			if cmp.Equal(comparable(base), comparable(got), cmpopts.EquateEmpty()) {
				t.Errorf("spec %+v: --%s=%s read as the default", s, name, v)
			}
		}
	}
}

// comparable is o with its progress settings in words (their writer
// aside).
func comparable(o Options) struct {
	O Options
	P string
} {
	p := "none"
	if o.Progress != nil {
		p = fmt.Sprintf("%v %v", o.Progress.Mode, o.Progress.Interval)
	}
	o.Progress = nil
	return struct {
		O Options
		P string
	}{o, p}
}

// TestPolicyRequired: audit reading's --policy is declared required.
func TestPolicyRequired(t *testing.T) {
	for _, c := range []struct {
		s    Spec
		want bool
	}{{full, false}, {eval, false}, {reading, true}} {
		for _, f := range Flags(c.s) {
			if f.Names()[0] == "policy" {
				if got := f.(cli.RequiredFlag).IsRequired(); got != c.want {
					t.Errorf("spec %+v: --policy required %v, want %v", c.s, got, c.want)
				}
			}
		}
	}
}

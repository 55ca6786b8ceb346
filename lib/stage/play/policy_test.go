package play

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v2"
)

// TestPolicyFrom: the policy options read what is given, say which were
// given, and take the command's defaults (the evaluation temperature a
// parameter) where none is.
func TestPolicyFrom(t *testing.T) {
	cases := []struct {
		name string
		d    float64
		args []string
		want PolicyOptions
	}{
		{"rollout defaults", TrainTemperature, nil,
			PolicyOptions{Temperature: 1, TopP: 1, RepPenalty: 1, Admissible: "none", MaxContext: 4096}},
		{"evaluation defaults", EvalTemperature, nil,
			PolicyOptions{Temperature: 0.4, TopP: 1, RepPenalty: 1, Admissible: "none", MaxContext: 4096}},
		{"given", EvalTemperature, []string{"--temperature", "0.7", "--top-p", "0.8", "--top-k", "20", "--repetition-penalty", "1.05",
			"--greedy", "--prompt-format", "chatml", "--action-format", "tools", "--max-action-tokens", "64", "--history", "2", "--admissible", "here",
			"--max-context", "2048", "--step-timeout", "30s"},
			PolicyOptions{Temperature: 0.7, TopP: 0.8, TopK: 20, RepPenalty: 1.05, Greedy: true, PromptFormat: "chatml", ActionFormat: "tools",
				MaxActionTokens: 64, History: 2, Admissible: "here", MaxContext: 2048, StepTimeout: 30 * time.Second,
				TemperatureSet: true, TopPSet: true, TopKSet: true, RepPenaltySet: true,
				HistorySet: true, AdmissibleSet: true, MaxActionTokensSet: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got PolicyOptions
			app := &cli.App{Name: "t", Flags: PolicyFlags(tc.d), Action: func(c *cli.Context) error { got = PolicyFrom(c); return nil }}
			if err := app.Run(append([]string{"t"}, tc.args...)); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestPolicyCheck: each policy option out of range is refused by Check
// in one line naming its flag; a zero top-p or max-context, which a
// library caller may pass for the default, is refused only as a command
// line gives it (From).
func TestPolicyCheck(t *testing.T) {
	cases := []struct {
		name  string
		set   func(*PolicyOptions)
		given []string // refused by From when a command line gives it
		want  string
	}{
		{"temperature", func(p *PolicyOptions) { p.Temperature = -1 }, nil, "--temperature"},
		{"top-p", func(p *PolicyOptions) { p.TopP = 2 }, nil, "--top-p"},
		{"top-p zero", func(p *PolicyOptions) { p.TopP = 0 }, []string{"--top-p", "0"}, "--top-p"},
		{"top-k", func(p *PolicyOptions) { p.TopK = -1 }, nil, "--top-k"},
		{"repetition penalty", func(p *PolicyOptions) { p.RepPenalty = -1 }, nil, "--repetition-penalty"},
		{"max-context", func(p *PolicyOptions) { p.MaxContext = -1 }, nil, "--max-context"},
		{"max-context zero", func(p *PolicyOptions) { p.MaxContext = 0 }, []string{"--max-context", "0"}, "--max-context"},
		{"step-timeout", func(p *PolicyOptions) { p.StepTimeout = -time.Second }, nil, "--step-timeout"},
	}
	if err := base().Check(); err != nil {
		t.Fatalf("defaults refused: %v", err)
	}
	for _, tc := range cases {
		f := base()
		tc.set(&f.PolicyOptions)
		err := f.Check()
		if tc.given != nil {
			if err != nil {
				t.Errorf("%s: a library caller's zero refused: %v", tc.name, err)
			}
			err = fromErr(full, tc.given...)
		}
		if err == nil || !strings.HasPrefix(err.Error(), tc.want+" ") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line starting %q", tc.name, err, tc.want)
		}
	}
}

// fromErr runs an app of spec s's flags on args and returns From's error.
func fromErr(s Spec, args ...string) error {
	app := &cli.App{Name: "t", Flags: Flags(s), Action: func(c *cli.Context) error {
		_, err := From(c, s)
		return err
	}}
	return app.Run(append([]string{"t"}, args...))
}

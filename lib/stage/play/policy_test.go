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

// TestPolicyCheck: each policy option out of range is refused once, in
// one line naming its flag; a zero top-p or max-context only as a command
// gives it (CheckGiven).
func TestPolicyCheck(t *testing.T) {
	ok := PolicyOptions{Temperature: 1, TopP: 1, RepPenalty: 1, MaxContext: 4096}
	cases := []struct {
		name  string
		set   func(*PolicyOptions)
		given bool // refused only by CheckGiven
		want  string
	}{
		{"temperature", func(p *PolicyOptions) { p.Temperature = -1 }, false, "--temperature"},
		{"top-p", func(p *PolicyOptions) { p.TopP = 2 }, false, "--top-p"},
		{"top-p zero", func(p *PolicyOptions) { p.TopP = 0 }, true, "--top-p"},
		{"top-k", func(p *PolicyOptions) { p.TopK = -1 }, false, "--top-k"},
		{"repetition penalty", func(p *PolicyOptions) { p.RepPenalty = -1 }, false, "--repetition-penalty"},
		{"max-context", func(p *PolicyOptions) { p.MaxContext = -1 }, false, "--max-context"},
		{"max-context zero", func(p *PolicyOptions) { p.MaxContext = 0 }, true, "--max-context"},
		{"step-timeout", func(p *PolicyOptions) { p.StepTimeout = -time.Second }, false, "--step-timeout"},
	}
	if err := ok.check(); err != nil {
		t.Fatalf("defaults refused: %v", err)
	}
	if err := ok.CheckGiven(); err != nil {
		t.Fatalf("defaults refused: %v", err)
	}
	for _, tc := range cases {
		p := ok
		tc.set(&p)
		err, other := p.check(), p.CheckGiven()
		if tc.given {
			err, other = other, err
		}
		if err == nil || !strings.HasPrefix(err.Error(), tc.want+" ") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line starting %q", tc.name, err, tc.want)
		}
		if other != nil {
			t.Errorf("%s: refused twice: %v", tc.name, other)
		}
	}
}

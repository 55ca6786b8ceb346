package stage

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/scaffold"
)

// parse runs a tiny app with the loop flags and returns what LoopFrom
// read, and its error.
func parse(t *testing.T, args ...string) (Loop, error) {
	t.Helper()
	var got Loop
	var gotErr error
	app := &cli.App{Name: "x", Flags: LoopFlags(), Action: func(c *cli.Context) error {
		got, gotErr = LoopFrom(c)
		return nil
	}}
	if err := app.Run(append([]string{"x"}, args...)); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return got, gotErr
}

func TestLoopFrom(t *testing.T) {
	l, err := parse(t)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(DefaultLoop(), l); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
	l, err = parse(t, "--rho-r", "0.2", "--rho-c", "0.9", "--ema", "0", "--max-items", "5", "--max-tokens", "90",
		"--max-general-items", "2", "--max-general-tokens", "30", "--expand-quota", "1", "--min-support", "3",
		"--max-item-tokens", "12", "--primitives", "no-revise", "--frozen", "--no-general", "--tokenizer", "tok.json")
	if err != nil {
		t.Fatal(err)
	}
	want := Loop{RhoR: 0.2, RhoC: 0.9, EMA: 0, Primitives: []string{scaffold.Expand, scaffold.Compress, scaffold.ForcedPrune},
		Frozen: true, General: false, Tokenizer: "tok.json",
		Limits: scaffold.Limits{MaxItems: 5, MaxTokens: 90, MaxGeneralItems: 2, MaxGeneralTokens: 30, ExpandQuota: 1, MinSupport: 3, MaxItemTokens: 12}}
	if diff := cmp.Diff(want, l); diff != "" {
		t.Errorf("flags (-want +got):\n%s", diff)
	}
	bad := map[string][]string{
		"caps":        {"--max-tokens", "0"},
		"quota":       {"--expand-quota", "-1"},
		"support":     {"--min-support", "0"},
		"item tokens": {"--max-item-tokens", "0"},
		"primitive":   {"--primitives", "grow"},
	}
	for name, args := range bad {
		_, err := parse(t, args...)
		if command.Code(err) != command.ExitUsage || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v (exit %d), want a one-line usage error", name, err, command.Code(err))
		}
	}
}

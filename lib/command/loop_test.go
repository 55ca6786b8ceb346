package command

import (
	"reflect"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/control"
)

// parse runs a tiny app with the loop flags and returns what SettingsFrom
// read, and its error.
func parse(t *testing.T, args ...string) (control.Settings, error) {
	t.Helper()
	var got control.Settings
	var gotErr error
	app := &cli.App{Name: "x", Flags: CLIFlags(), Action: func(c *cli.Context) error {
		got, gotErr = SettingsFrom(c)
		return nil
	}}
	if err := app.Run(append([]string{"x"}, args...)); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return got, gotErr
}

func TestSettingsFrom(t *testing.T) {
	s, err := parse(t)
	if err != nil {
		t.Fatal(err)
	}
	want := control.DefaultSettings()
	want.Control.Enabled = control.All
	if !reflect.DeepEqual(s, want) {
		t.Errorf("defaults:\n got %+v\nwant %+v", s, want)
	}
	s, err = parse(t, "--rho-r", "0.2", "--rho-c", "0.9", "--ema", "0", "--max-items", "5", "--max-tokens", "90",
		"--max-general-items", "2", "--max-general-tokens", "30", "--expand-quota", "1", "--min-support", "3",
		"--max-item-tokens", "12", "--primitives", "no-revise", "--frozen", "--no-general")
	if err != nil {
		t.Fatal(err)
	}
	o := s.Control
	if o.RhoR != 0.2 || o.RhoC != 0.9 || o.EMA != 0 || o.MaxItems != 5 || o.MaxTokens != 90 || o.MaxGeneralItems != 2 ||
		o.MaxGeneralTokens != 30 || o.ExpandQuota != 1 || !o.Frozen || o.General || s.MinSupport != 3 || s.MaxItemTokens != 12 ||
		!reflect.DeepEqual(o.Enabled, []string{control.Expand, control.Compress, control.ForcedPrune}) {
		t.Errorf("flags not read: %+v", s)
	}
	bad := map[string][]string{
		"thresholds":  {"--rho-r", "0.8", "--rho-c", "0.5"},
		"ema":         {"--ema", "1"},
		"caps":        {"--max-tokens", "0"},
		"quota":       {"--expand-quota", "-1"},
		"support":     {"--min-support", "0"},
		"item tokens": {"--max-item-tokens", "0"},
		"primitive":   {"--primitives", "grow"},
	}
	for name, args := range bad {
		_, err := parse(t, args...)
		if Code(err) != ExitUsage || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v (exit %d), want a one-line usage error", name, err, Code(err))
		}
	}
}

package stage

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v2"
)

// TestListForms: a list option repeats and takes comma-separated values,
// its old spellings are hidden aliases whose values join it, the
// trajectory inputs also come as arguments, and a list of names also
// takes one space-separated word.
func TestListForms(t *testing.T) {
	cases := []struct {
		name string
		args []string
		read func(c *cli.Context) []string
		want []string
	}{
		{"repeated", []string{"--traj", "a.parquet", "--traj", "b.parquet"}, trajOf, []string{"a.parquet", "b.parquet"}},
		{"comma-separated", []string{"--traj", "a.parquet,b.parquet"}, trajOf, []string{"a.parquet", "b.parquet"}},
		{"mixed", []string{"--traj", "a.parquet,b.parquet", "--traj", "c.parquet"}, trajOf, []string{"a.parquet", "b.parquet", "c.parquet"}},
		{"arguments", []string{"a.parquet", "b.parquet"}, trajOf, []string{"a.parquet", "b.parquet"}},
		{"flag then arguments", []string{"--traj", "a.parquet", "b.parquet"}, trajOf, []string{"a.parquet", "b.parquet"}},
		{"stdin", []string{"-"}, trajOf, []string{"-"}},
		{"old spelling", []string{"--demos", "a.parquet,b.parquet"}, trajOf, []string{"a.parquet", "b.parquet"}},
		{"old and new", []string{"--demos", "b.parquet", "--traj", "a.parquet"}, trajOf, []string{"a.parquet", "b.parquet"}},
		{"empty items", []string{"--traj", "a.parquet,,b.parquet,"}, trajOf, []string{"a.parquet", "b.parquet"}},
		{"policy repeated", []string{"--policy", "ckpt/0", "--policy", "ckpt/5"}, policyOf, []string{"ckpt/0", "ckpt/5"}},
		{"policy comma-separated", []string{"--policy", "ckpt/0,ckpt/5"}, policyOf, []string{"ckpt/0", "ckpt/5"}},
		{"checkpoints (old)", []string{"--checkpoints", "ckpt/0,ckpt/5"}, policyOf, []string{"ckpt/0", "ckpt/5"}},
		{"names space-separated", []string{"--variants", "pats grpo"}, variantsOf, []string{"pats", "grpo"}},
		{"names comma-separated", []string{"--variants", "pats,grpo"}, variantsOf, []string{"pats", "grpo"}},
		{"names repeated", []string{"--variants", "pats", "--variants", "grpo static"}, variantsOf, []string{"pats", "grpo", "static"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			app := listApp(func(c *cli.Context) error { got = tc.read(c); return nil })
			if err := app.Run(append([]string{"t"}, tc.args...)); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("values (-want +got):\n%s", d)
			}
		})
	}
}

// TestListHelp: the help names each list option once, with its forms, and
// never an old spelling.
func TestListHelp(t *testing.T) {
	app := listApp(func(*cli.Context) error { return nil })
	var b bytes.Buffer
	app.Writer = &b
	if err := app.Run([]string{"t", "--help"}); err != nil {
		t.Fatal(err)
	}
	h := b.String()
	for _, want := range []string{"--traj", "--policy", "--variants", "comma-separated"} {
		if !strings.Contains(h, want) {
			t.Errorf("help lacks %q:\n%s", want, h)
		}
	}
	for _, old := range []string{"--demos", "--checkpoints"} {
		if strings.Contains(h, old) {
			t.Errorf("help shows the old spelling %s:\n%s", old, h)
		}
	}
}

// TestTrajRequired: none at all is a usage error when one is needed.
func TestTrajRequired(t *testing.T) {
	var err error
	app := listApp(func(c *cli.Context) error { _, err = Traj(c, true, "demos"); return nil })
	if e := app.Run([]string{"t"}); e != nil {
		t.Fatal(e)
	}
	if err == nil || !strings.Contains(err.Error(), "--traj") {
		t.Errorf("no trajectories: %v", err)
	}
}

func listApp(action cli.ActionFunc) *cli.App {
	flags := append(TrajFlags("trajectory files", "demos"), ListFlag("policy", "checkpoint folders", "checkpoints")...)
	flags = append(flags, ListFlag("variants", "variants")...)
	return &cli.App{Name: "t", Flags: flags, Action: action, HideHelpCommand: true}
}

func trajOf(c *cli.Context) []string     { in, _ := Traj(c, false, "demos"); return in }
func policyOf(c *cli.Context) []string   { return List(c, "policy", "checkpoints") }
func variantsOf(c *cli.Context) []string { return Names(c, "variants") }

package command

import (
	"bytes"
	"os"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestRequiredFlags: a flag declared required (Required: true) and not
// given is a usage error of one line naming it as users type it, with
// nothing on stdout and the action not run; given, the action runs.
func TestRequiredFlags(t *testing.T) {
	ran := false
	app := func() *cli.App {
		ran = false
		act := func(*cli.Context) error { ran = true; return nil }
		return &cli.App{Name: "x", Commands: []*cli.Command{
			{Name: "one", Action: act, Flags: []cli.Flag{
				&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Required: true},
				&cli.IntFlag{Name: "n"}}},
			{Name: "two", Action: act, Flags: []cli.Flag{
				&cli.StringSliceFlag{Name: "variants", Required: true},
				&cli.StringSliceFlag{Name: "seeds", Required: true},
				&cli.StringFlag{Name: "root", Required: true}}},
		}}
	}
	cases := []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"x", "one", "--n", "2"}, ExitUsage, "x: -o is required\n"},
		{[]string{"x", "one", "-o", "out"}, ExitOK, ""},
		{[]string{"x", "one", "--output=out"}, ExitOK, ""},
		{[]string{"x", "two", "--root", "r"}, ExitUsage, "x: --variants and --seeds are required\n"},
		{[]string{"x", "two"}, ExitUsage, "x: --variants, --seeds and --root are required\n"},
		{[]string{"x", "two", "--variants", "a", "--seeds", "1", "--root", "r"}, ExitOK, ""},
	}
	// stdout is the process's: the check must print no help there.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	defer func() { os.Stdout = stdout }()
	for _, c := range cases {
		var stderr bytes.Buffer
		code := Run(app(), c.args, &stderr)
		if code != c.code || stderr.String() != c.err || ran != (c.code == ExitOK) {
			t.Errorf("%v: exit %d, stderr %q, ran %v; want exit %d, stderr %q", c.args, code, stderr.String(), ran, c.code, c.err)
		}
	}
	w.Close()
	var out bytes.Buffer
	out.ReadFrom(r)
	if out.Len() != 0 {
		t.Errorf("stdout: %q, want nothing", out.String())
	}
}

package command

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v2"
)

func TestInterspersed(t *testing.T) {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}},
		&cli.BoolFlag{Name: "greedy"},
		&cli.IntFlag{Name: "epochs"},
	}
	cases := []struct{ in, want []string }{
		{[]string{"a.parquet", "-o", "b"}, []string{"-o", "b", "--", "a.parquet"}},
		{[]string{"-o", "b", "a", "c"}, []string{"-o", "b", "--", "a", "c"}},
		{[]string{"a", "--greedy", "b"}, []string{"--greedy", "--", "a", "b"}},
		{[]string{"-", "--epochs=3"}, []string{"--epochs=3", "--", "-"}},
		{[]string{"a", "--", "-o"}, []string{"--", "a", "-o"}},
		{[]string{"--epochs", "2"}, []string{"--epochs", "2"}},
	}
	for _, c := range cases {
		if diff := cmp.Diff(c.want, interspersed(flags, c.in)); diff != "" {
			t.Errorf("%v (-want +got):\n%s", c.in, diff)
		}
	}
}

func TestRunExitCodes(t *testing.T) {
	app := func(err error) *cli.App {
		return &cli.App{Name: "x", Flags: []cli.Flag{&cli.StringFlag{Name: "o"}},
			Action: func(*cli.Context) error { return err }}
	}
	var sink discard
	if c := Run(app(nil), []string{"x", "in", "-o", "out"}, &sink); c != ExitOK {
		t.Errorf("success: exit %d", c)
	}
	if c := Run(app(Usagef("bad")), []string{"x"}, &sink); c != ExitUsage {
		t.Errorf("usage error: exit %d", c)
	}
	if c := Run(app(errString("boom")), []string{"x"}, &sink); c != ExitFailure {
		t.Errorf("failure: exit %d", c)
	}
	if c := Run(app(nil), []string{"x", "--nope"}, &sink); c != ExitUsage {
		t.Errorf("unknown flag: exit %d", c)
	}
}

// TestCodeBadInput: an error that says it is bad input (BadInput), bare,
// wrapped or joined, is exit 2; one that says it is not, or says nothing,
// is exit 1.
func TestCodeBadInput(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want int
	}{
		{"marked", badInput{true}, ExitUsage},
		{"wrapped", fmt.Errorf("--skills-dir sk: %w", badInput{true}), ExitUsage},
		{"joined", errors.Join(errString("a"), badInput{true}), ExitUsage},
		{"marked false", badInput{false}, ExitFailure},
		{"unmarked", errString("boom"), ExitFailure},
		{"wrapped unmarked", fmt.Errorf("x: %w", errString("boom")), ExitFailure},
	}
	for _, c := range cases {
		if got := Code(c.err); got != c.want {
			t.Errorf("%s: exit %d, want %d", c.name, got, c.want)
		}
	}
}

type badInput struct{ bad bool }

func (b badInput) Error() string  { return "bad" }
func (b badInput) BadInput() bool { return b.bad }

type errString string

func (e errString) Error() string { return string(e) }

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func TestSubcommandUsageError(t *testing.T) {
	app := &cli.App{Name: "x", Commands: []*cli.Command{{Name: "sub", Flags: []cli.Flag{&cli.IntFlag{Name: "n"}},
		Action: func(*cli.Context) error { return nil }}}}
	var sink discard
	if c := Run(app, []string{"x", "sub", "--nope"}, &sink); c != ExitUsage {
		t.Errorf("unknown subcommand flag: exit %d, want 2", c)
	}
	if c := Run(app, []string{"x", "sub", "--n", "abc"}, &sink); c != ExitUsage {
		t.Errorf("bad subcommand flag value: exit %d, want 2", c)
	}
	if c := Run(app, []string{"x", "sub", "--n", "3"}, &sink); c != ExitOK {
		t.Errorf("good subcommand: exit %d", c)
	}
}

func TestMissingOrUnknownSubcommand(t *testing.T) {
	app := func() *cli.App {
		return &cli.App{Name: "x", Commands: []*cli.Command{{Name: "sub", Action: func(*cli.Context) error { return nil }}}}
	}
	var sink discard
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"x"}, ExitUsage},
		{[]string{"x", "foo"}, ExitUsage},
		{[]string{"x", "sub"}, ExitOK},
		{[]string{"x", "--help"}, ExitOK},
	} {
		if got := Run(app(), c.args, &sink); got != c.want {
			t.Errorf("%v: exit %d, want %d", c.args, got, c.want)
		}
	}
}

func TestErrorLineScrubsCredentials(t *testing.T) {
	app := &cli.App{Name: "x", Action: func(*cli.Context) error {
		return errString(`Post "http://alice:s3cret@127.0.0.1:1/v1/chat/completions": connection refused`)
	}}
	var b strings.Builder
	Run(app, []string{"x"}, &b)
	if strings.Contains(b.String(), "s3cret") || strings.Contains(b.String(), "alice") {
		t.Errorf("stderr %q keeps the credentials", b.String())
	}
}

// TestParseErrorsDoubleDash: parse errors name long flags with two dashes,
// as users type them, and one-letter flags with one.
func TestParseErrorsDoubleDash(t *testing.T) {
	cases := []struct{ in, want string }{
		{"flag provided but not defined: -tasks", "flag provided but not defined: --tasks"},
		{`invalid value "abc" for flag -group: parse error`, `invalid value "abc" for flag --group: parse error`},
		{"flag provided but not defined: -x", "flag provided but not defined: -x"},
		{"flag provided but not defined: --tasks", "flag provided but not defined: --tasks"},
	}
	for _, c := range cases {
		if got := doubleDash(c.in); got != c.want {
			t.Errorf("doubleDash(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	app := &cli.App{Name: "x", Flags: []cli.Flag{&cli.IntFlag{Name: "group"}}, Action: func(*cli.Context) error { return nil }}
	var b strings.Builder
	Run(app, []string{"x", "--tasks", "3"}, &b)
	if !strings.Contains(b.String(), "--tasks") {
		t.Errorf("stderr %q, want the flag as --tasks", b.String())
	}
}

// TestHelpOptions: a command without subcommands lists its OPTIONS, not
// GLOBAL OPTIONS; one with subcommands keeps urfave/cli's words.
func TestHelpOptions(t *testing.T) {
	flags := func() []cli.Flag { return []cli.Flag{&cli.StringFlag{Name: "env", Usage: "environment"}} }
	action := func(*cli.Context) error { return nil }
	cases := []struct {
		name      string
		app       *cli.App
		want, not string
	}{
		{"single", &cli.App{Name: "one", Flags: flags(), Action: action, HideHelpCommand: true}, "OPTIONS:\n   --env", "GLOBAL"},
		{"single with help command", &cli.App{Name: "one", Flags: flags(), Action: action}, "OPTIONS:\n   --env", "GLOBAL"},
		{"subcommands", &cli.App{Name: "two", Flags: flags(), HideHelpCommand: true,
			Commands: []*cli.Command{{Name: "sub", Action: action}}}, "GLOBAL OPTIONS:", "\nOPTIONS:"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout := os.Stdout
			os.Stdout = w
			code := Run(tc.app, []string{tc.app.Name, "--help"}, io.Discard)
			os.Stdout = stdout
			w.Close()
			out, _ := io.ReadAll(r)
			if code != 0 || !strings.Contains(string(out), tc.want) || strings.Contains(string(out), tc.not) {
				t.Errorf("exit %d, help:\n%s\nwant %q and not %q", code, out, tc.want, tc.not)
			}
		})
	}
}

package command

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/cleanup"
	"github.com/pats-rl/pats/lib/output"
	"github.com/pats-rl/pats/lib/table"
)

// Exit codes.
const (
	ExitOK      = 0
	ExitFailure = 1
	ExitUsage   = 2
)

// UsageError is bad usage or bad input: exit code 2.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Usagef makes a UsageError.
func Usagef(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// BadInput is what an error of a package below the commands says when
// the user's input is at fault (a flag's value, a file's content, a
// library that cannot serve the run) rather than the run itself: such a
// package marks its error with a method BadInput() bool returning true,
// and needs no import of this package. Code maps every error whose chain
// holds one to exit code 2.
type BadInput interface{ BadInput() bool }

// Code maps an error to an exit code: 2 for a UsageError, a lib/table
// input error, a lib/output refusal, or any error that says it is bad
// input (BadInput) anywhere in its chain; 1 for anything else.
func Code(err error) int {
	if err == nil {
		return ExitOK
	}
	var u *UsageError
	if errors.As(err, &u) || table.IsInputError(err) || output.IsRefusal(err) || isBadInput(err) {
		return ExitUsage
	}
	return ExitFailure
}

// isBadInput reports whether an error in err's chain (joined errors
// included) says it is bad input.
func isBadInput(err error) bool {
	var b BadInput
	return errors.As(err, &b) && b.BadInput()
}

// Run runs app with args and returns the exit code, writing the one-line
// error to stderr.
func Run(app *cli.App, args []string, stderr io.Writer) int {
	// Every file this command writes says which toolkit made it, when and
	// where (table.Stamp).
	table.SetStamp(table.NowStamp())
	app.ExitErrHandler = func(*cli.Context, error) {}
	app.Writer = os.Stdout
	app.ErrWriter = stderr
	usage := func(c *cli.Context, err error, _ bool) error {
		return &UsageError{Msg: doubleDash(err.Error())}
	}
	app.OnUsageError = usage
	var sub func(cmds []*cli.Command)
	sub = func(cmds []*cli.Command) {
		for _, c := range cmds {
			c.OnUsageError = usage
			sub(c.Subcommands)
		}
	}
	sub(app.Commands)
	requireFlags(app)
	setHelp(app)
	if app.Action == nil && len(app.Commands) == 0 {
		panic("command: app without action")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	var got atomic.Value // the signal received, if any
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case sig := <-sigs:
			got.Store(sig)
			interrupt(app.Name, sig, cancel, stderr)
		case <-done:
		}
	}()
	err := subcommand(app, args)
	if err == nil {
		err = app.RunContext(ctx, reorder(app, args))
	}
	// Whatever the command left registered is ended now, on every exit
	// path: an exec: environment it did not close (an error return) is
	// killed with its whole process group, an uncommitted temporary is
	// removed.
	cleanup.Run()
	if sig, ok := got.Load().(os.Signal); ok && err != nil {
		fmt.Fprintf(stderr, "%s: interrupted by %s; nothing written\n", app.Name, signalName(sig))
		return signalCode(sig)
	}
	if err != nil {
		msg := table.Printable(table.Scrub(strings.ReplaceAll(err.Error(), "\n", " ")))
		fmt.Fprintf(stderr, "%s: %s\n", app.Name, msg)
	}
	return Code(err)
}

// singleHelp is the help of a command without subcommands: its options
// are the command's own, not "global" ones.
var singleHelp = strings.NewReplacer("GLOBAL OPTIONS", "OPTIONS", "[global options]", "[options]").Replace(cli.AppHelpTemplate)

// setHelp gives a command without subcommands the help that says OPTIONS
// where urfave/cli's says GLOBAL OPTIONS.
func setHelp(app *cli.App) {
	if len(app.Commands) == 0 && app.CustomAppHelpTemplate == "" {
		app.CustomAppHelpTemplate = singleHelp
	}
}

// flagName is a flag as Go's flag package names it in its messages
// ("flag provided but not defined: -tasks", "invalid value ... for flag
// -n: ..."): one dash, a name of two or more letters.
var flagName = regexp.MustCompile(`((?:defined|flag):? )-([A-Za-z][A-Za-z0-9-]+)`)

// doubleDash writes the flags of a parse error as users type them
// (--tasks); one-letter flags (-o) keep their one dash.
func doubleDash(msg string) string {
	return flagName.ReplaceAllString(msg, "${1}--${2}")
}

// Grace is how long an interrupted command may take to wind down (its
// context is cancelled, its children and temporaries are gone) before the
// process exits regardless, for a command blocked where no context
// reaches (opening a FIFO, a read from a child that ignores signals).
var Grace = 3 * time.Second

// interrupt handles SIGINT or SIGTERM: it stops lib/output from making or
// committing any output, cancels the run's context, ends the children and
// removes the temporary outputs registered with lib/cleanup at once, and exits after Grace if the command has not
// returned by then. A second signal exits at once.
func interrupt(name string, sig os.Signal, cancel func(), stderr io.Writer) {
	// No output is made or put in place from here on, even where the
	// command has no temporary yet and would not look at its context.
	output.Interrupt()
	cancel()
	cleanup.Run()
	again := make(chan os.Signal, 1)
	signal.Notify(again, os.Interrupt, syscall.SIGTERM)
	why := "a second signal"
	select {
	case <-time.After(Grace):
		why = fmt.Sprintf("ended %v after the signal: it was blocked where the signal does not reach", Grace)
	case <-again:
	}
	cleanup.Run()
	fmt.Fprintf(stderr, "%s: interrupted by %s; nothing written (%s)\n", name, signalName(sig), why)
	os.Exit(signalCode(sig))
}

func signalName(sig os.Signal) string {
	if sig == os.Interrupt {
		return "SIGINT"
	}
	return "SIGTERM"
}

// signalCode is the customary exit status of a command ended by sig:
// 128 + the signal's number (130 for SIGINT, 143 for SIGTERM).
func signalCode(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return ExitFailure
}

// subcommand refuses a missing or unknown subcommand of an app that has
// subcommands and no action of its own (usage: exit 2).
func subcommand(app *cli.App, args []string) error {
	if app.Action != nil || len(app.Commands) == 0 {
		return nil
	}
	var names []string
	for _, c := range app.Commands {
		names = append(names, c.Name)
	}
	if len(args) < 2 {
		return Usagef("want a subcommand: %s (see --help)", strings.Join(names, ", "))
	}
	a := args[1]
	if a == "help" || strings.HasPrefix(a, "-") {
		return nil
	}
	for _, c := range app.Commands {
		if c.HasName(a) {
			return nil
		}
	}
	return Usagef("unknown subcommand %q: want %s (see --help)", a, strings.Join(names, ", "))
}

// Main runs app on the process arguments and exits.
func Main(app *cli.App) {
	os.Exit(Run(app, os.Args, os.Stderr))
}

// Args checks the number of positional arguments.
func Args(c *cli.Context, min, max int) error {
	n := c.NArg()
	if n < min || (max >= 0 && n > max) {
		switch {
		case min == max:
			return Usagef("want %d argument(s), got %d (see --help)", min, n)
		case max < 0:
			return Usagef("want at least %d argument(s), got %d (see --help)", min, n)
		default:
			return Usagef("want %d to %d arguments, got %d (see --help)", min, max, n)
		}
	}
	return nil
}

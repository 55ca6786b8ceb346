package audit

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/audit"
	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/output"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/table"
)

// LiftOptions are audit lift's options.
type LiftOptions struct {
	With    []string // the iteration's rollouts with the scaffold (traj/K)
	Without []string // the same groups played with no scaffold
	Output  string
}

// LiftFlags declares audit lift's options.
func LiftFlags() []cli.Flag {
	return append(stage.TrajFlags("trajectory files rolled out with the scaffold (an iteration's training rollouts)"),
		&cli.StringSliceFlag{Name: "without", Required: true, Usage: "the same groups (tasks, group size, --seed) played by the same checkpoint with no scaffold"},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Required: true, Usage: "lift table to write"},
	)
}

// LiftFrom reads audit lift's options.
func LiftFrom(c *cli.Context) (LiftOptions, error) {
	in, err := stage.Traj(c, true)
	if err != nil {
		return LiftOptions{}, err
	}
	return LiftOptions{With: in, Without: stage.List(c, "without"), Output: c.String("output")}, nil
}

// RunLift runs audit lift: the options checked (Check), it writes the lift table, then prints it as
// Markdown.
func RunLift(ctx context.Context, f LiftOptions, std stage.Streams) error {
	if err := f.Check(); err != nil {
		return err
	}
	inputs := append(append([]string{}, f.With...), f.Without...)
	if err := output.Check(inputs, output.File("-o", f.Output)); err != nil {
		return err
	}
	if err := table.Distinct(std.Stdin, inputs...); err != nil {
		return err
	}
	with, _, err := table.ReadFilesFrom[table.Trajectory](std.Stdin, f.With...)
	if err != nil {
		return err
	}
	without, _, err := table.ReadFilesFrom[table.Trajectory](std.Stdin, f.Without...)
	if err != nil {
		return err
	}
	rows, err := audit.Lift(with, without)
	if err != nil {
		return &table.InputError{Path: strings.Join(inputs, ", "), Problem: err.Error()}
	}
	hs, err := hashes(inputs)
	if err != nil {
		return err
	}
	return writeTable(std.Stdout, f.Output, rows, hs, summary(std.Stdout, f.Output, rows, audit.LiftMarkdown))
}

// TruthOptions are audit truth's options.
type TruthOptions struct {
	Scaffold  string // snapshot snap/K
	Iteration int    // K
	Env       string
	Output    string // item verdicts
	Rules     string // the environment's rules, stated or not (optional)
}

// TruthFlags declares audit truth's options.
func TruthFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "scaffold", Required: true, Usage: "scaffold snapshot to judge"},
		&cli.IntFlag{Name: "iteration", Required: true, Usage: "the snapshot's iteration K (snap/K), recorded in every row"},
		&cli.StringFlag{Name: "env", Required: true, Usage: "environment whose rules judge the items"},
		&cli.StringFlag{Name: "rules", Usage: "also write the environment's rules, each stated by the snapshot or not, to this file"},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Required: true, Usage: "item verdicts to write"},
	}
}

// TruthFrom reads audit truth's options.
func TruthFrom(c *cli.Context) (TruthOptions, error) {
	if err := command.Args(c, 0, 0); err != nil {
		return TruthOptions{}, err
	}
	return TruthOptions{Scaffold: c.String("scaffold"), Iteration: c.Int("iteration"), Env: c.String("env"),
		Output: c.String("output"), Rules: c.String("rules")}, nil
}

// RunTruth runs audit truth: the options checked (Check), it writes the item verdicts (and the rules),
// then prints the snapshot's precision and recall.
func RunTruth(ctx context.Context, f TruthOptions, std stage.Streams) error {
	if err := f.Check(); err != nil {
		return err
	}
	targets := []output.Target{output.File("-o", f.Output)}
	if f.Rules != "" {
		targets = append(targets, output.File("--rules", f.Rules))
	}
	if err := output.Check([]string{f.Scaffold}, targets...); err != nil {
		return err
	}
	e, err := env.Open(f.Env)
	if err != nil {
		return command.Usagef("--env: %v", err)
	}
	items, _, err := table.ReadFilesFrom[table.ScaffoldItem](std.Stdin, f.Scaffold)
	if err != nil {
		return err
	}
	verdicts, rules, err := audit.Truth(e, int32(f.Iteration), items)
	if err != nil {
		return &table.InputError{Path: f.Scaffold, Problem: err.Error()}
	}
	hs, err := hashes([]string{f.Scaffold})
	if err != nil {
		return err
	}
	u := output.Unit{Stdout: std.Stdout}
	defer u.Abort()
	meta := table.Meta{Command: table.CommandLine(), Inputs: hs}
	if err := table.Stage(&u, f.Output, verdicts, meta); err != nil {
		return err
	}
	if f.Rules != "" {
		if err := table.Stage(&u, f.Rules, rules, meta); err != nil {
			return err
		}
	}
	if std.Stdout != nil && f.Output != "-" && f.Rules != "-" {
		s := audit.Summarise(verdicts, rules)
		if err := u.Print(func(w io.Writer) error { _, err := fmt.Fprintln(w, audit.TruthLine(f.Iteration, s)); return err }); err != nil {
			return err
		}
	}
	return u.Commit()
}

// writeTable writes rows atomically, and the summary (when not nil) on
// stdout before the file is put in place.
func writeTable[T any](stdout io.Writer, out string, rows []T, inputs map[string]string, sum func(io.Writer) error) error {
	u := output.Unit{Stdout: stdout}
	defer u.Abort()
	if err := table.Stage(&u, out, rows, table.Meta{Command: table.CommandLine(), Inputs: inputs}); err != nil {
		return err
	}
	if sum != nil {
		if err := u.Print(sum); err != nil {
			return err
		}
	}
	return u.Commit()
}

package audit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/pats-rl/pats/lib/audit"
	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/device"
	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/output"
	"github.com/pats-rl/pats/lib/progress"
	"github.com/pats-rl/pats/lib/skill"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/stage/deviceflag"
	"github.com/pats-rl/pats/lib/stage/play"
	"github.com/pats-rl/pats/lib/table"
)

// CreditOptions are audit credit's options.
type CreditOptions struct {
	Traj       []string // trajectory files
	Advantages string   // learn grpo's --advantages output
	Output     string
	Plot       string // optional PNG
	Bins       int
}

// RunCredit runs audit credit: the options checked (Check), it writes the audit table (and the
// plot), then prints the Markdown table.
func RunCredit(ctx context.Context, f CreditOptions, std stage.Streams) error {
	if err := f.Check(); err != nil {
		return err
	}
	if err := output.Check(append([]string{f.Advantages}, f.Traj...), output.File("-o", f.Output), output.File("--plot", f.Plot)); err != nil {
		return err
	}
	traj, _, err := table.ReadFilesFrom[table.Trajectory](std.Stdin, f.Traj...)
	if err != nil {
		return err
	}
	adv, _, err := table.ReadFilesFrom[table.TokenAdvantages](std.Stdin, f.Advantages)
	if err != nil {
		return err
	}
	rows, err := audit.Credit(traj, adv, strings.Join(f.Traj, ","), f.Advantages, f.Bins)
	if err != nil {
		return err
	}
	inputs, err := hashes(append(append([]string{}, f.Traj...), f.Advantages))
	if err != nil {
		return err
	}
	return write(std.Stdout, f.Output, f.Plot, rows, inputs, audit.PlotCredit, summary(std.Stdout, f.Output, rows, audit.CreditMarkdown))
}

// summary is what a command prints on stdout beside its table (nil when
// the table itself goes to stdout, or there is no stdout).
func summary[T any](stdout io.Writer, out string, rows []T, md func(io.Writer, []T) error) func(io.Writer) error {
	if stdout == nil || out == "-" {
		return nil
	}
	return func(w io.Writer) error { return md(w, rows) }
}

// write renders the plot (when asked) first, then writes the table and
// the PNG, each atomically, and the summary (when not nil) on stdout
// before either is put in place: a stdout that cannot be written commits
// nothing.
func write[T any](stdout io.Writer, out, plotPath string, rows []T, inputs map[string]string, plot func(io.Writer, []T) error, sum func(io.Writer) error) error {
	var png bytes.Buffer
	if plotPath != "" {
		if err := plot(&png, rows); err != nil {
			return fmt.Errorf("plot %s: %w", plotPath, err)
		}
	}
	u := output.Unit{Stdout: stdout}
	defer u.Abort()
	if err := table.Stage(&u, out, rows, table.Meta{Command: table.CommandLine(), Inputs: inputs}); err != nil {
		return err
	}
	if plotPath != "" {
		if err := u.File(plotPath, func(w io.Writer) error { _, err := w.Write(png.Bytes()); return err }); err != nil {
			return err
		}
	}
	if sum != nil {
		if err := u.Print(sum); err != nil {
			return err
		}
	}
	return u.Commit()
}

// ScaffoldOptions are audit scaffold's options.
type ScaffoldOptions struct {
	Checkpoints []string
	Traj        []string
	Scaffold    string // snapshot the trajectories were rolled out with (recorded only)
	Output      string
	Plot        string
	Device      string             // cpu (or "") or cuda
	Progress    *progress.Settings // nil: no progress
}

// RunScaffold runs audit scaffold, the options checked first (Check).
func RunScaffold(ctx context.Context, f ScaffoldOptions, std stage.Streams) error {
	if err := f.Check(); err != nil {
		return err
	}
	if err := output.Check(append(append([]string{f.Scaffold}, f.Traj...), f.Checkpoints...), output.File("-o", f.Output), output.File("--plot", f.Plot)); err != nil {
		return err
	}
	dev, err := deviceflag.Open(f.Device)
	if err != nil {
		return err
	}
	traj, _, err := table.ReadFilesFrom[table.Trajectory](std.Stdin, f.Traj...)
	if err != nil {
		return err
	}
	paths := append([]string{}, f.Traj...)
	if f.Scaffold != "" {
		paths = append(paths, f.Scaffold)
	}
	inputs, err := hashes(paths)
	if err != nil {
		return err
	}
	load := func(dir string) (*model.Model, error) {
		ck, err := model.OpenFolder(dir)
		if err != nil {
			return nil, command.Usagef("checkpoint %s: %v", dir, strings.ReplaceAll(err.Error(), "\n", " "))
		}
		m, tok := ck.Model, ck.Tok
		for i := range traj {
			r := &traj[i]
			if r.Tokenizer != tok.Hash() {
				return nil, command.Usagef("checkpoint %s: episode %s sample %d was made with another tokenizer", dir, r.GroupID, r.Sample)
			}
			if len(r.Roles) != len(r.Tokens) {
				return nil, &table.InputError{Path: strings.Join(f.Traj, ","), Problem: fmt.Sprintf("episode %s sample %d: %d roles for %d tokens", r.GroupID, r.Sample, len(r.Roles), len(r.Tokens))}
			}
		}
		if dev.Name() != device.CPU { // issue 60: a device runs an adapter folded into its base
			if err := m.MergeAdapter(); err != nil {
				return nil, err
			}
		}
		if err := dev.Attach(m); err != nil {
			return nil, err
		}
		return m, nil
	}
	rows, err := audit.ScaffoldProgress(ctx, f.Checkpoints, load, traj, f.Progress.Start("audit scaffold", "checkpoint", len(f.Checkpoints)))
	if err != nil {
		if errors.Is(err, audit.ErrNoScaffold) {
			return command.Usagef("%s: %v (roll out with --scaffold)", strings.Join(f.Traj, ","), err)
		}
		return err
	}
	return write(std.Stdout, f.Output, f.Plot, rows, inputs, audit.PlotScaffold, summary(std.Stdout, f.Output, rows, audit.ScaffoldMarkdown))
}

func hashes(paths []string) (map[string]string, error) {
	m := map[string]string{}
	for _, p := range paths {
		h, err := table.HashFile(p)
		if err != nil {
			return nil, err
		}
		m[p] = h
	}
	return m, nil
}

// ReadingOptions are audit reading's options: the episode options
// (play.Options; where a Set field of the policy options is false the
// checkpoint's generation_config.json and agent.json supply the value, as
// in evaluate) and the output. Without Skills, SkillsDir is the library the
// skill conditions draw their bodies from, not a slate.
type ReadingOptions struct {
	play.Options
	Output string
}

// played are the options of the episodes of every condition: run
// "reading", and a skills folder only as a slate's (with Skills).
func (f ReadingOptions) played() play.Options {
	p := f.Options
	p.Run = "reading"
	if !f.Skills {
		p.SkillsDir = ""
	}
	return p
}

// Check is audit reading's checker, run before any work (RunReading): an
// output, a policy, and the episode options (play.Options.Check).
func (f ReadingOptions) Check() error {
	if f.Output == "" {
		return errOutputRequired
	}
	if f.Policy == "" {
		return command.Usagef("--policy is required (a checkpoint folder, oracle or random)")
	}
	return f.played().Check()
}

// RunReading runs audit reading: the reading test (Reading), its rows
// written to Output, then the Markdown table.
func RunReading(ctx context.Context, f ReadingOptions, std stage.Streams) error {
	if err := f.Check(); err != nil {
		return err
	}
	if err := output.Check([]string{f.Policy, f.SkillsDir}, output.File("-o", f.Output)); err != nil {
		return err
	}
	ep, err := f.played().Resolve(ctx)
	if err != nil {
		return err
	}
	var lib *skill.Library
	if f.Skills {
		lib = ep.Skills
	} else if f.SkillsDir != "" {
		if lib, _, err = play.Library(f.Env, f.SkillsDir); err != nil {
			return err
		}
	} else if lib, err = skill.ShippedLibrary(f.Env); err != nil {
		lib = nil // no built-in library: the skill conditions are skipped
	}
	rows, err := audit.Reading(ctx, ep.Options, lib)
	if err != nil {
		return err
	}
	meta := table.Meta{Command: table.CommandLine(), Seed: f.Seed, Inputs: map[string]string{}, Extra: ep.Context}
	u := output.Unit{Stdout: std.Stdout}
	defer u.Abort()
	if err := table.Stage(&u, f.Output, rows, meta); err != nil {
		return err
	}
	if sum := summary(std.Stdout, f.Output, rows, audit.ReadingMarkdown); sum != nil {
		if err := u.Print(sum); err != nil {
			return err
		}
	}
	return u.Commit()
}

package rollout

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/output"
	"github.com/pats-rl/pats/lib/rollout"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/stage/play"
	"github.com/pats-rl/pats/lib/table"
)

// Options are the rollout command's options: the episode options
// (play.Options) and the output.
type Options struct {
	play.Options
	Output string // a file, or - for an Arrow stream on stdout
}

// Check is the rollout command's checker, run before any work: an output,
// and the episode options (play.Options.Check).
func (f Options) Check() error {
	if f.Output == "" {
		return command.Usagef("-o is required (a file, or - for an Arrow stream on stdout)")
	}
	return f.Options.Check()
}

// Run runs the rollout command: resolve, run, write (an output "-" to
// std.Stdout).
func Run(ctx context.Context, f Options, std stage.Streams) error {
	if err := f.Check(); err != nil {
		return err
	}
	if err := output.Check([]string{f.Scaffold, f.Policy, f.SkillsDir}, output.File("-o", f.Output)); err != nil {
		return err
	}
	f.EnvLimits.Context = ctx // the waits on an exec: child or a server end with the command's context
	ep, err := f.Resolve(ctx)
	if err != nil {
		return err
	}
	rows, err := rollout.Run(ctx, ep.Options)
	if err != nil {
		return err
	}
	meta := table.Meta{Kind: "trajectory", Command: table.CommandLine(), Seed: f.Seed,
		Inputs: map[string]string{}, Extra: map[string]string{"env": f.Env, "split": f.Split, "policy": ep.Policy.Name()}}
	maps.Copy(meta.Extra, ep.Context)
	if f.Scaffold != "" {
		if h, err := table.HashFile(f.Scaffold); err == nil {
			meta.Inputs[f.Scaffold] = h
		}
	}
	u := output.Unit{Stdout: std.Stdout}
	defer u.Abort()
	err = table.Stage(&u, f.Output, rows, meta)
	if err == nil {
		err = u.Commit()
	}
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("write %s: %w", f.Output, err)
		}
		return err
	}
	return nil
}

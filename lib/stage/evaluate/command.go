package evaluate

import (
	"context"
	"io"
	"slices"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/eval"
	"github.com/pats-rl/pats/lib/output"
	"github.com/pats-rl/pats/lib/rollout"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/stage/play"
	"github.com/pats-rl/pats/lib/table"
)

// Options are the evaluate command's options. With Inputs it summarises
// trajectory files; with Rollout.Policy set it runs the episodes first.
type Options struct {
	Inputs  []string
	Play    play.Options // the episodes to play when Inputs is empty
	Output  string       // metrics rows; empty: table only
	Trajout string       // where to keep the episodes it ran; empty: not kept
	// Run names the run in the metrics (and, with Rollout.Policy, in the
	// episodes): it overrides the trajectories' run; empty: theirs.
	Run string
	// GroupBy (eval.GroupKeys) summarises each env, policy or run of the
	// trajectories apart instead of refusing files that mix them.
	GroupBy []string
}

// Check is the evaluate command's checker, run before any work:
// trajectory files or --policy, not both and not neither, --trajectories
// only with --policy, and with it the episode options
// (play.Options.Check).
func (f Options) Check() error {
	switch {
	case len(f.Inputs) > 0 && f.Play.Policy != "":
		return command.Usagef("give trajectory files or --policy, not both")
	case f.Trajout != "" && f.Play.Policy == "":
		return command.Usagef("--trajectories keeps the episodes --policy plays; without --policy there are none to keep")
	case len(f.Inputs) == 0 && f.Play.Policy == "":
		return command.Usagef("give trajectory files, or --policy with --env and --split")
	case f.Play.Policy != "":
		return f.Play.Check()
	}
	return nil
}

// Run summarises and prints the Markdown table to stdout.
func Run(ctx context.Context, f Options, std stage.Streams) error {
	if err := f.Check(); err != nil {
		return err
	}
	ins := append([]string{f.Play.Scaffold, f.Play.Policy, f.Play.SkillsDir}, f.Inputs...)
	if err := output.Check(ins, output.File("-o", f.Output), output.File("--trajectories", f.Trajout)); err != nil {
		return err
	}
	u := output.Unit{Stdout: std.Stdout}
	defer u.Abort()
	var trajs []table.Trajectory
	var meta table.Meta
	labels := eval.Labels{}
	if len(f.Inputs) > 0 {
		rows, metas, err := table.ReadFilesFrom[table.Trajectory](std.Stdin, f.Inputs...)
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			return command.Usagef("%v: no trajectories", f.Inputs)
		}
		if err := stage.CheckOneSource(f.Inputs, metas, rows, f.GroupBy...); err != nil {
			return err
		}
		trajs = rows
		labels.Seed = sharedSeed(metas)
		meta = table.Meta{Kind: "eval_metrics", Command: table.CommandLine(), Inputs: map[string]string{}}
		for _, in := range f.Inputs {
			if in == "-" {
				continue
			}
			if h, err := table.HashFile(in); err == nil {
				meta.Inputs[in] = h
			}
		}
	} else {
		if f.Run != "" {
			f.Play.Run = f.Run
		}
		f.Play.EnvLimits.Context = ctx // the waits on an exec: child or a server end with the command's context
		ep, err := f.Play.Resolve(ctx)
		if err != nil {
			return err
		}
		if trajs, err = rollout.Run(ctx, ep.Options); err != nil {
			return err
		}
		labels.Scaffold = f.Play.Scaffold
		seed := f.Play.Seed
		labels.Seed = &seed
		meta = table.Meta{Kind: "eval_metrics", Command: table.CommandLine(), Seed: f.Play.Seed, Inputs: map[string]string{}, Extra: ep.Context}
		if f.Trajout != "" {
			tm := meta
			tm.Kind = "trajectory"
			if err := table.Stage(&u, f.Trajout, trajs, tm); err != nil {
				return err
			}
		}
	}
	if !slices.Contains(f.GroupBy, eval.ByRun) {
		labels.Run = f.Run
	}
	rows := eval.SummarizeGroups(trajs, labels, f.GroupBy)
	if f.Output != "" {
		if err := table.Stage(&u, f.Output, rows, meta); err != nil {
			return err
		}
	}
	if f.Output != "-" {
		// the table reaches stdout before the files are put in place: a
		// stdout that cannot be written commits nothing
		if err := u.Print(func(w io.Writer) error { return eval.WriteMarkdown(w, rows) }); err != nil {
			return err
		}
	}
	return u.Commit()
}

// sharedSeed is the seed the trajectory files record (pats.seed) when
// every file has pats metadata and they agree; nil otherwise.
func sharedSeed(metas []table.Meta) *int64 {
	if len(metas) == 0 {
		return nil
	}
	seed := metas[0].Seed
	for _, m := range metas {
		if m.Kind == "" || m.Seed != seed {
			return nil
		}
	}
	return &seed
}

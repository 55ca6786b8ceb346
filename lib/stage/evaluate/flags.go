package evaluate

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/eval"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/stage/deviceflag"
	"github.com/pats-rl/pats/lib/stage/rollout"
)

// The evaluate command's options are declared here once (name, type,
// default, help), the policy's from the rollout stage (rollout.PolicyFlags
// with the evaluation defaults), and read here (From).

// Flags declares the evaluate command's options.
func Flags() []cli.Flag {
	fs := append(stage.TrajFlags("trajectory files, folders of shards, or - (an Arrow stream on stdin) to summarise"),
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the metrics rows here (- for an Arrow stream)"},
		&cli.StringFlag{Name: "policy", Usage: "run this policy first: oracle, random, or a checkpoint folder"},
		&cli.StringFlag{Name: "run", Usage: "run name recorded in the metrics (and the episodes it plays); unset: the trajectories' run, else NULL"},
		&cli.IntFlag{Name: "iteration", Usage: "training iteration recorded in the episodes it plays (with --policy)"},
		deviceflag.Flag(),
		&cli.StringFlag{Name: "env", Value: "household", Usage: "environment (with --policy)"},
		&cli.StringFlag{Name: "split", Value: "valid_seen", Usage: "split (with --policy)"},
		&cli.IntFlag{Name: "tasks", Usage: "tasks drawn from the split; 0: the whole split (with --policy)"},
		&cli.IntFlag{Name: "group", Value: 1, Usage: "episodes per task (with --policy)"},
		&cli.Int64Flag{Name: "seed", Value: 1, Usage: "seed (with --policy)"},
		&cli.StringFlag{Name: "scaffold", Usage: "scaffold snapshot in the context (with --policy); none by default"},
		&cli.IntFlag{Name: "scaffold-budget", Value: 400, Usage: "token budget of the rendered scaffold"},
		&cli.BoolFlag{Name: "skills", Usage: "show a skill slate (with --policy)"},
		&cli.IntFlag{Name: "slate", Value: 16, Usage: "candidates per slate"},
	)
	fs = append(fs, rollout.PolicyFlags(rollout.EvalDefaults)...)
	fs = append(fs, &cli.StringFlag{Name: "trajectories", Usage: "also keep the episodes it ran in this file (with --policy)"})
	fs = append(fs, stage.ListFlag("group-by", "summarise each env, policy or run apart (any of env, policy, run) instead of refusing trajectory files that mix them")...)
	return append(fs, stage.ProgressFlags()...)
}

// From reads the evaluate command's options; with --policy the episodes'
// options are checked (rollout.Options.Check).
func From(c *cli.Context) (Options, error) {
	in, _ := stage.Traj(c, false)
	if len(in) > 0 && c.IsSet("policy") {
		return Options{}, command.Usagef("give trajectory files or --policy, not both")
	}
	prog, err := stage.ProgressSettings(c)
	if err != nil {
		return Options{}, err
	}
	by, err := eval.ParseGroupBy(strings.Join(stage.List(c, "group-by"), ","))
	if err != nil {
		return Options{}, command.Usagef("%v", err)
	}
	f := Options{
		Run: c.String("run"), GroupBy: by,
		Inputs:  in,
		Output:  c.String("output"),
		Trajout: c.String("trajectories"),
		Rollout: rollout.Options{Batch: rollout.DefaultBatch,
			Env: c.String("env"), Split: c.String("split"), Tasks: c.Int("tasks"), Group: c.Int("group"),
			Seed: c.Int64("seed"), Policy: c.String("policy"), Iteration: c.Int("iteration"), Skills: c.Bool("skills"), Slate: c.Int("slate"),
			Scaffold: c.String("scaffold"), ScaffoldBudget: c.Int("scaffold-budget"),
			PolicyOptions:  rollout.PolicyFrom(c),
			InvalidPenalty: 0.1, Progress: prog,
			Device: c.String("device"),
		},
	}
	if c.IsSet("policy") {
		if err := f.Rollout.Check(); err != nil {
			return Options{}, err
		}
	}
	return f, nil
}

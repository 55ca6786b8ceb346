package evaluate

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/eval"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/stage/play"
)

// The evaluate command's options: its own declared and read here
// (From), the episode options of --policy from the play stage (play.Flags
// with Spec).

// Spec is how evaluate offers the episode options: the valid_seen split
// and the evaluation temperature, no policy unless given (it turns on
// playing), a scaffold.
var Spec = play.Spec{Split: "valid_seen", Temperature: play.EvalTemperature, Scaffold: true,
	PolicyUsage: "run this policy first: oracle, random, or a checkpoint folder (the episode options apply with it)"}

// Flags declares the evaluate command's options.
func Flags() []cli.Flag {
	fs := append(stage.TrajFlags("trajectory files, folders of shards, or - (an Arrow stream on stdin) to summarise"),
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the metrics rows here (- for an Arrow stream)"},
		&cli.StringFlag{Name: "run", Usage: "run name recorded in the metrics (and the episodes it plays); unset: the trajectories' run, else NULL"},
		&cli.IntFlag{Name: "iteration", Usage: "training iteration recorded in the episodes it plays (with --policy)"},
		&cli.StringFlag{Name: "trajectories", Usage: "also keep the episodes it ran in this file (with --policy)"},
	)
	fs = append(fs, stage.ListFlag("group-by", "summarise each env, policy or run apart (any of env, policy, run) instead of refusing trajectory files that mix them")...)
	return append(fs, play.Flags(Spec)...)
}

// From reads the evaluate command's options and checks them (Check).
func From(c *cli.Context) (Options, error) {
	in, _ := stage.Traj(c, false)
	by, err := eval.ParseGroupBy(strings.Join(stage.List(c, "group-by"), ","))
	if err != nil {
		return Options{}, command.Usagef("--group-by %v", err)
	}
	p, err := play.From(c, Spec)
	if err != nil {
		return Options{}, err
	}
	p.Iteration = c.Int("iteration")
	f := Options{
		Run: c.String("run"), GroupBy: by,
		Inputs:  in,
		Output:  c.String("output"),
		Trajout: c.String("trajectories"),
		Play:    p,
	}
	return f, f.Check()
}

package audit

import (
	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/stage/deviceflag"
	"github.com/pats-rl/pats/lib/stage/rollout"
)

// The options of audit credit, audit scaffold and audit reading are
// declared here once (name, type, default, help), audit reading's policy
// options from the rollout stage (rollout.PolicyFlags with the evaluation
// defaults), and read here (CreditFrom, ScaffoldFrom, ReadingFrom).

// CreditFlags declares audit credit's options.
func CreditFlags() []cli.Flag {
	return append(stage.TrajFlags("trajectory files"),
		&cli.StringFlag{Name: "advantages", Usage: "per-token advantages written by learn grpo --advantages"},
		&cli.IntFlag{Name: "bins", Value: 4, Usage: "horizon bins per measure"},
		&cli.StringFlag{Name: "plot", Usage: "also draw the measures against the horizon to this PNG"},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "audit table to write"},
	)
}

// CreditFrom reads audit credit's options.
func CreditFrom(c *cli.Context) (CreditOptions, error) {
	in, err := stage.Traj(c, true)
	if err != nil {
		return CreditOptions{}, err
	}
	return CreditOptions{Traj: in, Advantages: c.String("advantages"),
		Output: c.String("output"), Plot: c.String("plot"), Bins: c.Int("bins")}, nil
}

// ScaffoldFlags declares audit scaffold's options (--checkpoints: the old
// spelling of --policy, hidden).
func ScaffoldFlags() []cli.Flag {
	fs := append(stage.ListFlag("policy", "checkpoint folders to score, the first the baseline", "checkpoints"),
		stage.TrajFlags("trajectory files rolled out with a scaffold")...)
	fs = append(fs,
		&cli.StringFlag{Name: "scaffold", Usage: "the scaffold snapshot of the trajectories (recorded)"},
		&cli.StringFlag{Name: "plot", Usage: "also draw the NLLs and the gap per checkpoint to this PNG"},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "audit table to write"},
		deviceflag.Flag(),
	)
	return append(fs, stage.ProgressFlags()...)
}

// ScaffoldFrom reads audit scaffold's options.
func ScaffoldFrom(c *cli.Context) (ScaffoldOptions, error) {
	if err := command.Args(c, 0, -1); err != nil {
		return ScaffoldOptions{}, err
	}
	prog, err := stage.ProgressSettings(c)
	if err != nil {
		return ScaffoldOptions{}, err
	}
	in, _ := stage.Traj(c, false)
	return ScaffoldOptions{Checkpoints: stage.List(c, "policy", "checkpoints"),
		Traj:     in,
		Scaffold: c.String("scaffold"), Output: c.String("output"), Plot: c.String("plot"), Device: c.String("device"), Progress: prog}, nil
}

// ReadingFlags declares audit reading's options.
func ReadingFlags() []cli.Flag {
	fs := []cli.Flag{
		&cli.StringFlag{Name: "policy", Usage: "checkpoint folder, oracle or random"},
		&cli.StringFlag{Name: "env", Value: "household", Usage: "environment"},
		&cli.StringFlag{Name: "split", Value: "valid_seen", Usage: "task split"},
		&cli.IntFlag{Name: "tasks", Usage: "tasks drawn from the split (seeded); 0: the whole split"},
		&cli.IntFlag{Name: "group", Value: 1, Usage: "episodes per task and condition"},
		&cli.Int64Flag{Name: "seed", Value: 1, Usage: "seed of the task draw and the episodes"},
	}
	fs = append(fs, rollout.PolicyFlags(rollout.EvalDefaults)...)
	fs = append(fs,
		&cli.StringFlag{Name: "skills-dir", Usage: "skill library folder instead of the environment's built-in one"},
		&cli.BoolFlag{Name: "skills", Usage: "show a skill slate in every condition; the skill conditions make the first action read from it (for a policy trained with skills on)"},
		&cli.IntFlag{Name: "slate", Value: 16, Usage: "slate size with --skills"},
		deviceflag.Flag(),
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "audit table to write"},
	)
	return append(fs, stage.ProgressFlags()...)
}

// ReadingFrom reads audit reading's options; the policy options as a
// command gives them are checked (rollout.PolicyOptions.CheckGiven), the
// rest when the episodes' options are resolved.
func ReadingFrom(c *cli.Context) (ReadingOptions, error) {
	if err := command.Args(c, 0, 0); err != nil {
		return ReadingOptions{}, err
	}
	prog, err := stage.ProgressSettings(c)
	if err != nil {
		return ReadingOptions{}, err
	}
	f := ReadingOptions{Policy: c.String("policy"), Env: c.String("env"),
		Split: c.String("split"), Tasks: c.Int("tasks"), Group: c.Int("group"), Seed: c.Int64("seed"),
		PolicyOptions: rollout.PolicyFrom(c), Device: c.String("device"),
		SkillsDir: c.String("skills-dir"), Skills: c.Bool("skills"), Slate: c.Int("slate"),
		Output: c.String("output"), Progress: prog}
	return f, f.PolicyOptions.CheckGiven()
}

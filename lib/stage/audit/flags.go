package audit

import (
	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/stage/deviceflag"
	"github.com/pats-rl/pats/lib/stage/play"
)

// The options of audit credit, audit scaffold and audit reading are
// declared here once (name, type, default, help), audit reading's episode
// options from the play stage (play.Flags with ReadingSpec), and read here (CreditFrom, ScaffoldFrom, ReadingFrom).

// CreditFlags declares audit credit's options.
func CreditFlags() []cli.Flag {
	return append(stage.TrajFlags("trajectory files"),
		&cli.StringFlag{Name: "advantages", Required: true, Usage: "per-token advantages written by learn grpo --advantages"},
		&cli.IntFlag{Name: "bins", Value: 4, Usage: "horizon bins per measure"},
		&cli.StringFlag{Name: "plot", Usage: "also draw the measures against the horizon to this PNG"},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Required: true, Usage: "audit table to write"},
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
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Required: true, Usage: "audit table to write"},
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

// ReadingSpec is how audit reading offers the episode options: the
// valid_seen split and the evaluation temperature, --policy required, a
// skills folder (the skill conditions' library, or with --skills the
// slate's); the hints and pre-read bodies are the conditions' own.
var ReadingSpec = play.Spec{Split: "valid_seen", Temperature: play.EvalTemperature, Required: true, SkillsDir: true,
	PolicyUsage:    "checkpoint folder, oracle or random",
	SkillsDirUsage: "skill library folder instead of the environment's built-in one (the skill conditions' bodies; with --skills, the slate's)"}

// ReadingFlags declares audit reading's options.
func ReadingFlags() []cli.Flag {
	return append(play.Flags(ReadingSpec),
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Required: true, Usage: "audit table to write"})
}

// ReadingFrom reads audit reading's options and checks them
// (ReadingOptions.Check).
func ReadingFrom(c *cli.Context) (ReadingOptions, error) {
	if err := command.Args(c, 0, 0); err != nil {
		return ReadingOptions{}, err
	}
	p, err := play.From(c, ReadingSpec)
	if err != nil {
		return ReadingOptions{}, err
	}
	f := ReadingOptions{Options: p, Output: c.String("output")}
	return f, f.Check()
}

package rollout

import (
	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/stage/play"
)

// The rollout command's options: the episode options from the play stage
// (play.Flags with Spec: every group), and its own --run, --iteration and
// -o, declared and read here (From).

// Spec is how rollout offers the episode options: training split and
// temperature, the oracle by default, every option group.
var Spec = play.Spec{Split: "train", Policy: "oracle", Temperature: play.TrainTemperature,
	Scaffold: true, SkillsDir: true, Training: true}

// Flags declares the rollout command's options.
func Flags() []cli.Flag {
	return append(play.Flags(Spec),
		&cli.StringFlag{Name: "run", Usage: "run name recorded in every row"},
		&cli.IntFlag{Name: "iteration", Usage: "training iteration k recorded in every row"},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Required: true, Usage: "output file, or - for an Arrow stream on stdout"},
	)
}

// From reads the rollout command's options and checks them (Check).
func From(c *cli.Context) (Options, error) {
	if err := command.Args(c, 0, 0); err != nil {
		return Options{}, err
	}
	p, err := play.From(c, Spec)
	if err != nil {
		return Options{}, err
	}
	p.Run, p.Iteration = c.String("run"), c.Int("iteration")
	f := Options{Options: p, Output: c.String("output")}
	return f, f.Check()
}

package cards

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/card"
	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/eval"
	"github.com/pats-rl/pats/lib/stage"
)

// The cards command's options are declared here once (name, type,
// default, help) and read here (From).

// Flags declares the cards command's options.
func Flags() []cli.Flag {
	return append(append(stage.TrajFlags("trajectory files, folders of shards, or - (an Arrow stream on stdin)"),
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Required: true, Usage: "cards file, or - for an Arrow stream on stdout"},
		&cli.StringFlag{Name: "evidence", Usage: "also write the type evidence here"},
		&cli.StringFlag{Name: "per", Value: card.PerGroup, Usage: "one card per group, or per trajectory"},
		&cli.IntFlag{Name: "top", Value: card.DefaultOptions().TopContrast, Usage: "features kept in a contrast"},
	), stage.ListFlag("group-by", "build the cards of each env, policy or run apart (any of env, policy, run) instead of refusing trajectory files that mix them; card ids end in @ and the group's values")...)
}

// From reads the cards command's options.
func From(c *cli.Context) (Options, error) {
	in, err := stage.Traj(c, true)
	if err != nil {
		return Options{}, err
	}
	by, err := eval.ParseGroupBy(strings.Join(stage.List(c, "group-by"), ","))
	if err != nil {
		return Options{}, command.Usagef("--group-by %v", err)
	}
	return Options{Inputs: in, Output: c.String("output"),
		Evidence: c.String("evidence"), Per: c.String("per"), Top: c.Int("top"), GroupBy: by}, nil
}

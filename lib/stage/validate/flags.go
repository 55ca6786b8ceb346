package validate

import (
	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/stage"
)

// The options of validate and its subcommands (init, diff, show) are
// declared here once (name, type, default, help), the loop's from the
// stage layer (stage.LoopFlags), and read here (From, InitFrom, DiffFrom,
// ShowFrom).

func tokenizerFlag() cli.Flag {
	return &cli.StringFlag{Name: "tokenizer", Usage: "tokenizer.json (or a checkpoint folder) to count tokens with; default the built-in one"}
}

// Flags declares validate's options.
func Flags() []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{Name: "scaffold", Required: true, Usage: "snapshot k"},
		&cli.StringFlag{Name: "proposals", Required: true, Usage: "proposals of iteration k (from control)"},
		&cli.StringFlag{Name: "cards", Required: true, Usage: "cards of iteration k (the support of additions is checked against them)"},
		&cli.StringSliceFlag{Name: "history", Usage: "cards of an earlier iteration (repeatable) that additions may cite: control's --history"},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Required: true, Usage: "snapshot k+1"},
		&cli.StringFlag{Name: "decisions", Required: true, Usage: "one decision row per proposal"},
	}, stage.LoopFlags()...)
}

// From reads validate's options.
func From(c *cli.Context) (Options, error) {
	loop, tok, err := stage.LoopCommand(c)
	if err != nil {
		return Options{}, err
	}
	return Options{
		Scaffold: c.String("scaffold"), Proposals: c.String("proposals"), Cards: c.String("cards"), History: c.StringSlice("history"),
		Output: c.String("output"), Decisions: c.String("decisions"), Limits: loop.Limits, Tok: tok,
		Progress: stage.Progress(),
	}, nil
}

// InitFlags declares validate init's options.
func InitFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "from", Usage: "items file to seed the snapshot with (the static expert library)"},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Required: true, Usage: "snapshot 0"},
		tokenizerFlag(),
	}
}

// InitFrom reads validate init's options and checks them
// (InitOptions.Check) before it loads the tokenizer.
func InitFrom(c *cli.Context) (InitOptions, error) {
	if err := command.Args(c, 0, 0); err != nil {
		return InitOptions{}, err
	}
	f := InitOptions{From: c.String("from"), Output: c.String("output")}
	if err := f.Check(); err != nil { // before the tokenizer is read
		return f, err
	}
	var err error
	f.Tok, err = stage.Tokenizer(c.String("tokenizer"))
	return f, err
}

// DiffFlags declares validate diff's options.
func DiffFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "proposals", Usage: "the step's proposals (with --decisions)"},
		&cli.StringFlag{Name: "decisions", Usage: "the step's decisions (with --proposals)"},
	}
}

// DiffFrom reads validate diff's options: the two snapshots are its
// arguments.
func DiffFrom(c *cli.Context) (DiffOptions, error) {
	if err := command.Args(c, 2, 2); err != nil {
		return DiffOptions{}, err
	}
	return DiffOptions{Old: c.Args().Get(0), New: c.Args().Get(1),
		Proposals: c.String("proposals"), Decisions: c.String("decisions")}, nil
}

// ShowFlags declares validate show's options.
func ShowFlags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "budget", Value: scaffold.DefaultBudget, Usage: "token budget (0: no limit); rollout's --scaffold-budget"},
		&cli.StringSliceFlag{Name: "type", Usage: "task type to show (repeatable); default every type the snapshot mentions"},
		tokenizerFlag(),
	}
}

// ShowFrom reads validate show's options (the snapshot is its argument)
// and checks them (ShowOptions.Check) before it loads the tokenizer.
func ShowFrom(c *cli.Context) (ShowOptions, error) {
	if err := command.Args(c, 1, 1); err != nil {
		return ShowOptions{}, err
	}
	f := ShowOptions{Snapshot: c.Args().Get(0), Budget: c.Int("budget"), Types: c.StringSlice("type")}
	if err := f.Check(); err != nil { // before the tokenizer is read
		return f, err
	}
	var err error
	f.Tok, err = stage.Tokenizer(c.String("tokenizer"))
	return f, err
}

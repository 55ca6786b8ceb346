package control

import (
	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/control"
	"github.com/pats-rl/pats/lib/refiner"
	"github.com/pats-rl/pats/lib/stage"
)

// The control command's options are declared here once (name, type,
// default, help), the loop's from the stage layer (stage.LoopFlags), and
// read here (From).

// Flags declares the control command's options.
func Flags() []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{Name: "cards", Required: true, Usage: "cards of iteration k (from cards)"},
		&cli.StringSliceFlag{Name: "history", Usage: "cards of an earlier iteration (repeatable): the refiner smooths its evidence over them and k's (see --window); the controller reads k's cards only"},
		&cli.IntFlag{Name: "window", Value: refiner.DefaultWindow, Usage: "iterations of cards the refiner's evidence pools, k's included (cards of older iterations given as --history are not used)"},
		&cli.StringFlag{Name: "scaffold", Required: true, Usage: "snapshot k"},
		&cli.StringFlag{Name: "state", Usage: "controller state of the previous iteration; none at the start"},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Required: true, Usage: "proposals file"},
		&cli.StringFlag{Name: "state-out", Required: true, Usage: "controller state after iteration k"},
		&cli.StringFlag{Name: "refiner", Value: "builtin", Usage: "builtin or openai"},
		&cli.StringFlag{Name: "endpoint", Usage: "openai: base URL of the chat-completions server"},
		&cli.StringFlag{Name: "model", Usage: "openai: model name"},
		&cli.DurationFlag{Name: "timeout", Value: refiner.NewOpenAI("", "").Timeout, Usage: "openai: time limit per request"},
		&cli.IntFlag{Name: "retries", Value: refiner.NewOpenAI("", "").Retries, Usage: "openai: extra attempts after a transport error, timeout, 429 or 5xx"},
		&cli.Int64Flag{Name: "seed", Value: 1, Usage: "openai: request seed (servers that honour it answer reproducibly)"},
		&cli.StringFlag{Name: "bare", Usage: "cards of the bare replay of iteration k's groups (same tasks, same checkpoint, no scaffold): the absorption signal; COMPRESS then fades absorbed and harmful items, true or not"},
		&cli.StringFlag{Name: "absorption-out", Usage: "with --bare: each item's absorption at k (item_absorption rows)"},
		&cli.Float64Flag{Name: "absorb-margin", Value: control.DefaultAbsorbMargin, Usage: "with --bare: a scope whose bare EMA is within this margin of its scaffolded EMA (or above) has absorbed its items"},
		&cli.StringFlag{Name: "on-refiner-failure", Value: "stop", Usage: "when the refiner cannot be asked after its retries (unreachable or failing endpoint): stop (exit 1, nothing written) or continue (no proposals for that scope this iteration, said on stderr)"},
	}, stage.LoopFlags()...)
}

// From reads the control command's options.
func From(c *cli.Context) (Options, error) {
	loop, tok, err := stage.LoopCommand(c)
	if err != nil {
		return Options{}, err
	}
	onFail := c.String("on-refiner-failure")
	if onFail != "stop" && onFail != "continue" {
		return Options{}, command.Usagef("--on-refiner-failure %q: want stop or continue", onFail)
	}
	return Options{
		Cards: c.String("cards"), History: c.StringSlice("history"), Window: c.Int("window"), Scaffold: c.String("scaffold"), State: c.String("state"),
		Output: c.String("output"), StateOut: c.String("state-out"), Loop: loop,
		Bare: c.String("bare"), AbsorptionOut: c.String("absorption-out"), AbsorbMargin: c.Float64("absorb-margin"),
		Refiner: c.String("refiner"), Endpoint: c.String("endpoint"), Model: c.String("model"),
		Timeout: c.Duration("timeout"), Retries: c.Int("retries"), Seed: c.Int64("seed"),
		Tok: tok, Progress: stage.Progress(),
		ContinueOnFailure: onFail == "continue",
	}, nil
}

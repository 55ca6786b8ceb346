package stage

import (
	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// LoopHelp explains the defaults of the loop options (LoopFlags), for a
// command's --help.
const LoopHelp = "Defaults and why (nothing published fixes them; they follow from GRPO, whose group advantage is\n" +
	"richest near success 0.5 and vanishes at 0 and 1):\n" +
	"  --rho-r 0.4     below it groups are nearly all-failure: add concrete help (EXPAND)\n" +
	"  --rho-c 0.75    at or above it groups drift to all-success: shrink the scaffold (COMPRESS) so the\n" +
	"                  policy carries the skill itself; in between REVISE keeps the size\n" +
	"  --ema 0.5       one iteration's rate over a few groups is noisy; a half-life of one iteration damps\n" +
	"                  flip-flopping yet follows a real change within 2-3 iterations\n" +
	"  --max-items 12, --max-tokens 400 per task type; --max-general-items 8, --max-general-tokens 200:\n" +
	"                  a type's block stays a short read, about the size of hand-written libraries\n" +
	"  --expand-quota 3  additions per type per iteration: enough to react, few enough that each\n" +
	"                  addition's effect shows in the next iteration's cards\n" +
	"  --min-support 2 an addition needs two supporting cards: one group is an anecdote\n" +
	"  --fade-start S --fade-end E --iterations N: snapshot j keeps its caps whole while j/N <= S, none from\n" +
	"                  j/N >= E (the last iterations train bare, as the policy is deployed), linear between"

// Loop are the scaffold loop's options that control and validate share, so
// that a pipeline passes one set of flags to both: the controller's
// thresholds and switches, which control reads (lib/control checks them),
// and the limits, which both read (scaffold.Limits checks them).
type Loop struct {
	RhoR, RhoC, EMA float64
	Primitives      []string // scaffold.ParsePrimitives of --primitives
	Frozen          bool
	General         bool // not --no-general
	Limits          scaffold.Limits
	Tokenizer       string // --tokenizer: counts tokens; "" the built-in one
}

// DefaultLoop returns the loop options' defaults (the controller's
// thresholds as control.DefaultOptions, which a test of lib/stage/control
// keeps in step; scaffold.DefaultLimits).
func DefaultLoop() Loop {
	return Loop{RhoR: 0.4, RhoC: 0.75, EMA: 0.5, Primitives: append([]string(nil), scaffold.Primitives...), General: true,
		Limits: scaffold.DefaultLimits()}
}

// LoopFlags declares the loop options, with their defaults.
func LoopFlags() []cli.Flag {
	d := DefaultLoop()
	l := d.Limits
	return []cli.Flag{
		&cli.Float64Flag{Name: "rho-r", Value: d.RhoR, Usage: "EXPAND below this smoothed success rate"},
		&cli.Float64Flag{Name: "rho-c", Value: d.RhoC, Usage: "COMPRESS at or above this smoothed success rate (REVISE in between)"},
		&cli.Float64Flag{Name: "ema", Value: d.EMA, Usage: "weight of the previous smoothed success rate (0: no smoothing)"},
		&cli.IntFlag{Name: "max-items", Value: l.MaxItems, Usage: "item cap per task type (task + mistake items)"},
		&cli.IntFlag{Name: "max-tokens", Value: l.MaxTokens, Usage: "token cap per task type"},
		&cli.IntFlag{Name: "max-general-items", Value: l.MaxGeneralItems, Usage: "item cap of the general layer"},
		&cli.IntFlag{Name: "max-general-tokens", Value: l.MaxGeneralTokens, Usage: "token cap of the general layer"},
		&cli.IntFlag{Name: "expand-quota", Value: l.ExpandQuota, Usage: "additions per task type per iteration"},
		&cli.IntFlag{Name: "min-support", Value: l.MinSupport, Usage: "distinct supporting cards an addition needs"},
		&cli.IntFlag{Name: "max-item-tokens", Value: l.MaxItemTokens, Usage: "tokens per item"},
		&cli.StringFlag{Name: "primitives", Value: "all", Usage: "primitives allowed: all, expand, no-revise (all but one), or a list such as expand,compress"},
		&cli.BoolFlag{Name: "frozen", Usage: "propose nothing: the scaffold never changes (an ablation)"},
		&cli.BoolFlag{Name: "no-general", Usage: "leave the general layer alone (adapt task and mistake items only)"},
		&cli.StringFlag{Name: "tokenizer", Usage: "tokenizer.json (or a checkpoint folder) to count tokens with; default the built-in one"},
		&cli.Float64Flag{Name: "fade-start", Usage: "the fade: share of the run (--iterations) after which the caps of the snapshots fall"},
		&cli.Float64Flag{Name: "fade-end", Usage: "the fade: share of the run from which the scaffold is empty (every item pruned); 0: no fade"},
		&cli.IntFlag{Name: "iterations", Usage: "the run's iterations (with --fade-end)"},
	}
}

// LoopFrom reads the loop options. An unknown primitive and limits no
// snapshot could keep are usage errors; the controller's thresholds are
// checked where they are used (lib/control).
func LoopFrom(c *cli.Context) (Loop, error) {
	l := DefaultLoop()
	l.RhoR, l.RhoC, l.EMA = c.Float64("rho-r"), c.Float64("rho-c"), c.Float64("ema")
	m := &l.Limits
	m.MaxItems, m.MaxTokens = c.Int("max-items"), c.Int("max-tokens")
	m.MaxGeneralItems, m.MaxGeneralTokens = c.Int("max-general-items"), c.Int("max-general-tokens")
	m.ExpandQuota, m.MinSupport, m.MaxItemTokens = c.Int("expand-quota"), c.Int("min-support"), c.Int("max-item-tokens")
	l.Frozen, l.General = c.Bool("frozen"), !c.Bool("no-general")
	l.Tokenizer = c.String("tokenizer")
	m.Fade = scaffold.Fade{Start: c.Float64("fade-start"), End: c.Float64("fade-end"), Iterations: c.Int("iterations")}
	p, err := scaffold.ParsePrimitives(c.String("primitives"))
	if err != nil {
		return l, command.Usagef("--primitives: %v", err)
	}
	l.Primitives = p
	if err := l.Limits.Validate(); err != nil {
		return l, command.Usagef("%v", err)
	}
	return l, nil
}

// LoopCommand is the start of a scaffold stage that takes no positional
// arguments (control, validate): the loop options and the tokenizer they
// count tokens with.
func LoopCommand(c *cli.Context) (Loop, tokenizer.Tokenizer, error) {
	if err := command.Args(c, 0, 0); err != nil {
		return Loop{}, nil, err
	}
	loop, err := LoopFrom(c)
	if err != nil {
		return Loop{}, nil, err
	}
	tok, err := Tokenizer(loop.Tokenizer)
	if err != nil {
		return Loop{}, nil, err
	}
	return loop, tok, nil
}

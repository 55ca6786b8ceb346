package command

import (
	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/control"
)

// LoopHelp explains the defaults of the loop flags (CLIFlags), for a
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
	"  --min-support 2 an addition needs two supporting cards: one group is an anecdote"

// CLIFlags returns the scaffold loop's flags that the control and validate
// commands share (control.Settings), with their defaults.
func CLIFlags() []cli.Flag {
	d := control.DefaultSettings()
	o := d.Control
	return []cli.Flag{
		&cli.Float64Flag{Name: "rho-r", Value: o.RhoR, Usage: "EXPAND below this smoothed success rate"},
		&cli.Float64Flag{Name: "rho-c", Value: o.RhoC, Usage: "COMPRESS at or above this smoothed success rate (REVISE in between)"},
		&cli.Float64Flag{Name: "ema", Value: o.EMA, Usage: "weight of the previous smoothed success rate (0: no smoothing)"},
		&cli.IntFlag{Name: "max-items", Value: o.MaxItems, Usage: "item cap per task type (task + mistake items)"},
		&cli.IntFlag{Name: "max-tokens", Value: o.MaxTokens, Usage: "token cap per task type"},
		&cli.IntFlag{Name: "max-general-items", Value: o.MaxGeneralItems, Usage: "item cap of the general layer"},
		&cli.IntFlag{Name: "max-general-tokens", Value: o.MaxGeneralTokens, Usage: "token cap of the general layer"},
		&cli.IntFlag{Name: "expand-quota", Value: o.ExpandQuota, Usage: "additions per task type per iteration"},
		&cli.IntFlag{Name: "min-support", Value: d.MinSupport, Usage: "distinct supporting cards an addition needs"},
		&cli.IntFlag{Name: "max-item-tokens", Value: d.MaxItemTokens, Usage: "tokens per item"},
		&cli.StringFlag{Name: "primitives", Value: "all", Usage: "primitives allowed: all, expand, no-revise (all but one), or a list such as expand,compress"},
		&cli.BoolFlag{Name: "frozen", Usage: "propose nothing: the scaffold never changes (an ablation)"},
		&cli.BoolFlag{Name: "no-general", Usage: "leave the general layer alone (adapt task and mistake items only)"},
		&cli.StringFlag{Name: "tokenizer", Usage: "tokenizer.json (or a checkpoint folder) to count tokens with; default the built-in one"},
	}
}

// SettingsFrom reads the shared loop flags; inconsistent values are usage
// errors.
func SettingsFrom(c *cli.Context) (control.Settings, error) {
	s := control.DefaultSettings()
	o := &s.Control
	o.RhoR, o.RhoC, o.EMA = c.Float64("rho-r"), c.Float64("rho-c"), c.Float64("ema")
	o.MaxItems, o.MaxTokens = c.Int("max-items"), c.Int("max-tokens")
	o.MaxGeneralItems, o.MaxGeneralTokens = c.Int("max-general-items"), c.Int("max-general-tokens")
	o.ExpandQuota = c.Int("expand-quota")
	o.Frozen = c.Bool("frozen")
	o.General = !c.Bool("no-general")
	s.MinSupport, s.MaxItemTokens = c.Int("min-support"), c.Int("max-item-tokens")
	p, err := control.ParsePrimitives(c.String("primitives"))
	if err != nil {
		return s, Usagef("--primitives: %v", err)
	}
	o.Enabled = p
	if err := s.Validate(); err != nil {
		return s, Usagef("%v", err)
	}
	return s, nil
}

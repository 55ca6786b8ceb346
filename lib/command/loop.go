package control

import (
	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/command"
)

// Settings are the options of the scaffold loop that the control and
// validate commands share, so that a pipeline passes one set of flags to
// both (CLIFlags): the controller's options, and the two validator rules
// the refiner must also respect.
type Settings struct {
	Control       Options
	MinSupport    int // distinct cards an addition needs
	MaxItemTokens int // tokens per item
}

// Metadata keys that the control and validate commands both write into
// their outputs (table.Meta.Extra: proposals, controller state, decisions,
// snapshots). validate compares MetaScaffold of the proposals with the
// snapshot it is given, so the two commands must share these names.
const (
	MetaIteration       = "iteration"        // the cards' iteration k
	MetaScaffold        = "scaffold"         // scaffold.Hash of the snapshot the proposals were made for
	MetaScaffoldVersion = "scaffold_version" // its version
)

// DefaultSettings returns DefaultOptions, MinSupport 2 and MaxItemTokens 40.
func DefaultSettings() Settings {
	return Settings{Control: DefaultOptions(), MinSupport: 2, MaxItemTokens: 40}
}

// DefaultsHelp explains the defaults, for a command's --help.
const DefaultsHelp = "Defaults and why (nothing published fixes them; they follow from GRPO, whose group advantage is\n" +
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

// CLIFlags returns the shared loop flags with their defaults.
func CLIFlags() []cli.Flag {
	d := DefaultSettings()
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
func SettingsFrom(c *cli.Context) (Settings, error) {
	s := DefaultSettings()
	o := &s.Control
	o.RhoR, o.RhoC, o.EMA = c.Float64("rho-r"), c.Float64("rho-c"), c.Float64("ema")
	o.MaxItems, o.MaxTokens = c.Int("max-items"), c.Int("max-tokens")
	o.MaxGeneralItems, o.MaxGeneralTokens = c.Int("max-general-items"), c.Int("max-general-tokens")
	o.ExpandQuota = c.Int("expand-quota")
	o.Frozen = c.Bool("frozen")
	o.General = !c.Bool("no-general")
	s.MinSupport, s.MaxItemTokens = c.Int("min-support"), c.Int("max-item-tokens")
	p, err := ParsePrimitives(c.String("primitives"))
	if err != nil {
		return s, command.Usagef("--primitives: %v", err)
	}
	o.Enabled = p
	if err := s.Validate(); err != nil {
		return s, err
	}
	return s, nil
}

// Validate reports inconsistent settings as usage errors.
func (s Settings) Validate() error {
	if err := s.Control.Validate(); err != nil {
		return command.Usagef("%v", err)
	}
	if s.MinSupport < 1 {
		return command.Usagef("--min-support must be at least 1, got %d", s.MinSupport)
	}
	if s.MaxItemTokens < 1 {
		return command.Usagef("--max-item-tokens must be at least 1, got %d", s.MaxItemTokens)
	}
	return nil
}

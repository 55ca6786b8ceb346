package control

import "fmt"

// Settings are the options of the scaffold loop that the control and
// validate commands share, so that a pipeline passes one set of flags to
// both (lib/command CLIFlags): the controller's options, and the two validator rules
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

// Validate reports inconsistent settings (the messages name the flags).
func (s Settings) Validate() error {
	if err := s.Control.Validate(); err != nil {
		return err
	}
	if s.MinSupport < 1 {
		return fmt.Errorf("--min-support must be at least 1, got %d", s.MinSupport)
	}
	if s.MaxItemTokens < 1 {
		return fmt.Errorf("--max-item-tokens must be at least 1, got %d", s.MaxItemTokens)
	}
	return nil
}

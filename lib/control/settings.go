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

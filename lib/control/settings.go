package control

import (
	"fmt"

	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/validate"
)

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
// their outputs (scaffold.MetaIteration and the others).
const (
	MetaIteration       = scaffold.MetaIteration
	MetaScaffold        = scaffold.MetaScaffold
	MetaScaffoldVersion = scaffold.MetaScaffoldVersion
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

// Validation returns the validator's options (validate.DefaultOptions)
// with the caps and quota of o, for proposals of iteration.
func (c Options) Validation(iteration int32) validate.Options {
	o := validate.DefaultOptions()
	o.Iteration = iteration
	o.ExpandQuota = c.ExpandQuota
	o.MaxItems, o.MaxTokens = c.MaxItems, c.MaxTokens
	o.MaxGeneralItems, o.MaxGeneralTokens = c.MaxGeneralItems, c.MaxGeneralTokens
	return o
}

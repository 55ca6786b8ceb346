package stage

import (
	"errors"

	"github.com/pats-rl/pats/lib/command"
)

// settingError is a domain error about one setting's value
// (rollout.SettingError, rl.SettingError): the domain speaks of the value,
// the stage names the flag that gave it.
type settingError interface {
	error
	SettingProblem() (setting, problem string)
}

// FlagError maps a domain error about a setting to a usage error naming
// its flag, "--FLAG PROBLEM"; flags maps a setting to its flag where the
// names differ (a setting absent from it is its own flag's name). Any
// other error is returned as it is.
func FlagError(err error, flags map[string]string) error {
	var s settingError
	if !errors.As(err, &s) {
		return err
	}
	name, problem := s.SettingProblem()
	if f, ok := flags[name]; ok {
		name = f
	}
	return command.Usagef("--%s %s", name, problem)
}

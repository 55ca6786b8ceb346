package rl

import "fmt"

// A SettingError is a training setting whose value is unknown or out of
// range. Setting names it as the config's docs do (credit, step-credit,
// adv-norm, loss-agg, select-baseline, select-norm); Problem says what is
// wrong with the value. The domain speaks of values; a command names the
// flag that gave it (stage.FlagError).
type SettingError struct{ Setting, Problem string }

func (e *SettingError) Error() string { return e.Setting + " " + e.Problem }

// SettingProblem returns the setting and the problem.
func (e *SettingError) SettingProblem() (string, string) { return e.Setting, e.Problem }

func badSetting(setting, format string, args ...any) error {
	return &SettingError{Setting: setting, Problem: fmt.Sprintf(format, args...)}
}

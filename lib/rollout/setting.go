package rollout

import "fmt"

// A SettingError is a value of the Options (or of a mode a helper takes)
// that is out of range. Setting names the setting as the Options' docs do
// (group, history, tasks, shard, admissible, hints, preread); Problem says
// what is wrong with the value. The domain speaks of values; a command that
// maps a setting to a flag names the flag instead (stage.FlagError).
type SettingError struct{ Setting, Problem string }

func (e *SettingError) Error() string { return e.Setting + " " + e.Problem }

// SettingProblem returns the setting and the problem (stage.FlagError reads
// them through this method).
func (e *SettingError) SettingProblem() (string, string) { return e.Setting, e.Problem }

func badSetting(setting, format string, args ...any) error {
	return &SettingError{Setting: setting, Problem: fmt.Sprintf(format, args...)}
}

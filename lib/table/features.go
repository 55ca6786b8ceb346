package table

import "strings"

// FailurePrefix begins the trajectory features that name a failure mode
// ("failure:loop"): an environment writes them, rollout names an
// episode's failure mode from them, the refiner turns them into Mistake
// items.
const FailurePrefix = "failure:"

// FailureFeature is the feature that names failure mode m.
func FailureFeature(m string) string { return FailurePrefix + m }

// FailureOf is the failure mode feature f names; ok is false for a
// feature that names none.
func FailureOf(f string) (mode string, ok bool) { return strings.CutPrefix(f, FailurePrefix) }

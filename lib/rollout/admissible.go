package rollout

import (
	"strings"

	"github.com/pats-rl/pats/lib/env"
)

// The admissible-actions modes (Options.Admissible, rollout --admissible):
// which of the environment's admissible actions each observation in the
// context lists after it.
const (
	// AdmissibleNone lists none (the default): the context holds the
	// environment's observations only.
	AdmissibleNone = "none"
	// AdmissibleHere lists the actions that change something at the
	// current place: every admissible action but moving ("go to ..."),
	// looking ("look", "examine ...") and "inventory". The places to go
	// are in the first observation; what is left says what the agent
	// holds, what it can take and whether the appliance in front of it
	// does the task's job, a few words per turn.
	AdmissibleHere = "here"
	// AdmissibleAll lists every admissible action, as verl-agent's ALFWorld
	// prompts do (REFERENCE.md): tens of words per turn.
	AdmissibleAll = "all"
)

// AdmissibleModes lists the modes in the order the flag's help names them.
var AdmissibleModes = []string{AdmissibleNone, AdmissibleHere, AdmissibleAll}

// AdmissibleLead starts the line that lists the admissible actions.
const AdmissibleLead = "Admissible actions now:"

// CheckAdmissible refuses an unknown mode ("" is none).
func CheckAdmissible(mode string) error {
	switch mode {
	case "", AdmissibleNone, AdmissibleHere, AdmissibleAll:
		return nil
	}
	return badSetting("admissible", "%q: want %s", mode, strings.Join(AdmissibleModes, ", "))
}

// AdmissibleLine is the line that follows an observation under mode: the
// actions (in the environment's order) joined by ", " after
// AdmissibleLead, ending with "."; "" when mode lists none or none is
// left.
func AdmissibleLine(mode string, actions []string) string {
	if mode != AdmissibleHere && mode != AdmissibleAll {
		return ""
	}
	var shown []string
	for _, a := range actions {
		if mode == AdmissibleHere && !actsHere(a) {
			continue
		}
		shown = append(shown, a)
	}
	if len(shown) == 0 {
		return ""
	}
	return AdmissibleLead + " " + strings.Join(shown, ", ") + "."
}

// actsHere reports whether an action changes something at the current
// place (AdmissibleHere).
func actsHere(a string) bool {
	switch {
	case a == "look", a == "inventory", strings.HasPrefix(a, "go to "), strings.HasPrefix(a, "examine "):
		return false
	}
	return true
}

// shownObservation is an observation as the context shows it: the
// environment's text, then under Options.Admissible the line of what is
// admissible in the episode's state now. Trajectories record the
// environment's text alone.
func shownObservation(o Options, ep env.Episode, obs string) string {
	line := AdmissibleLine(o.Admissible, ep.Admissible())
	if line == "" {
		return obs
	}
	return obs + "\n" + line
}

package vocabulary_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/env/household"
	"github.com/pats-rl/pats/lib/refiner"
	"github.com/pats-rl/pats/lib/skill"
)

// TestHintsAreRefinerRules: the rules household states about its tasks
// (the hints a base is pretrained to follow) are the rule-based refiner's
// texts for the same facts, so a scaffold distilled from cards speaks the
// language the base reads. (The refiner states a tool only from a feature
// naming it, heat:<kind>; an action feature names no tool.)
func TestHintsAreRefinerRules(t *testing.T) {
	b := refiner.NewRuleBased()
	for _, c := range []struct{ feature, rule string }{
		{"source:drawer", fmt.Sprintf(household.RuleLookFirst, "drawer")},
		{"source:garbagecan", fmt.Sprintf(household.RuleLookFirst, "garbagecan")},
		{"heat:stoveburner", fmt.Sprintf(household.RuleHeat, "stoveburner")},
		{"heat:microwave", fmt.Sprintf(household.RuleHeat, "microwave")},
		{"cool:fridge", fmt.Sprintf(household.RuleCool, "fridge")},
		{"clean:sinkbasin", fmt.Sprintf(household.RuleClean, "sinkbasin")},
	} {
		if got := b.Text(c.feature); got != c.rule {
			t.Errorf("refiner text of %s = %q, household's rule %q", c.feature, got, c.rule)
		}
	}
}

// TestStepsAreSkillSteps: the steps household-rl states for a task are
// lines of its type's right skill in the household-rl library, so a base
// pretrained on such bodies meets the same words when it reads the skill.
func TestStepsAreSkillSteps(t *testing.T) {
	e, err := env.Open(household.NameRL)
	if err != nil {
		t.Fatal(err)
	}
	lib, err := skill.ShippedLibrary(household.NameRL)
	if err != nil {
		t.Fatal(err)
	}
	ids, _ := e.Tasks(env.SplitValidSeen)
	checked := map[string]bool{}
	for _, id := range ids {
		ep, _ := e.Reset(id, 1)
		typ := ep.TaskType()
		hs, err := e.(env.Hinter).Hints(id)
		if err != nil {
			t.Fatal(err)
		}
		if len(hs.Steps) == 0 || !strings.Contains(hs.Steps[0], household.Conventions.Keep[typ][0]) {
			continue // a task whose target is the house kind keeps its objects elsewhere
		}
		body, _ := lib.Get(lib.Right(typ)[0])
		for _, st := range hs.Steps {
			if !strings.Contains(body.Body, st) {
				t.Errorf("%s (%s): step %q is not in %s's body:\n%s", id, typ, st, body.Name, body.Body)
			}
		}
		checked[typ] = true
	}
	if len(checked) != 6 {
		t.Errorf("checked types %v", checked)
	}
}

package builtin_test

import (
	"fmt"
	"testing"

	"github.com/pats-rl/pats/lib/env/household"
	"github.com/pats-rl/pats/lib/refiner"
)

// TestHintsAreRefinerRules: the rules household states about its tasks
// (the hints a base is pretrained to follow) are the built-in refiner's
// texts for the same facts, so a scaffold distilled from cards speaks the
// language the base reads.
func TestHintsAreRefinerRules(t *testing.T) {
	b := refiner.NewBuiltin()
	for _, c := range []struct{ feature, rule string }{
		{"source:drawer", fmt.Sprintf(household.RuleLookFirst, "drawer")},
		{"source:garbagecan", fmt.Sprintf(household.RuleLookFirst, "garbagecan")},
		{"heat:stoveburner", fmt.Sprintf(household.RuleHeat, "stoveburner")},
		{"heat:microwave", fmt.Sprintf(household.RuleHeat, "microwave")},
		{"action:heat", fmt.Sprintf(household.RuleHeat, "microwave")},
		{"cool:fridge", fmt.Sprintf(household.RuleCool, "fridge")},
		{"action:cool", fmt.Sprintf(household.RuleCool, "fridge")},
		{"clean:sinkbasin", fmt.Sprintf(household.RuleClean, "sinkbasin")},
		{"action:clean", fmt.Sprintf(household.RuleClean, "sinkbasin")},
		{"action:use", household.RuleLamp},
	} {
		if got := b.Text(c.feature); got != c.rule {
			t.Errorf("refiner text of %s = %q, household's rule %q", c.feature, got, c.rule)
		}
	}
}

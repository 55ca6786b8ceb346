package shipped_test

import (
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/env/shipped"
	"github.com/pats-rl/pats/lib/toolcall"
)

// TestShippedTools: every shipped environment declares tools that make a
// valid set, and every action its oracle takes and every admissible
// action it is offered on the way is written as a call of one of them
// that reads back as that very action.
func TestShippedTools(t *testing.T) {
	for _, name := range shipped.Names {
		e, err := env.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		set, err := toolcall.NewSet(env.Tools(e))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ids, err := e.Tasks(env.SplitTrain)
		if err != nil {
			t.Fatal(err)
		}
		checked := 0
		for _, id := range ids[:min(4, len(ids))] {
			ep, err := e.Reset(id, 1)
			if err != nil {
				t.Fatal(err)
			}
			o := e.Oracle()
			o.Start(ep.Goal(), ep.Observation(), 1)
			obs := ep.Observation()
			for step := 0; step < ep.MaxSteps(); step++ {
				adm := ep.Admissible()
				a := o.Act(obs, adm)
				for _, x := range append(adm, a) {
					text := set.Answer(x)
					c, err := set.Parse(text)
					if err != nil || c.Action != x {
						t.Fatalf("%s %s: action %q is written as %q, which reads back as %q, %v", name, id, x, text, c.Action, err)
					}
					if strings.Contains(text, "invalid_action") {
						t.Fatalf("%s: action %q has no tool", name, x)
					}
					checked++
				}
				st := ep.Step(a)
				if st.Done {
					if !st.Success {
						t.Errorf("%s %s: the oracle failed", name, id)
					}
					break
				}
				obs = st.Observation
			}
		}
		if checked < 10 {
			t.Errorf("%s: only %d actions checked", name, checked)
		}
	}
}

package searchqa

import (
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/env"
)

// TestStateKey: the anchor-state key names the state as the agent knows it
// (how many searches it made, the passages its last search returned, and
// what the observation shows), so equal states get one key whatever the
// path to them, and the invalid action's reply, one text everywhere, gets a
// key per state. Keying by the observation text alone fails the "same text"
// rows; keying by the path (the step count, or the actions so far) fails
// the "same state" rows.
func TestStateKey(t *testing.T) {
	e := mustEnv(t)
	ids, err := e.Tasks(env.SplitTrain)
	if err != nil {
		t.Fatal(err)
	}
	id := ids[0]
	q, _ := e.Question(id)
	search1 := "search[" + strings.TrimSuffix(q.Text, "?") + "]"
	// A second search with other passages: one the environment suggests
	// after the first.
	ep, err := e.Reset(id, 1)
	if err != nil {
		t.Fatal(err)
	}
	after := ep.Step(search1).Observation
	var search2 string
	for _, a := range ep.Admissible() {
		if strings.HasPrefix(a, "search[") && a != search1 {
			if ep2, _ := e.Reset(id, 1); ep2.Step(a).Observation != after {
				search2 = a
				break
			}
		}
	}
	if search2 == "" {
		t.Fatalf("%s: no suggested search with other passages than %s", id, search1)
	}
	// play runs actions in a fresh episode of the task and returns the last
	// state's key and observation text (the first state's with no actions).
	play := func(actions []string) (key, obs string) {
		t.Helper()
		ep, err := e.Reset(id, 1)
		if err != nil {
			t.Fatal(err)
		}
		key, obs = env.InitialKey(ep), ep.Observation()
		for _, a := range actions {
			st := ep.Step(a)
			if st.Done {
				t.Fatalf("%v: the episode ended at %q", actions, a)
			}
			key, obs = env.NextKey(st), st.Observation
		}
		return key, obs
	}
	cases := []struct {
		name     string
		a, b     []string
		same     bool // the same state: one key
		sameText bool // the same observation text (checked, so a row tests what it says)
	}{
		{name: "the first state, twice", same: true, sameText: true},
		{name: "invalid before any search, once and twice", a: []string{"dance"}, b: []string{"dance", "dance"}, same: true, sameText: true},
		{name: "a search, and the same after an invalid action", a: []string{search1}, b: []string{"dance", search1}, same: true, sameText: true},
		{name: "invalid after a search, once and twice", a: []string{search1, "dance"}, b: []string{"dance", search1, "dance", "dance"}, same: true, sameText: true},
		{name: "invalid before and after a search", a: []string{"dance"}, b: []string{search1, "dance"}, sameText: true},
		{name: "invalid after two different searches", a: []string{search1, "dance"}, b: []string{search2, "dance"}, sameText: true},
		{name: "one search, and the same search twice", a: []string{search1}, b: []string{search1, search1}, sameText: true},
		{name: "two different searches", a: []string{search1}, b: []string{search2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ka, oa := play(c.a)
			kb, ob := play(c.b)
			if (oa == ob) != c.sameText {
				t.Fatalf("observations equal %v, want %v:\n%q\n%q", oa == ob, c.sameText, oa, ob)
			}
			if (ka == kb) != c.same {
				t.Errorf("keys %s and %s: equal %v, want %v", ka, kb, ka == kb, c.same)
			}
		})
	}
}

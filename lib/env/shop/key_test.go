package shop

import (
	"testing"

	"github.com/pats-rl/pats/lib/env"
)

// TestStateKey: the anchor-state key names the state as the agent knows it
// (the page, the query behind it and the options chosen, and what the
// observation shows), so equal states get one key whatever the path to
// them, and states whose observation text is the same but whose page is not
// get two. Keying by the observation text alone fails the "same text" rows;
// keying by the path (the step count, or the actions so far) fails the
// "same state" rows.
func TestStateKey(t *testing.T) {
	e := mustEnv(t)
	ids, err := e.Tasks(env.SplitTrain)
	if err != nil {
		t.Fatal(err)
	}
	id := ids[0]
	g, _ := e.Goal(id)
	// A product shown on the first results page of two different queries:
	// its item page reads the same after either, but "< prev" leads back to
	// different results.
	q1 := g.Type
	first := e.idx.Search(q1, MaxResults)
	var p *Product
	var q2 string
	for _, k := range first[:min(ResultsPerPage, len(first))] {
		cand := &e.products[k]
		if cand.Title == q1 {
			continue
		}
		res := e.idx.Search(cand.Title, MaxResults)
		for _, j := range res[:min(ResultsPerPage, len(res))] {
			if j == k {
				p, q2 = cand, cand.Title
				break
			}
		}
		if p != nil {
			break
		}
	}
	if p == nil {
		t.Fatalf("%s: no product on the first results page of both %q and its own title", id, q1)
	}
	if len(p.Options) == 0 {
		t.Fatalf("%s: product %s has no options", id, p.ID)
	}
	opt := p.Options[0].Value
	search1, search2 := "search["+q1+"]", "search["+q2+"]"
	item := "click[" + p.ID + "]"
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
		{name: "the first state, twice", a: nil, b: nil, same: true, sameText: true},
		{name: "invalid on the search page, once and twice", a: []string{"dance"}, b: []string{"dance", "dance"}, same: true, sameText: true},
		{name: "results, and back to them from an item with an option chosen", a: []string{search1},
			b: []string{search1, item, "click[" + opt + "]", "click[< prev]"}, same: true, sameText: true},
		{name: "an item, and again after choosing an option and leaving", a: []string{search1, item},
			b: []string{search1, item, "click[" + opt + "]", "click[< prev]", item}, same: true, sameText: true},
		{name: "the search page, first and after back to search", a: nil, b: []string{search1, "click[back to search]"}, same: true, sameText: true},
		{name: "one item reached from two queries", a: []string{search1, item}, b: []string{search2, item}, sameText: true},
		{name: "invalid on that item, from two queries", a: []string{search1, item, "dance"}, b: []string{search2, item, "dance"}, sameText: true},
		{name: "an item with and without an option chosen", a: []string{search1, item}, b: []string{search1, item, "click[" + opt + "]"}},
		{name: "the search page and the results", a: nil, b: []string{search1}},
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
			if ka == env.StateKey(oa) {
				t.Errorf("the key %s is the bare observation's", ka)
			}
		})
	}
}

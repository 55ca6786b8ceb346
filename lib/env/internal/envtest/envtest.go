// Package envtest holds helpers for the tests of the built-in environments:
// playing one episode to its end with an agent while recording everything it
// showed, picking a spread of task ids from a split, and checking that an
// environment's vocabulary covers every word its episodes can show.
//
// The helpers only use the env.Env interface, so they test an environment
// from the outside; they fail the test (t.Fatal) on an interface error or an
// episode that does not end.
package envtest

import (
	"testing"

	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/words"
)

// Episode is the record of one played episode.
type Episode struct {
	// Steps is the number of Step calls.
	Steps int
	// Actions are the actions taken, in order.
	Actions []string
	// Last is the final step (Done is true).
	Last env.Step
	// Texts are the goal, the first observation, then per step the
	// admissible actions, the action and the observation: every text the
	// episode showed or took.
	Texts []string
	// Features are the episode's features after the last step.
	Features []string
}

// Play resets task id with seed, starts ag with the same seed and steps it
// until the episode is done. An episode still running after maxSteps steps
// fails the test.
func Play(t testing.TB, e env.Env, id string, ag env.Agent, seed int64, maxSteps int) Episode {
	t.Helper()
	ep, err := e.Reset(id, seed)
	if err != nil {
		t.Fatal(err)
	}
	o := Episode{Texts: []string{ep.Goal(), ep.Observation()}}
	ag.Start(ep.Goal(), ep.Observation(), seed)
	obs := ep.Observation()
	for i := 0; i < maxSteps; i++ {
		adm := ep.Admissible()
		o.Texts = append(o.Texts, adm...)
		a := ag.Act(obs, adm)
		st := ep.Step(a)
		o.Steps++
		o.Actions = append(o.Actions, a)
		o.Texts = append(o.Texts, a, st.Observation)
		obs = st.Observation
		if st.Done {
			o.Last, o.Features = st, ep.Features()
			return o
		}
	}
	t.Fatalf("%s: episode did not end within %d steps", id, maxSteps)
	return o
}

// Sample returns n ids spread over ids (all of them when there are at most
// n): with stride k = len(ids)/n, the i-th pick is ids[i*k + i%period].
// period is the length of the cycle in which an environment's task types
// repeat along a split (1 when they do not cycle): the offset keeps every
// type in the sample whatever the stride. Picks past the end are dropped;
// the picks are distinct when the stride is at least period.
func Sample(ids []string, n, period int) []string {
	if len(ids) <= n {
		return ids
	}
	k := len(ids) / n
	var out []string
	for i := 0; i < n; i++ {
		if j := i*k + i%period; j < len(ids) {
			out = append(out, ids[j])
		}
	}
	return out
}

// CheckVocabulary plays the oracle and env.RandomAgent on Sample(ids,
// perSplit, period) of every split (seed: the index in the sample) and fails
// the test at the first word (words.Split) of a shown or taken text that
// e.Vocabulary lacks. It returns the vocabulary's size.
func CheckVocabulary(t testing.TB, e env.Env, perSplit, period, maxSteps int) int {
	t.Helper()
	voc := map[string]bool{}
	for _, w := range e.Vocabulary() {
		voc[w] = true
	}
	for _, sp := range e.Splits() {
		ids, err := e.Tasks(sp)
		if err != nil {
			t.Fatal(err)
		}
		for i, id := range Sample(ids, perSplit, period) {
			for _, ag := range []env.Agent{e.Oracle(), env.RandomAgent()} {
				for _, s := range Play(t, e, id, ag, int64(i), maxSteps).Texts {
					for _, w := range words.Split(s) {
						if !voc[w] {
							t.Fatalf("%s: word %q of %q not in the vocabulary", id, w, s)
						}
					}
				}
			}
		}
	}
	return len(voc)
}

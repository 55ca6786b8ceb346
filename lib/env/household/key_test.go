package household

import (
	"testing"

	"github.com/pats-rl/pats/lib/env"
)

// TestStateKey: the anchor-state key names the state as the agent knows
// it. "Nothing happens." in the middle of the room with empty hands, at a
// receptacle, and at it holding an object are three states with three
// keys; the same state shown twice has one key; and the first state's key
// is the episode's InitialKey.
func TestStateKey(t *testing.T) {
	e := New()
	ids, err := e.Tasks(env.SplitTrain)
	if err != nil {
		t.Fatal(err)
	}
	ep, err := e.Reset(ids[0], 1)
	if err != nil {
		t.Fatal(err)
	}
	h := ep.(*episode)
	first, wantFirst := env.InitialKey(ep), h.key(h.first)
	nothing := func() string {
		t.Helper()
		st := ep.Step("dance")
		if st.Observation != textNothing || st.Valid {
			t.Fatalf("dance: %q (valid %v), want %q", st.Observation, st.Valid, textNothing)
		}
		return env.NextKey(st)
	}
	middle := nothing()
	if again := nothing(); again != middle {
		t.Errorf("the same state twice: keys %s and %s", middle, again)
	}
	// Go to a receptacle with an object on it and take it.
	var at, obj string
	for _, o := range h.w.objs {
		r := h.w.receps[o.loc]
		if !o.lamp && !r.openable {
			at, obj = r.name, o.name
			break
		}
	}
	if at == "" {
		t.Fatal("no object on an open receptacle")
	}
	if st := ep.Step("go to " + at); !st.Valid {
		t.Fatalf("go to %s: %q", at, st.Observation)
	}
	there := nothing()
	if st := ep.Step("take " + obj + " from " + at); !st.Valid {
		t.Fatalf("take %s from %s: %q", obj, at, st.Observation)
	}
	holding := nothing()
	keys := map[string]string{first: "first", middle: "middle", there: "at " + at, holding: "at " + at + " holding " + obj}
	if len(keys) != 4 {
		t.Errorf("keys of four different states: %v, want four different keys", keys)
	}
	if env.StateKey(textNothing) == middle {
		t.Errorf("the key is the bare observation's")
	}
	if first != wantFirst || first == env.StateKey(h.first) {
		t.Errorf("InitialKey %s, want the key of the first state %s", first, wantFirst)
	}
}

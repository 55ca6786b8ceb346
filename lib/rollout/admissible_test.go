package rollout

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/env"
	_ "github.com/pats-rl/pats/lib/env/shipped" // registers the shipped environments
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

func TestAdmissibleLine(t *testing.T) {
	acts := []string{"go to fridge 1", "look", "inventory", "examine mug 2", "heat mug 2 with stoveburner 1", "put mug 2 in/on stoveburner 1"}
	for _, c := range []struct {
		mode    string
		actions []string
		want    string
	}{
		{"", acts, ""},
		{AdmissibleNone, acts, ""},
		{AdmissibleHere, acts, "Admissible actions now: heat mug 2 with stoveburner 1, put mug 2 in/on stoveburner 1."},
		{AdmissibleAll, acts, "Admissible actions now: go to fridge 1, look, inventory, examine mug 2, heat mug 2 with stoveburner 1, put mug 2 in/on stoveburner 1."},
		{AdmissibleHere, []string{"go to fridge 1", "look"}, ""},
		{AdmissibleAll, nil, ""},
	} {
		if got := AdmissibleLine(c.mode, c.actions); got != c.want {
			t.Errorf("%q %v: got %q, want %q", c.mode, c.actions, got, c.want)
		}
	}
}

// TestAdmissibleInContext: under --admissible each observation in the
// context is followed by the line of what the episode's state admits
// then (replayed from the recorded actions), the recorded observations
// stay the environment's and the oracle acts as without it; "" and none
// write the same bytes; an unknown mode is refused.
func TestAdmissibleInContext(t *testing.T) {
	e, _ := env.Open("household-rl")
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	run := func(mode string) []table.Trajectory {
		t.Helper()
		o := Options{Env: e, Split: env.SplitValidSeen, Tasks: 12, Group: 1, Seed: 3, Tok: tok, History: 2, Admissible: mode,
			Policy: TextPolicy{PolicyName: "oracle", New: e.Oracle}, ScaffoldVersion: -1}
		rows, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	plain, none := run(""), run(AdmissibleNone)
	for i := range plain {
		if !slices.Equal(plain[i].Tokens, none[i].Tokens) {
			t.Fatalf("%s: none wrote other tokens than no mode", plain[i].TaskID)
		}
		if strings.Contains(tok.Decode(plain[i].Tokens), "admissible actions") {
			t.Fatalf("%s: a line without a mode", plain[i].TaskID)
		}
	}
	for _, mode := range []string{AdmissibleHere, AdmissibleAll} {
		rows := run(mode)
		lines := 0
		for i, r := range rows {
			p := plain[i]
			if !slices.Equal(r.Actions, p.Actions) || !slices.Equal(r.Observations, p.Observations) {
				t.Fatalf("%s %s: the oracle's episode or the recorded observations changed", mode, r.TaskID)
			}
			if len(r.Tokens) <= len(p.Tokens) {
				t.Errorf("%s %s: %d tokens, not more than %d without the lines", mode, r.TaskID, len(r.Tokens), len(p.Tokens))
			}
			// replay the episode: each observation's line, in order
			ep, err := e.Reset(r.TaskID, r.Seed)
			if err != nil {
				t.Fatal(err)
			}
			want := []string{AdmissibleLine(mode, ep.Admissible())}
			for _, a := range r.Actions {
				if st := ep.Step(a); !st.Done {
					want = append(want, AdmissibleLine(mode, ep.Admissible()))
				}
			}
			text := tok.Decode(r.Tokens)
			for k, w := range want {
				if w == "" {
					continue
				}
				if mode == AdmissibleHere && strings.Contains(w, "go to ") {
					t.Fatalf("%s observation %d: a move listed: %q", r.TaskID, k, w)
				}
				j := strings.Index(text, strings.ToLower(w))
				if j < 0 {
					t.Fatalf("%s %s observation %d: %q not in the context after the earlier lines", mode, r.TaskID, k, w)
				}
				text = text[j+len(w):]
				lines++
			}
			if strings.Contains(text, "admissible actions") {
				t.Errorf("%s %s: more lines than observations with one", mode, r.TaskID)
			}
		}
		if lines < len(rows) {
			t.Errorf("%s: only %d lines in %d episodes", mode, lines, len(rows))
		}
	}
	o := Options{Env: e, Split: env.SplitValidSeen, Tasks: 1, Group: 1, Seed: 3, Tok: tok, Admissible: "some",
		Policy: TextPolicy{PolicyName: "oracle", New: e.Oracle}, ScaffoldVersion: -1}
	// The domain speaks of the value, not of a flag.
	if _, err := Run(context.Background(), o); err == nil || err.Error() != `admissible "some": want none, here, all` {
		t.Errorf("unknown mode: %v", err)
	}
}

package household

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/env"
)

// The worlds' rules come from their own tasks: household-rl's house
// (Conventions), household-drawn only what no draw changes.
func TestRules(t *testing.T) {
	texts := func(h household) map[string]string {
		rs, err := h.Rules()
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for _, r := range rs {
			m[r.TaskType+" "+r.Kind] = r.Text
		}
		return m
	}
	want := map[string]string{}
	for typ, kinds := range Conventions.Keep {
		want[typ+" place"] = "Look in the " + kinds[0] + " first."
	}
	want[TypeHeat+" tool"] = "Heat the object with the " + Conventions.Heat + " before placing it."
	want[TypeCool+" tool"] = "Cool the object with the fridge before placing it."
	want[TypeClean+" tool"] = "Clean the object in the sinkbasin before placing it."
	if diff := cmp.Diff(want, texts(household{kind: worldRL})); diff != "" {
		t.Errorf("household-rl's rules (-want +got):\n%s", diff)
	}
	for k, v := range texts(household{kind: worldDrawn}) {
		if k[len(k)-5:] == "place" {
			t.Errorf("household-drawn has a place rule %q: its kept kinds are drawn per task", v)
		}
	}
}

func TestJudgeItem(t *testing.T) {
	h := household{kind: worldRL}
	cases := []struct {
		typ, text, verdict string
		claims             []string
	}{
		{TypeCool, "Look in the cabinet first.", env.VerdictTrue, []string{"look:cabinet"}},
		{TypeCool, "Look in the drawer first.", env.VerdictFalse, []string{"look:drawer"}},
		{TypePickAndPlace, "Aim for visited drawer.", env.VerdictTrue, []string{"look:drawer"}},
		{"", "Look in the garbagecan first.", env.VerdictFalse, []string{"look:garbagecan"}},
		{TypeHeat, "Heat the object with the microwave before placing it.", env.VerdictFalse, []string{"heat:microwave"}},
		{"", "Heat the object with the stoveburner before placing it.", env.VerdictTrue, []string{"heat:stoveburner"}},
		{TypeCool, "Do not look in the cabinet.", env.VerdictFalse, []string{"not look:cabinet"}},
		{TypeCool, "Never heat anything with the microwave.", env.VerdictTrue, []string{"not heat:microwave"}},
		{TypeCool, "Put the object in the fridge.", env.VerdictNotJudgeable, nil},
		{TypeCool, "Aim for recep countertop.", env.VerdictNotJudgeable, nil},
		{TypeCool, "Make sure you reach this step: took target.", env.VerdictNotJudgeable, nil},
		{TypeCool, "Look in the cabinet first; cool the object with the microwave.", env.VerdictFalse, []string{"look:cabinet", "cool:microwave"}},
	}
	for _, c := range cases {
		j, err := h.JudgeItem(c.typ, c.text)
		if err != nil {
			t.Fatal(err)
		}
		if j.Verdict != c.verdict || !cmp.Equal(j.Claims, c.claims) {
			t.Errorf("%s %q: %s %v, want %s %v", c.typ, c.text, j.Verdict, j.Claims, c.verdict, c.claims)
		}
	}
	if _, err := h.JudgeItem("no_such_type", "Look in the cabinet first."); err == nil {
		t.Errorf("an unknown task type was judged")
	}
}

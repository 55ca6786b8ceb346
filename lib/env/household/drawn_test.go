package household

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/env"
)

// TestDrawnWorldSameTasks: household-drawn has household's splits, sizes,
// combinations and goals; ids of the other worlds are errors in it.
func TestDrawnWorldSameTasks(t *testing.T) {
	std, dr := New(), NewDrawn()
	if dr.Name() != NameDrawn {
		t.Fatalf("name %q", dr.Name())
	}
	if _, err := env.Open(NameDrawn); err != nil {
		t.Fatalf("%s not registered: %v", NameDrawn, err)
	}
	sameTasks(t, std, dr, NameDrawn, 11)
	for _, c := range []struct {
		e  env.Env
		id string
	}{{dr, "household/train/00001"}, {dr, "household-rl/train/00001"}, {std, "household-drawn/train/00001"}, {NewRL(), "household-drawn/train/00001"}} {
		if _, err := c.e.Reset(c.id, 1); err == nil {
			t.Fatalf("%s accepted %s", c.e.Name(), c.id)
		}
	}
}

// TestDrawnConventions: every goal object of a household-drawn task lies at
// its drawn kind, only the drawn appliance heats, and the draws spread: for
// each task type the most frequent kept kind holds under 40% of the train
// tasks (no type-level convention), and the microwave heats some tasks,
// the stoveburner the others.
func TestDrawnConventions(t *testing.T) {
	ids, _ := tasks(worldDrawn, env.SplitTrain)
	keeps := map[string]map[string]int{}
	heats := map[string]int{}
	for _, id := range ids {
		s, err := specFor(id)
		if err != nil {
			t.Fatal(err)
		}
		if s.keep == "" || s.keep == s.c.recep || !roomHas(s.room, s.keep) {
			t.Fatalf("%s (%s, %s): kept at %q", id, s.c.key(), s.room, s.keep)
		}
		if keeps[s.c.typ] == nil {
			keeps[s.c.typ] = map[string]int{}
		}
		keeps[s.c.typ][s.keep]++
		if s.c.typ == TypeHeat {
			heats[s.heatKind()]++
		}
	}
	for typ, m := range keeps {
		n, top := 0, 0
		for _, c := range m {
			n += c
			top = max(top, c)
		}
		if float64(top) >= 0.4*float64(n) {
			t.Fatalf("%s: kept kinds %v: one kind holds %d of %d", typ, m, top, n)
		}
	}
	if len(heats) != 2 || heats[applianceHeat] == 0 || heats["stoveburner"] == 0 {
		t.Fatalf("heating appliances drawn: %v, want the microwave and the stoveburner", heats)
	}
	for _, id := range ids[:120] {
		s, _ := specFor(id)
		w := generate(s)
		for _, o := range w.objs {
			if o.kind == s.c.obj && !o.lamp && w.receps[o.loc].kind != s.keep {
				t.Fatalf("%s: %s at %s, want the drawn kind %s", id, o.name, w.receps[o.loc].name, s.keep)
			}
		}
		if s.c.typ != TypeHeat {
			continue
		}
		e := newEpisode(s, w)
		for j, o := range w.objs {
			if o.kind == s.c.obj {
				e.held, w.objs[j].loc = j, -1
				break
			}
		}
		h := w.objs[e.held].name
		for i, r := range w.receps {
			e.loc = i
			can := strings.Contains(strings.Join(e.Admissible(), "|"), "heat "+h+" with "+r.name)
			if want := r.kind == s.heatKind(); can != want {
				t.Fatalf("%s: heat at %s admissible %v, want %v (drawn %s)", id, r.name, can, want, s.heatKind())
			}
		}
	}
}

// TestDrawnRules: the right rules of a household-drawn task name its drawn
// kind and appliance; the oracle solves every valid task with no rules,
// right, misleading and irrelevant ones; right rules shorten its episodes
// and misleading ones lengthen them.
func TestDrawnRules(t *testing.T) {
	dr := NewDrawn()
	h := dr.(env.Hinter)
	for _, split := range []string{env.SplitValidSeen, env.SplitValidUnseen} {
		ids, _ := dr.Tasks(split)
		steps := map[string]int{}
		for _, id := range ids {
			s, _ := specFor(id)
			hs, err := h.Hints(id)
			if err != nil {
				t.Fatal(err)
			}
			want := []string{fmt.Sprintf(RuleLookFirst, s.keep)}
			if app := s.appliance(); app != "" {
				want = append(want, transformRule(s.c.typ, app))
			}
			if diff := cmp.Diff(want, hs.Right); diff != "" {
				t.Fatalf("%s: right rules (-want +got):\n%s", id, diff)
			}
			for _, c := range []struct {
				name  string
				rules []string
			}{{"none", nil}, {"right", hs.Right}, {"misleading", hs.Misleading}, {"irrelevant", hs.Irrelevant}} {
				res := run(t, dr, id, 3, hintedOracle{NewOracle(), c.rules})
				if !res.success {
					t.Fatalf("%s with %s rules %q: oracle failed in %d steps:\n%s", id, c.name, c.rules, res.steps, strings.Join(res.texts, "\n"))
				}
				steps[c.name] += res.steps
			}
		}
		if !(2*steps["right"] < steps["none"] && steps["none"] < steps["misleading"]) {
			t.Fatalf("%s: total steps %v: want right under half of none, none < misleading", split, steps)
		}
	}
}

// TestRightBody: a right skill's body states a household-drawn task's draws
// (its first step names the kept kind; for heating the drawn appliance
// replaces the microwave); the other worlds keep the library's body.
func TestRightBody(t *testing.T) {
	const heatBody = "1. find the object and take it.\n2. go to microwave 1.\n3. heat the object with microwave 1."
	dr := NewDrawn().(env.BodyStater)
	ids, _ := tasks(worldDrawn, env.SplitTrain)
	checked := 0
	for _, id := range ids[:60] {
		s, _ := specFor(id)
		if s.c.typ != TypeHeat || s.heatKind() == applianceHeat {
			continue
		}
		want := "1. " + fmt.Sprintf(StepLookFirst, s.keep) + "\n2. go to " + s.heatKind() + " 1.\n3. heat the object with " + s.heatKind() + " 1."
		if got := dr.RightBody(id, heatBody); got != want {
			t.Fatalf("%s: body\n%s\nwant\n%s", id, got, want)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no heat task with a drawn appliance other than the microwave in the first 60")
	}
	s, _ := specFor("household-drawn/train/00000")
	body := "1. find the object and take it.\n2. go to the target."
	if got, want := dr.RightBody("household-drawn/train/00000", body), "1. "+fmt.Sprintf(StepLookFirst, s.keep)+"\n2. go to the target."; got != want {
		t.Fatalf("pick and place body %q, want %q", got, want)
	}
	for _, e := range []env.Env{New(), NewRL()} {
		ids, _ := e.Tasks(env.SplitTrain)
		if got := e.(env.BodyStater).RightBody(ids[3], heatBody); got != heatBody {
			t.Fatalf("%s rewrote a body: %q", e.Name(), got)
		}
	}
}

// TestMisleadingPlace: a misleading place is the costliest kind to search
// first: closed before open, then most receptacles, then listed last; never
// a kind holding a goal object or the target.
func TestMisleadingPlace(t *testing.T) {
	w := &world{receps: []receptacle{
		{kind: "countertop"}, {kind: "countertop"}, {kind: "countertop"},
		{kind: "drawer", openable: true}, {kind: "cabinet", openable: true},
		{kind: "cabinet", openable: true}, {kind: "safe", openable: true},
		{kind: "safe", openable: true}, {kind: "fridge", openable: true},
	}}
	s := &taskSpec{c: combo{typ: TypePickAndPlace, obj: "apple", recep: "fridge"}}
	for _, c := range []struct {
		goalAt []string
		want   string
	}{
		{nil, "safe"},                                         // cabinet and safe tie on 2: safe is listed last
		{[]string{"safe"}, "cabinet"},                         // most closed receptacles left
		{[]string{"safe", "cabinet"}, "drawer"},               // the last closed kind; fridge is the target
		{[]string{"safe", "cabinet", "drawer"}, "countertop"}, // open kinds last
		{[]string{"safe", "cabinet", "drawer", "countertop"}, ""},
	} {
		at := map[string]bool{}
		for _, k := range c.goalAt {
			at[k] = true
		}
		if got := misleadingPlace(s, w, at); got != c.want {
			t.Errorf("goal at %v: %q, want %q", c.goalAt, got, c.want)
		}
	}
}

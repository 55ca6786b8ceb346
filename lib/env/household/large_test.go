package household

import (
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/env"
)

// TestLargeTemplates: a large room template holds the same receptacle kinds
// as the ordinary one of its room kind (so tasks, combinations and
// conventions are the same), never fewer of a kind, and more of some.
func TestLargeTemplates(t *testing.T) {
	if len(largeRoomKinds) != len(roomKinds) {
		t.Fatalf("%d large room kinds, %d ordinary", len(largeRoomKinds), len(roomKinds))
	}
	for _, rk := range roomKinds {
		lk := largeByName[rk.name]
		if lk == nil {
			t.Fatalf("no large template for %s", rk.name)
		}
		kinds := func(r *roomKind) map[string]roomRecep {
			m := map[string]roomRecep{}
			for _, rr := range r.receps {
				m[rr.kind] = rr
			}
			return m
		}
		small, large := kinds(&rk), kinds(lk)
		names := func(m map[string]roomRecep) []string {
			var out []string
			for k := range m {
				out = append(out, k)
			}
			return out
		}
		if diff := cmp.Diff(names(small), names(large), cmpSorted); diff != "" {
			t.Fatalf("%s: kinds differ (-ordinary +large):\n%s", rk.name, diff)
		}
		grew := false
		for k, s := range small {
			l := large[k]
			if l.min < s.min || l.max < s.max || (s.max > 0) != (l.max > 0) {
				t.Errorf("%s %s: large %d-%d against ordinary %d-%d", rk.name, k, l.min, l.max, s.min, s.max)
			}
			grew = grew || l.max > s.max
		}
		if !grew {
			t.Errorf("%s: the large template holds no more of any kind", rk.name)
		}
	}
}

var cmpSorted = cmp.Transformer("sort", func(in []string) []string {
	out := append([]string(nil), in...)
	sort.Strings(out)
	return out
})

// TestLargeWorldsSameTasks: the large worlds have household's tasks and
// goals, the conventions of their ordinary worlds (the same kept kind and
// heating appliance per task), rooms within the large caps that are larger
// than the ordinary world's on average, and refuse the other worlds' ids.
func TestLargeWorldsSameTasks(t *testing.T) {
	for _, c := range []struct {
		large, ordinary env.Env
		name            string
	}{{NewRLLarge(), NewRL(), NameRLLarge}, {NewDrawnLarge(), NewDrawn(), NameDrawnLarge}} {
		if c.large.Name() != c.name {
			t.Fatalf("name %q, want %q", c.large.Name(), c.name)
		}
		if _, err := env.Open(c.name); err != nil {
			t.Fatalf("%s not registered: %v", c.name, err)
		}
		sameTasks(t, New(), c.large, c.name, 13)
		ids, _ := c.large.Tasks(env.SplitTrain)
		var nLarge, nOrdinary, maxLarge int
		for _, id := range ids[:600] {
			s, err := specFor(id)
			if err != nil {
				t.Fatal(err)
			}
			o, err := specFor(strings.Replace(id, c.name+"/", c.ordinary.Name()+"/", 1))
			if err != nil {
				t.Fatal(err)
			}
			if s.keep != o.keep || s.heatKind() != o.heatKind() || s.room != o.room || s.goal != o.goal {
				t.Fatalf("%s: keep %q heat %q room %s, ordinary world keep %q heat %q room %s", id, s.keep, s.heatKind(), s.room, o.keep, o.heatKind(), o.room)
			}
			w := generate(s)
			if closed := closedCount(w); len(w.receps) > maxReceptaclesLarge || closed > maxClosedLarge {
				t.Fatalf("%s: %d receptacles, %d closed", id, len(w.receps), closed)
			}
			for _, ob := range w.objs {
				if ob.kind == s.c.obj && s.keep != "" && w.receps[ob.loc].kind != s.keep {
					t.Fatalf("%s: %s at %s, want the kept kind %s", id, ob.name, w.receps[ob.loc].name, s.keep)
				}
			}
			nLarge += len(w.receps)
			nOrdinary += len(generate(o).receps)
			maxLarge = max(maxLarge, len(w.receps))
		}
		t.Logf("%s: %.1f receptacles per room (ordinary %.1f), at most %d", c.name, float64(nLarge)/600, float64(nOrdinary)/600, maxLarge)
		if nLarge < 3*nOrdinary/2 || maxLarge <= maxReceptacles {
			t.Fatalf("%s: %d receptacles in 600 rooms against %d ordinary, largest %d: the rooms did not grow", c.name, nLarge, nOrdinary, maxLarge)
		}
		if _, err := c.large.Reset(strings.Replace(ids[1], c.name+"/", c.ordinary.Name()+"/", 1), 1); err == nil {
			t.Fatalf("%s accepted an id of %s", c.name, c.ordinary.Name())
		}
		if _, err := c.ordinary.Reset(ids[1], 1); err == nil {
			t.Fatalf("%s accepted an id of %s", c.ordinary.Name(), c.name)
		}
	}
}

// TestLargeOracle: in household-rl-large the oracle with right rules solves
// every valid task; without them its search takes a larger share of the
// step budget than in household-rl, and misleading rules cost it more.
func TestLargeOracle(t *testing.T) {
	large, rl := NewRLLarge(), NewRL()
	ids, _ := large.Tasks(env.SplitValidSeen)
	steps := map[string]int{}
	for _, id := range ids {
		hs, err := large.(env.Hinter).Hints(id)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name  string
			e     env.Env
			id    string
			rules []string
		}{
			{"large none", large, id, nil},
			{"large right", large, id, hs.Right},
			{"large misleading", large, id, hs.Misleading},
			{"none", rl, strings.Replace(id, NameRLLarge+"/", NameRL+"/", 1), nil},
		} {
			res := run(t, c.e, c.id, 3, hintedOracle{NewOracle(), c.rules})
			if c.name == "large right" && !res.success {
				t.Fatalf("%s with right rules %q: oracle failed in %d steps:\n%s", id, c.rules, res.steps, strings.Join(res.texts, "\n"))
			}
			steps[c.name] += res.steps
		}
	}
	t.Logf("valid_seen: steps %v over %d tasks", steps, len(ids))
	if !(steps["large right"] < steps["none"] && steps["none"] < steps["large none"] && steps["large none"] < steps["large misleading"]) {
		t.Fatalf("total steps %v: want large right < household-rl none < large none < large misleading", steps)
	}
}

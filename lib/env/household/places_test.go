package household

import (
	"math"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/env"
)

// TestDrawnPlacesSameTasks: household-drawn-places has household's tasks
// and goals, household-drawn-large's rooms and heating draws, keeps every
// goal object at its drawn kind, and refuses household-drawn-large's ids.
func TestDrawnPlacesSameTasks(t *testing.T) {
	places := NewDrawnPlaces()
	if places.Name() != NameDrawnPlaces {
		t.Fatalf("name %q, want %q", places.Name(), NameDrawnPlaces)
	}
	if _, err := env.Open(NameDrawnPlaces); err != nil {
		t.Fatalf("%s not registered: %v", NameDrawnPlaces, err)
	}
	sameTasks(t, New(), places, NameDrawnPlaces, 13)
	ids, _ := places.Tasks(env.SplitTrain)
	differ := 0
	for _, id := range ids[:600] {
		s, err := specFor(id)
		if err != nil {
			t.Fatal(err)
		}
		o, err := specFor(strings.Replace(id, NameDrawnPlaces+"/", NameDrawnLarge+"/", 1))
		if err != nil {
			t.Fatal(err)
		}
		if s.room != o.room || s.goal != o.goal || s.heatKind() != o.heatKind() || s.c.key() != o.c.key() {
			t.Fatalf("%s: room %s heat %q goal %q, household-drawn-large room %s heat %q goal %q", id, s.room, s.heatKind(), s.goal, o.room, o.heatKind(), o.goal)
		}
		if s.keep == "" || s.keep == s.c.recep || !roomHas(s.room, s.keep) {
			t.Fatalf("%s: kept kind %q (target %s, room %s)", id, s.keep, s.c.recep, s.room)
		}
		if s.keep != o.keep {
			differ++
		}
		w := generate(s)
		if closed := closedCount(w); len(w.receps) > maxReceptaclesLarge || closed > maxClosedLarge {
			t.Fatalf("%s: %d receptacles, %d closed", id, len(w.receps), closed)
		}
		for _, ob := range w.objs {
			if ob.kind == s.c.obj && !ob.lamp && w.receps[ob.loc].kind != s.keep {
				t.Fatalf("%s: %s at %s, want the kept kind %s", id, ob.name, w.receps[ob.loc].name, s.keep)
			}
		}
	}
	if differ == 0 {
		t.Fatalf("the kept kind of 600 tasks is household-drawn-large's in every one")
	}
	if _, err := places.Reset(strings.Replace(ids[1], NameDrawnPlaces+"/", NameDrawnLarge+"/", 1), 1); err == nil {
		t.Fatalf("%s accepted an id of %s", NameDrawnPlaces, NameDrawnLarge)
	}
}

// TestDrawnPlacesWeights: over the train split, each kind keeps the goal
// objects about as often as its weight (the most receptacles of it the
// large room template holds) over the weights of the room's kinds other
// than the target says, for every room kind; and drawers and cabinets keep
// them far more often than in household-drawn-large, where every kind has
// the same chance.
func TestDrawnPlacesWeights(t *testing.T) {
	count := func(e env.Env) (obs, exp map[string]float64, shut, n int) {
		obs, exp = map[string]float64{}, map[string]float64{}
		ids, _ := e.Tasks(env.SplitTrain)
		for _, id := range ids {
			s, err := specFor(id)
			if err != nil {
				t.Fatal(err)
			}
			obs[s.room+" "+s.keep]++
			total := 0
			for _, rr := range roomByName[s.room].receps {
				if rr.kind != s.c.recep && rr.max > 0 {
					total += largeMax(s.room, rr.kind)
				}
			}
			for _, rr := range roomByName[s.room].receps {
				if rr.kind != s.c.recep && rr.max > 0 {
					exp[s.room+" "+rr.kind] += float64(largeMax(s.room, rr.kind)) / float64(total)
				}
			}
			if s.keep == "drawer" || s.keep == "cabinet" {
				shut++
			}
			n++
		}
		return obs, exp, shut, n
	}
	obs, exp, shut, n := count(NewDrawnPlaces())
	for k, e := range exp {
		if d := math.Abs(obs[k] - e); d > 5*math.Sqrt(e)+3 {
			t.Errorf("%s: kept in %.0f of %d tasks, expected %.1f", k, obs[k], n, e)
		}
	}
	for k := range obs {
		if exp[k] == 0 {
			t.Errorf("%s: kept in %.0f tasks, a kind the draw cannot give", k, obs[k])
		}
	}
	_, _, shutLarge, nLarge := count(NewDrawnLarge())
	t.Logf("drawers and cabinets keep the goal objects of %d of %d tasks (household-drawn-large: %d of %d)", shut, n, shutLarge, nLarge)
	if 5*shut < 2*n || shut < 2*shutLarge {
		t.Fatalf("drawers and cabinets keep the goal objects of %d of %d tasks, household-drawn-large %d of %d: want at least 40%% and twice as many", shut, n, shutLarge, nLarge)
	}
}

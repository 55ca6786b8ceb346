package card

import (
	"math"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/card/cardtest"
	"github.com/pats-rl/pats/lib/table"
)

func TestBuildGroupCards(t *testing.T) {
	tr := cardtest.HandMade()
	cards, ev, err := Build(tr, Options{Per: PerGroup, TopContrast: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(cards) != 3 {
		t.Fatalf("%d cards", len(cards))
	}
	// sorted by type then id: cool g2, heat g1, heat g3
	ids := []string{cards[0].CardID, cards[1].CardID, cards[2].CardID}
	if !reflect.DeepEqual(ids, []string{"c-2-g2", "c-2-g1", "c-2-g3"}) {
		t.Fatalf("card ids %v", ids)
	}
	c := cards[1]
	if c.TaskID != "task-g1" || c.TaskType != "heat" || c.NEpisodes != 5 || c.NSuccess != 2 || c.SuccessRate != 0.4 {
		t.Fatalf("card header %+v", c)
	}
	// success side: take 2/2, heat 2/2 (counted once per episode), apple 1/2
	if !reflect.DeepEqual(c.SuccessFeatures, []string{"action:heat", "action:take", "object:apple"}) ||
		!reflect.DeepEqual(c.SuccessFreqs, []float64{1, 1, 0.5}) {
		t.Fatalf("success side %v %v", c.SuccessFeatures, c.SuccessFreqs)
	}
	// failure side: loop 2/3, take 2/3, apple 1/3, max_steps 1/3
	if !reflect.DeepEqual(c.FailureFeatures, []string{"action:take", "failure:loop", "failure:max_steps", "object:apple"}) {
		t.Fatalf("failure side %v", c.FailureFeatures)
	}
	// contrast: heat +1, loop -2/3, then |d|=1/3: take +1/3, failure:max_steps -1/3 -> name order picks action:take
	if !reflect.DeepEqual(c.Contrast, []string{"action:heat", "failure:loop", "action:take"}) {
		t.Fatalf("contrast %v %v", c.Contrast, c.ContrastDiff)
	}
	wantD := []float64{1, -2.0 / 3, 1.0 / 3}
	for i, d := range wantD {
		if math.Abs(c.ContrastDiff[i]-d) > 1e-12 {
			t.Fatalf("contrast diff %v, want %v", c.ContrastDiff, wantD)
		}
	}
	if !reflect.DeepEqual(c.FailureModes, []string{"loop", "max_steps"}) || !reflect.DeepEqual(c.FailureModeCounts, []int32{2, 1}) {
		t.Fatalf("modes %v %v", c.FailureModes, c.FailureModeCounts)
	}
	// representatives: success with fewest steps = sample 3; failure: mode loop, most steps = sample 4
	if c.RepSuccessSample == nil || *c.RepSuccessSample != 3 || c.RepFailureSample == nil || *c.RepFailureSample != 4 || c.RepFailureMode != "loop" {
		t.Fatalf("reps %v %v %q", c.RepSuccessSample, c.RepFailureSample, c.RepFailureMode)
	}
	if c.RepSuccessActions[1] != "step d" || c.RepFailureActions[1] != "step e" {
		t.Fatalf("rep actions %v %v", c.RepSuccessActions, c.RepFailureActions)
	}
	// all-success group: no contrast, no failure representative; tie on steps -> lowest sample
	c2 := cards[0]
	if len(c2.Contrast) != 0 || c2.RepFailureSample != nil || c2.RepSuccessSample == nil || *c2.RepSuccessSample != 0 || c2.SuccessRate != 1 {
		t.Fatalf("all-success card %+v", c2)
	}
	// failed episode without a mode counts as unknown
	if cards[2].FailureModes[0] != UnknownFailure {
		t.Fatalf("unknown mode %v", cards[2].FailureModes)
	}
	if Lean(c, "action:heat") != 1 || math.Abs(Lean(c, "failure:loop")+2.0/3) > 1e-12 || Lean(c2, "action:cool") != 1 {
		t.Fatal("Lean")
	}
	// evidence: "" (all), cool, heat
	if len(ev) != 3 || ev[0].TaskType != "" || ev[1].TaskType != "cool" || ev[2].TaskType != "heat" {
		t.Fatalf("evidence rows %+v", ev)
	}
	h := ev[2]
	if h.NCards != 2 || h.NEpisodes != 7 || math.Abs(h.SuccessRate-(0.4+0.5)/2) > 1e-12 || h.NTypes != 1 {
		t.Fatalf("heat evidence %+v", h)
	}
	// pooled: successes 3 (heat in 3/3), failures 4 (heat 0/4) -> +1 first
	if h.Contrast[0] != "action:heat" || h.ContrastDiff[0] != 1 {
		t.Fatalf("pooled contrast %v %v", h.Contrast, h.ContrastDiff)
	}
	if !reflect.DeepEqual(h.FailureModes, []string{"loop", "max_steps", "unknown"}) || !reflect.DeepEqual(h.FailureModeCounts, []int32{2, 1, 1}) {
		t.Fatalf("heat modes %v %v", h.FailureModes, h.FailureModeCounts)
	}
	if !reflect.DeepEqual(h.CardIDs, []string{"c-2-g1", "c-2-g3"}) || ev[0].NTypes != 2 || ev[0].NCards != 3 {
		t.Fatalf("evidence ids %v / all %+v", h.CardIDs, ev[0])
	}
}

func TestBuildTrajectoryCards(t *testing.T) {
	cards, ev, err := Build(cardtest.HandMade(), Options{Per: PerTrajectory})
	if err != nil {
		t.Fatal(err)
	}
	if len(cards) != 9 {
		t.Fatalf("%d cards", len(cards))
	}
	for _, c := range cards {
		if c.NEpisodes != 1 || len(c.Contrast) != 0 || !strings.Contains(c.CardID, "-s") {
			t.Fatalf("trajectory card %+v", c)
		}
	}
	// pooled type contrast is the same as with group cards (same episodes)
	_, evg, _ := Build(cardtest.HandMade(), Options{})
	if !reflect.DeepEqual(ev[2].Contrast, evg[2].Contrast) {
		t.Fatalf("pooled contrast differs: %v vs %v", ev[2].Contrast, evg[2].Contrast)
	}
	if ev[2].SuccessRate != 3.0/7 {
		t.Fatalf("trajectory mean success %v", ev[2].SuccessRate)
	}
}

func TestBuildOrderIndependent(t *testing.T) {
	tr := cardtest.HandMade()
	a, ea, _ := Build(tr, Options{})
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 5; i++ {
		s := append([]table.Trajectory(nil), tr...)
		r.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
		b, eb, _ := Build(s, Options{})
		if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(ea, eb) {
			t.Fatal("output depends on input order")
		}
	}
}

func TestBuildErrors(t *testing.T) {
	bad := []struct {
		name string
		tr   []table.Trajectory
		opts Options
		want string
	}{
		{"per", cardtest.HandMade(), Options{Per: "episode"}, "unknown card granularity"},
		{"group", []table.Trajectory{{TaskType: "x"}}, Options{}, "empty group_id"},
		{"type", []table.Trajectory{{GroupID: "g"}}, Options{}, "empty task_type"},
		{"mixed", []table.Trajectory{cardtest.Episode("g", "a", 0, true, 1, ""), cardtest.Episode("g", "b", 1, true, 1, "")}, Options{}, "mixes tasks"},
		{"repeat", []table.Trajectory{cardtest.Episode("g", "a", 0, true, 1, ""), cardtest.Episode("g", "a", 0, true, 1, "")}, Options{}, "repeats sample 0"},
	}
	for _, b := range bad {
		if _, _, err := Build(b.tr, b.opts); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: err %v, want %q", b.name, err, b.want)
		}
	}
}

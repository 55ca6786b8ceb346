package refiner

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/card"
	"github.com/pats-rl/pats/lib/control"
	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/validate"
)

// simulate runs the whole scaffold loop (cards, controller, rule-based
// refiner, validator) on a toy policy whose success grows with the
// iteration and with the scaffold's useful items. It returns per iteration
// the primitives chosen and the snapshot hash.
func simulate(t *testing.T, iters int) (trace []string, sizes []int, hashes []string) {
	t.Helper()
	r := rand.New(rand.NewSource(42))
	types := map[string]string{heat: "heat", cool: "cool"}
	names := []string{cool, heat}
	var snap []table.ScaffoldItem
	var states []table.ControllerState
	co := control.DefaultOptions()
	ref := NewRuleBased()
	for k := 0; k < iters; k++ {
		// the toy policy: helped by an item naming its verb and by a loop mistake
		var trajs []table.Trajectory
		for _, typ := range names {
			verb := types[typ]
			help := 0.0
			for _, it := range scaffold.ForType(snap, typ) {
				if strings.Contains(strings.ToLower(it.Text), verb) || strings.Contains(it.Text, "repeat") {
					help += 0.15
				}
			}
			trajs = append(trajs, toyPlay(r, k, typ, verb, 0.1+0.08*float64(k)+help)...)
		}
		cards, ev, err := card.Build(trajs, card.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		st, err := control.Step(states, ev, snap, names, int32(k), co)
		if err != nil {
			t.Fatal(err)
		}
		states = append(states, st...)
		var props []table.Proposal
		var line []string
		for _, s := range st {
			line = append(line, fmt.Sprintf("%s:%s(%s)", ScopeName(s.TaskType), s.Primitive, control.Rate(s.SmoothedSuccess)))
			if s.Primitive == scaffold.None {
				continue
			}
			e, _ := card.EvidenceFor(ev, s.TaskType, int32(k))
			mi, mt := co.Caps(s.TaskType)
			res, err := ref.Propose(context.Background(), Input{Iteration: int32(k), TaskType: s.TaskType, Primitive: s.Primitive,
				Evidence: e, Cards: cards, Items: snap, Quota: co.ExpandQuota, MaxItems: mi, MaxTokens: mt})
			if err != nil {
				t.Fatal(err)
			}
			props = append(props, res.Proposals...)
		}
		next, dec := validate.Apply(snap, props, cards, validate.Options{Iteration: int32(k), Limits: co.Limits})
		if err := scaffold.Check(next, scaffold.WordCount); err != nil {
			t.Fatalf("iteration %d: %v", k, err)
		}
		acc := 0
		for _, d := range dec {
			if d.Accepted {
				acc++
			}
		}
		d := scaffold.DiffItems(snap, next, scaffold.MergesFrom(props, dec))
		trace = append(trace, strings.Join(line, " "))
		t.Logf("k=%d %s | %d/%d accepted, %d items\n%s", k, strings.Join(line, " "), acc, len(dec), len(next), d)
		snap = next
		sizes = append(sizes, len(snap))
		hashes = append(hashes, scaffold.Hash(snap))
	}
	return trace, sizes, hashes
}

func TestLoopEndToEnd(t *testing.T) {
	trace, sizes, hashes := simulate(t, 10)
	all := strings.Join(trace, "\n")
	if !strings.Contains(trace[0], "EXPAND") {
		t.Fatalf("a weak policy should start with EXPAND:\n%s", all)
	}
	if !strings.Contains(all, "COMPRESS") {
		t.Fatalf("an improving policy should reach COMPRESS:\n%s", all)
	}
	peak := 0
	for _, n := range sizes {
		if n > peak {
			peak = n
		}
	}
	if peak == 0 || sizes[len(sizes)-1] >= peak {
		t.Fatalf("the scaffold should grow, then shrink: sizes %v", sizes)
	}
	// determinism: the same run gives the same snapshots
	_, _, again := simulate(t, 10)
	if strings.Join(again, ",") != strings.Join(hashes, ",") {
		t.Fatal("the loop is not deterministic")
	}
}

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

// fadeRun is what simulateFade records of a fading loop.
type fadeRun struct {
	states  [][]table.ControllerState // per iteration
	tokens  []int                     // snapshot k's tokens, k = 0..iters
	deleted []string                  // texts of items an accepted COMPRESS deleted
	hashes  []string
}

// toyPlay plays 3 groups of 8 episodes per type at iteration k: success
// p, successful episodes do the type's verb (action:<verb>), failed ones
// loop or run out of steps.
func toyPlay(r *rand.Rand, k int, typ, verb string, p float64) []table.Trajectory {
	var out []table.Trajectory
	for g := 0; g < 3; g++ {
		gid := fmt.Sprintf("%s-%d", typ, g)
		for s := 0; s < 8; s++ {
			tr := table.Trajectory{Iteration: int32(k), TaskID: gid, TaskType: typ, GroupID: gid, Sample: int32(s), Steps: int32(5 + r.Intn(20))}
			tr.Features = []string{"action:take", "object:mug"}
			if r.Float64() < p {
				tr.Success = true
				tr.Features = append(tr.Features, "action:"+verb)
			} else if r.Intn(4) > 0 {
				tr.FailureMode = "loop"
				tr.Features = append(tr.Features, "failure:loop")
			} else {
				tr.FailureMode = "max_steps"
				tr.Features = append(tr.Features, "failure:max_steps")
			}
			out = append(out, tr)
		}
	}
	return out
}

// simulateFade runs the fading loop (cards of the scaffolded play and of
// the bare replay, StepBare, Absorption, the rule-based refiner, the
// validator under the fade's caps) on a toy policy that is helped by
// items naming its verb and, as it trains, absorbs that help: its bare
// success catches up with its scaffolded success.
func simulateFade(t *testing.T, iters int) fadeRun {
	t.Helper()
	r := rand.New(rand.NewSource(7))
	types := map[string]string{heat: "heat", cool: "cool"}
	names := []string{cool, heat}
	var snap []table.ScaffoldItem
	var prev []table.ControllerState
	co := control.DefaultOptions()
	co.Fade = scaffold.Fade{Start: 0.5, End: 0.8, Iterations: iters}
	ref := NewRuleBased()
	var run fadeRun
	run.tokens = append(run.tokens, 0)
	for k := 0; k < iters; k++ {
		var with, bare []table.Trajectory
		for _, typ := range names {
			verb := types[typ]
			help := 0.0
			for _, it := range scaffold.ForType(snap, typ) {
				if strings.Contains(strings.ToLower(it.Text), verb) || strings.Contains(it.Text, "repeat") {
					help += 0.12
				}
			}
			learnt := 0.03 * float64(k)
			absorbed := 0.3 * float64(k) / float64(iters) // help carried bare, growing
			with = append(with, toyPlay(r, k, typ, verb, 0.1+learnt+help)...)
			bare = append(bare, toyPlay(r, k, typ, verb, 0.1+learnt+absorbed)...)
		}
		cards, ev, err := card.Build(with, card.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		bareCards, bareEv, err := card.Build(bare, card.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		st, err := control.StepBare(prev, ev, bareEv, snap, names, int32(k), co)
		if err != nil {
			t.Fatal(err)
		}
		prev = append(prev, st...)
		run.states = append(run.states, st)
		limits := co.Limits.At(int32(k))
		var props []table.Proposal
		for _, s := range st {
			e, _ := card.EvidenceFor(ev, s.TaskType, int32(k))
			mi, mt := limits.Caps(s.TaskType)
			in := Input{Iteration: int32(k), TaskType: s.TaskType, Primitive: s.Primitive, Evidence: e, Cards: cards,
				Items: snap, Quota: co.ExpandQuota, MaxItems: mi, MaxTokens: mt, CapsGiven: true}
			in.Absorption = Absorption(in, bareCards, s.NWorse >= control.HarmfulAfter)
			if s.Primitive == scaffold.None {
				continue
			}
			res, err := ref.Propose(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			props = append(props, res.Proposals...)
		}
		next, dec := validate.Apply(snap, props, cards, validate.Options{Iteration: int32(k), Limits: limits})
		if err := scaffold.Check(next, scaffold.WordCount); err != nil {
			t.Fatalf("iteration %d: %v", k, err)
		}
		text := map[string]string{}
		for _, it := range snap {
			text[it.ID] = it.Text
		}
		for _, d := range dec {
			if d.Accepted && d.Primitive == scaffold.Compress && d.Op == table.OpDelete {
				run.deleted = append(run.deleted, text[d.ItemID])
			}
		}
		snap = next
		tok := 0
		for _, it := range snap {
			tok += int(it.Tokens)
		}
		run.tokens = append(run.tokens, tok)
		run.hashes = append(run.hashes, scaffold.Hash(snap))
	}
	return run
}

// TestFadingLoop: over 20 iterations the fading loop grows a scaffold,
// COMPRESS deletes items that are true (in the toy, those that help: they
// name the type's verb or warn against the loop every failure shows, a
// rule that keeps holding, so the rule-based COMPRESS would keep them)
// once the bare play catches up, and the snapshots from
// 16 on are empty, so iterations 16-19 train bare; the loop is
// deterministic.
func TestFadingLoop(t *testing.T) {
	run := simulateFade(t, 20)
	for k, st := range run.states {
		var line []string
		for _, s := range st {
			line = append(line, fmt.Sprintf("%s:%s(s=%s bare=%s abs=%v)", ScopeName(s.TaskType), s.Primitive, control.Rate(s.SmoothedSuccess), control.Rate(s.BareSmoothed), s.Absorbed))
		}
		t.Logf("k=%2d snap tokens %3d -> %3d | %s", k, run.tokens[k], run.tokens[k+1], strings.Join(line, " "))
	}
	peak := 0
	for j, n := range run.tokens {
		if n > peak {
			peak = n
		}
		if j >= 16 && n != 0 {
			t.Errorf("snapshot %d holds %d tokens; the fade empties every snapshot from 16 on", j, n)
		}
	}
	if peak == 0 {
		t.Fatal("the scaffold never grew")
	}
	trueDeleted := 0
	for _, s := range run.deleted {
		low := strings.ToLower(s)
		if strings.Contains(low, "heat") || strings.Contains(low, "cool") || strings.Contains(low, "repeat") {
			trueDeleted++
		}
	}
	if trueDeleted == 0 {
		t.Errorf("COMPRESS deleted no true item (deleted: %q)", run.deleted)
	}
	absorbed := 0
	for _, st := range run.states {
		for _, s := range st {
			if s.Absorbed {
				absorbed++
			}
			if s.Observed && s.BareSmoothed == nil {
				t.Errorf("scope %q observed at %d without a bare EMA", s.TaskType, s.Iteration)
			}
		}
	}
	if absorbed == 0 {
		t.Error("no scope was ever marked absorbed")
	}
	again := simulateFade(t, 20)
	if strings.Join(again.hashes, ",") != strings.Join(run.hashes, ",") {
		t.Error("the fading loop is not deterministic")
	}
}

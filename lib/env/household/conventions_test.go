package household

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/env"
)

// hintedOracle is the oracle given rules before its first action.
type hintedOracle struct {
	env.Agent
	rules []string
}

func (h hintedOracle) Start(goal, obs string, seed int64) {
	h.Agent.Start(goal, obs, seed)
	for _, r := range h.rules {
		h.Agent.(env.Reader).Read(r)
	}
}

// TestRLWorldSameTasks: household-rl has household's splits, sizes,
// combinations and goals; only the conventions differ.
func TestRLWorldSameTasks(t *testing.T) {
	std, rl := New(), NewRL()
	if rl.Name() != NameRL {
		t.Fatalf("name %q", rl.Name())
	}
	if diff := cmp.Diff(std.Splits(), rl.Splits()); diff != "" {
		t.Fatalf("splits differ: %s", diff)
	}
	sameTasks(t, std, rl, NameRL, 7)
	if _, err := rl.Reset("household/train/00001", 1); err == nil {
		t.Fatal("household-rl accepted a household id")
	}
	if _, err := std.Reset("household-rl/train/00001", 1); err == nil {
		t.Fatal("household accepted a household-rl id")
	}
}

// TestRLWorldConventions: in household-rl every goal object lies at its
// type's house kind when the room has one, and only the stoveburner heats.
func TestRLWorldConventions(t *testing.T) {
	for _, split := range []string{env.SplitTrain, env.SplitValidSeen, env.SplitValidUnseen} {
		ids, _ := tasks(worldRL, split)
		for _, id := range ids {
			s, err := specFor(id)
			if err != nil {
				t.Fatal(err)
			}
			if s.keep == "" || s.keep == s.c.recep || s.keep != Conventions.Keep[s.c.typ][0] && s.c.recep != Conventions.Keep[s.c.typ][0] {
				t.Fatalf("%s (%s): house kind %q", id, s.c.key(), s.keep)
			}
			w := generate(s)
			for _, o := range w.objs {
				if o.kind == s.c.obj && w.receps[o.loc].kind != s.keep {
					t.Fatalf("%s: %s at %s, want the house kind %s", id, o.name, w.receps[o.loc].name, s.keep)
				}
			}
		}
	}
	ids, _ := tasks(worldRL, env.SplitTrain)
	// heating: an rl heat task, holding the goal object at the microwave
	// and at the stoveburner
	for _, id := range ids[:60] {
		s, _ := specFor(id)
		if s.c.typ != TypeHeat {
			continue
		}
		w := generate(s)
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
			adm := strings.Join(e.Admissible(), "|")
			can := strings.Contains(adm, "heat "+h+" with "+r.name)
			if want := r.kind == "stoveburner"; can != want {
				t.Fatalf("%s: heat at %s admissible %v, want %v", id, r.name, can, want)
			}
		}
	}
}

// TestRLOracle: the oracle solves every valid task of household-rl from what
// it observes, and right rules shorten its episodes while misleading ones
// lengthen them (on average over the split).
func TestRLOracle(t *testing.T) {
	rl := NewRL()
	h := rl.(env.Hinter)
	for _, split := range []string{env.SplitValidSeen, env.SplitValidUnseen} {
		ids, _ := rl.Tasks(split)
		steps := map[string]int{}
		for _, id := range ids {
			hs, err := h.Hints(id)
			if err != nil {
				t.Fatal(err)
			}
			if len(hs.Right) == 0 || len(hs.Misleading) == 0 || len(hs.Irrelevant) == 0 {
				t.Fatalf("%s: hints %+v", id, hs)
			}
			for _, c := range []struct {
				name  string
				rules []string
			}{{"none", nil}, {"right", hs.Right}, {"misleading", hs.Misleading}, {"irrelevant", hs.Irrelevant}} {
				res := run(t, rl, id, 3, hintedOracle{NewOracle(), c.rules})
				if !res.success {
					t.Fatalf("%s with %s rules %q: oracle failed in %d steps:\n%s", id, c.name, c.rules, res.steps, strings.Join(res.texts, "\n"))
				}
				steps[c.name] += res.steps
			}
		}
		t.Logf("%s: steps %v over %d tasks", split, steps, len(ids))
		if !(steps["right"] < steps["none"] && steps["none"] < steps["misleading"]) {
			t.Fatalf("%s: total steps %v: want right < none < misleading", split, steps)
		}
		if steps["irrelevant"] != steps["none"] {
			t.Fatalf("%s: irrelevant rules changed the oracle's steps: %v", split, steps)
		}
	}
}

// sameTasks checks that world other (named name) has household's tasks:
// the same ids under its own name and, for every stride-th task, the same
// defining combination and goal.
func sameTasks(t *testing.T, std, other env.Env, name string, stride int) {
	t.Helper()
	for _, split := range std.Splits() {
		a, _ := std.Tasks(split)
		b, err := other.Tasks(split)
		if err != nil || len(a) != len(b) {
			t.Fatalf("%s: %d against %d tasks (%v)", split, len(a), len(b), err)
		}
		for i := 0; i < len(a); i += stride {
			if want := strings.Replace(a[i], Name+"/", name+"/", 1); b[i] != want {
				t.Fatalf("%s task %d: id %q, want %q", split, i, b[i], want)
			}
			ca, _ := DefiningCombination(a[i])
			cb, _ := DefiningCombination(b[i])
			ea, _ := std.Reset(a[i], 1)
			eb, _ := other.Reset(b[i], 1)
			if ca != cb || ea.Goal() != eb.Goal() {
				t.Fatalf("%s task %d: %s %q against %s %q", split, i, ca, ea.Goal(), cb, eb.Goal())
			}
		}
	}
}

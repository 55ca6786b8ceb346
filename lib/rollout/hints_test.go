package rollout

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/env"
	_ "github.com/pats-rl/pats/lib/env/shipped" // registers the shipped environments
	"github.com/pats-rl/pats/lib/skill"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

func TestHintText(t *testing.T) {
	if got := HintText(nil); got != "" {
		t.Errorf("no rules: %q", got)
	}
	want := "Task rules:\n- Look in the drawer first.\n- Heat the object with the stoveburner before placing it.\n"
	if got := HintText([]string{"Look in the drawer first.", "Heat the object with the stoveburner before placing it."}); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestHints: the modes' rules reach the scaffold tokens; the oracle follows
// right rules (shorter episodes) and skill bodies put before the first
// action; mixed draws per task; bad modes and environments without rules
// are errors.
func TestHints(t *testing.T) {
	e, _ := env.Open("household-rl")
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	h := e.(env.Hinter)
	run := func(mode string, preread string) []table.Trajectory {
		t.Helper()
		hint, body, err := HintFuncs(e, mode, 5)
		if err != nil {
			t.Fatal(err)
		}
		o := Options{Env: e, Split: env.SplitValidSeen, Tasks: 36, Group: 2, Seed: 5, Tok: tok, Hint: hint, HintBody: body,
			Policy: TextPolicy{PolicyName: "oracle", New: e.Oracle}, ScaffoldVersion: -1}
		if preread != "" {
			o.Preread = func(string, string) string { return preread }
		}
		rows, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	steps := func(rows []table.Trajectory) (n int) {
		for _, r := range rows {
			n += int(r.Steps)
			if !r.Success {
				t.Errorf("%s: oracle failed", r.TaskID)
			}
		}
		return n
	}
	none, right, mis := run(HintsNone, ""), run(HintsRight, ""), run(HintsMisleading, "")
	if !(steps(right) < steps(none) && steps(none) < steps(mis)) {
		t.Errorf("steps none %d, right %d, misleading %d", steps(none), steps(right), steps(mis))
	}
	for i, r := range right {
		hs, _ := h.Hints(r.TaskID)
		want := tok.Encode(HintText(hs.Right))
		var got []int32
		for k, ro := range r.Roles {
			if ro == table.RoleScaffold {
				got = append(got, r.Tokens[k])
			}
		}
		if diff := cmp.Diff(want, got[1:]); diff != "" { // got[0] is the scaffold token
			t.Fatalf("episode %d: scaffold tokens differ from the right rules (-want +got):\n%s", i, diff)
		}
		if none[i].NScaffoldTokens != 0 {
			t.Fatalf("episode %d: scaffold tokens with no hints", i)
		}
	}
	// A body read before the first action: its tokens come before any
	// action token, and the oracle follows it.
	body := "1. look in the drawer first."
	pre := run(HintsNone, body)
	for _, r := range pre {
		first := -1
		for k, ro := range r.Roles {
			if ro == table.RoleSkillBody && first < 0 {
				first = k
			}
			if ro == table.RoleAction && first < 0 {
				t.Fatalf("%s: an action before the body", r.TaskID)
			}
		}
		if first < 0 {
			t.Fatalf("%s: no body tokens", r.TaskID)
		}
	}
	if steps(pre) == steps(none) {
		t.Errorf("the body changed nothing: %d steps", steps(pre))
	}
	// mixed: each of the four draws occurs, and a group shares its rules
	mixed := run(HintsMixed, "")
	kinds := map[string]int{}
	for i := 0; i < len(mixed); i += 2 {
		a, b := mixed[i], mixed[i+1]
		if a.TaskID != b.TaskID || a.NScaffoldTokens != b.NScaffoldTokens {
			t.Fatalf("group %s: %d against %d scaffold tokens", a.TaskID, a.NScaffoldTokens, b.NScaffoldTokens)
		}
		hs, _ := h.Hints(a.TaskID)
		var sc []int32
		for k, ro := range a.Roles {
			if ro == table.RoleScaffold {
				sc = append(sc, a.Tokens[k])
			}
		}
		has := func(rule string) bool { return strings.Contains(ids(sc), ids(tok.Encode(rule))) }
		right := len(hs.Right) > 0
		for _, r := range hs.Right {
			right = right && has(r)
		}
		irr := 0
		for _, r := range hs.Irrelevant {
			if has(r) {
				irr++
			}
		}
		nBody := 0
		for _, ro := range a.Roles {
			if ro == table.RoleSkillBody {
				nBody++
			}
		}
		switch {
		case nBody > 0 && len(sc) == 0:
			kinds["body"]++
		case len(sc) == 0:
			kinds["none"]++
		case right && irr == 0:
			kinds["right"]++
		case right && irr == 1:
			kinds["right+irrelevant"]++
		case irr == 1:
			kinds["irrelevant"]++
		default:
			t.Errorf("%s: scaffold tokens %v fit no draw", a.TaskID, sc)
		}
	}
	if len(kinds) != 5 {
		t.Errorf("mixed draws %v, want all five kinds", kinds)
	}
	if got, want := HintBody([]string{"Look in the drawer first.", "Heat the object with the stoveburner before placing it."}),
		"1. look in the drawer first.\n2. heat the object with the stoveburner before placing it."; got != want {
		t.Errorf("HintBody = %q, want %q", got, want)
	}
	if _, err := HintFunc(e, "sometimes", 1); err == nil {
		t.Error("unknown mode accepted")
	}
	shop, _ := env.Open("shop")
	if _, err := HintFunc(shop, HintsRight, 1); err == nil {
		t.Error("shop states no rules, yet --hints right was accepted")
	}
	if f, err := HintFunc(shop, HintsNone, 1); err != nil || f != nil {
		t.Errorf("none: %v, %v", f != nil, err)
	}
}

// ids renders token ids as text, for finding one sequence in another.
func ids(xs []int32) string {
	var b strings.Builder
	for _, x := range xs {
		fmt.Fprintf(&b, " %d", x)
	}
	return b.String() + " "
}

// TestFirstRead: the forced first action reads the named skill of the
// slate, the body follows it, and the oracle goes on to solve the task.
func TestFirstRead(t *testing.T) {
	e, _ := env.Open("household-rl")
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	lib, err := skill.ShippedLibrary("household-rl")
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Env: e, Split: env.SplitValidSeen, Tasks: 12, Group: 1, Seed: 5, Tok: tok, Skills: lib, Slate: 16,
		TextRead: "none", Policy: TextPolicy{PolicyName: "oracle", New: e.Oracle}, ScaffoldVersion: -1,
		FirstRead: func(taskType string, slate []string) string {
			for _, n := range slate {
				if lib.IsRight(n, taskType) {
					return n
				}
			}
			return ""
		}}
	rows, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if len(r.Reads) != 1 || !r.ReadsRight[0] || r.Actions[0] != "read_skill "+r.Reads[0] || !r.Success {
			t.Fatalf("%s: reads %v right %v first action %q success %v", r.TaskID, r.Reads, r.ReadsRight, r.Actions[0], r.Success)
		}
		body, _ := lib.Get(r.Reads[0])
		if r.Observations[1] != body.Body {
			t.Fatalf("%s: the read's answer is %q", r.TaskID, r.Observations[1])
		}
		names := 0
		for _, ro := range r.Roles {
			if ro == table.RoleSkillName {
				names++
			}
		}
		if names == 0 {
			t.Fatalf("%s: no skill-name tokens", r.TaskID)
		}
	}
}

// TestRightBodyShown: in household-drawn (an env.BodyStater) a read of the
// right skill answers with the body that states the task's draws, a read of
// any other skill with the library's body.
func TestRightBodyShown(t *testing.T) {
	e, _ := env.Open("household-drawn")
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	lib, err := skill.ShippedLibrary("household-drawn")
	if err != nil {
		t.Fatal(err)
	}
	rewritten := map[bool]int{}
	for _, read := range []string{"right", "random"} {
		o := Options{Env: e, Split: env.SplitTrain, Tasks: 24, Group: 1, Seed: 5, Tok: tok, Skills: lib, Slate: 16,
			TextRead: read, Policy: TextPolicy{PolicyName: "oracle", New: e.Oracle}, ScaffoldVersion: -1}
		rows, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if len(r.Reads) != 1 || !r.Success {
				t.Fatalf("%s: reads %v success %v", r.TaskID, r.Reads, r.Success)
			}
			body, _ := lib.Get(r.Reads[0])
			want := body.Body
			if r.ReadsRight[0] {
				want = e.(env.BodyStater).RightBody(r.TaskID, body.Body)
			}
			if r.Observations[1] != want {
				t.Fatalf("%s (%s, right %v): the read's answer is %q, want %q", r.TaskID, read, r.ReadsRight[0], r.Observations[1], want)
			}
			rewritten[r.ReadsRight[0]] = rewritten[r.ReadsRight[0]] + b2i(r.Observations[1] != body.Body)
		}
	}
	if rewritten[true] == 0 || rewritten[false] != 0 {
		t.Fatalf("bodies differing from the library's, by right read: %v", rewritten)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestPrereadFunc: right gives the type's right skill with the task's own
// draws in household-drawn (the body a read would show), random draws
// library skills per task (right or not), none gives nothing, and the
// oracle follows a right body it finds before its first action.
func TestPrereadFunc(t *testing.T) {
	e, _ := env.Open("household-drawn")
	lib, err := skill.ShippedLibrary("household-drawn")
	if err != nil {
		t.Fatal(err)
	}
	if f, err := PrereadFunc(e, lib, PrereadNone, 1); f != nil || err != nil {
		t.Errorf("none: %v, %v", f != nil, err)
	}
	if _, err := PrereadFunc(e, lib, "bogus", 1); err == nil {
		t.Error("a bad mode is not an error")
	}
	if _, err := PrereadFunc(e, nil, PrereadRight, 1); err == nil {
		t.Error("no library is not an error")
	}
	right, err := PrereadFunc(e, lib, PrereadRight, 1)
	if err != nil {
		t.Fatal(err)
	}
	random, _ := PrereadFunc(e, lib, PrereadRandom, 1)
	ids, _ := e.Tasks("train")
	h := e.(env.Hinter)
	bodies := map[string]bool{}
	rightDrawn := 0
	for _, id := range ids[:60] {
		ep, err := e.Reset(id, 1)
		if err != nil {
			t.Fatal(err)
		}
		hs, _ := h.Hints(id)
		body := right(id, ep.TaskType())
		// The right body states the task's kept kind, as its right rule does.
		look := ""
		for _, r := range hs.Right {
			if k, ok := strings.CutPrefix(r, "Look in the "); ok {
				look = "look in the " + strings.TrimSuffix(k, " first.") + " first"
			}
		}
		if look == "" || !strings.Contains(body, look) {
			t.Errorf("%s: right body %q does not state %q (rules %v)", id, body, look, hs.Right)
		}
		b := random(id, ep.TaskType())
		if b == "" {
			t.Errorf("%s: random gave no body", id)
		}
		bodies[b] = true
		if b == body {
			rightDrawn++
		}
	}
	if len(bodies) < 10 || rightDrawn > 20 {
		t.Errorf("random: %d distinct bodies in 60 tasks, %d the right one", len(bodies), rightDrawn)
	}
	// The oracle follows the right body: shorter episodes than without it.
	tok, _ := tokenizer.ShippedWordLevel()
	steps := func(pre func(string, string) string) float64 {
		o := Options{Env: e, Split: env.SplitValidSeen, Tasks: 40, Group: 1, Seed: 3, Tok: tok,
			Policy: TextPolicy{PolicyName: "oracle", New: e.Oracle}, Preread: pre, Workers: 2}
		trajs, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, tr := range trajs {
			n += int(tr.Steps)
		}
		return float64(n) / float64(len(trajs))
	}
	if with, without := steps(right), steps(nil); with >= without-3 {
		t.Errorf("oracle steps with the right body %.1f, without %.1f", with, without)
	}
}

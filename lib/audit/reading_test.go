package audit

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/env"
	_ "github.com/pats-rl/pats/lib/env/shipped" // registers the shipped environments
	"github.com/pats-rl/pats/lib/rollout"
	"github.com/pats-rl/pats/lib/skill"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// TestWilson against intervals worked out by hand from the formula
// (p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n), z = 1.96.
func TestWilson(t *testing.T) {
	for _, c := range []struct {
		k, n   int
		lo, hi float64
	}{
		// 5/10: mid = 0.5, half = 1.96·sqrt(0.025 + 0.009604)/1.38416 = 0.263409
		{5, 10, 0.236591, 0.763409},
		// 0/10: mid = 0.19208/1.38416 = 0.138770 = half
		{0, 10, 0, 0.277540},
		// 10/10: the mirror image of 0/10
		{10, 10, 0.722460, 1},
		// 1/4: p = .25, z²/n = .9604; mid = (.25+.4802)/1.9604 = .372475;
		// half = 1.96·sqrt(.046875+.060025)/1.9604 = 1.96·.326956/1.9604 = .326889
		{1, 4, 0.045586, 0.699364},
		{0, 0, 0, 1},
	} {
		lo, hi := Wilson(c.k, c.n, 1.96)
		if math.Abs(lo-c.lo) > 1e-5 || math.Abs(hi-c.hi) > 1e-5 {
			t.Errorf("Wilson(%d, %d) = %.6f-%.6f, want %.6f-%.6f", c.k, c.n, lo, hi, c.lo, c.hi)
		}
	}
}

// TestReadingOracle plays the reading test with the household-rl oracle,
// which follows the rules it reads, under a context budget that the
// oracle's common-sense search often overruns: right rules and the right
// skill's body must raise success, misleading rules lower it.
func TestReadingOracle(t *testing.T) {
	o, lib := oracleOptions(t, "household-rl", 60)
	o.MaxContext = 450
	rows, err := Reading(context.Background(), o, lib)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]table.ReadingAudit{}
	var names []string
	for _, r := range rows {
		got[r.Condition] = r
		names = append(names, r.Condition)
		if r.Episodes != 60 || r.Tasks != 60 || r.Lo > r.Success || r.Hi < r.Success {
			t.Errorf("%s: %+v", r.Condition, r)
		}
	}
	if strings.Join(names, ",") != strings.Join(ReadingConditions, ",") {
		t.Fatalf("conditions %v", names)
	}
	none := got[CondNone].Success
	if got[CondRightHint].Success < none+0.15 || got[CondMisleadingHint].Success >= none ||
		got[CondRightSkill].Success <= got[CondWrongSkill].Success {
		t.Errorf("success by condition: %v", rows)
	}
	if d := got[CondRightHint].Delta; d != got[CondRightHint].Success-none {
		t.Errorf("delta %v", d)
	}
	// Without the budget the oracle solves every task whatever it reads.
	o.MaxContext = 0
	o.Tasks = 12
	rows, err = Reading(context.Background(), o, lib)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := ReadingMarkdown(&b, rows); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Success != 1 {
			t.Errorf("%s: oracle success %v without a budget", r.Condition, r.Success)
		}
		if !strings.Contains(b.String(), "| "+r.Condition+" | ") {
			t.Errorf("table lacks %s:\n%s", r.Condition, b.String())
		}
	}
	if got := b.String(); !strings.Contains(got, "| none | no extra text | 12 | 1.000 | 0.758-1.000 | +0.000 |") ||
		!strings.Contains(got, " | 0.00 | - |\n") {
		t.Errorf("table (no slate: no reads):\n%s", got)
	}
}

// TestReadingWithSlate: with a slate the skill conditions read from it
// (first action), and the right read beats a misleading one.
func TestReadingWithSlate(t *testing.T) {
	e, _ := env.Open("household-rl")
	tok, _ := tokenizer.ShippedWordLevel()
	lib, err := skill.ShippedLibrary("household-rl")
	if err != nil {
		t.Fatal(err)
	}
	o := rollout.Options{Env: e, Split: env.SplitValidSeen, Tasks: 60, Group: 1, Seed: 1, Tok: tok, Skills: lib, Slate: 16,
		Policy: rollout.TextPolicy{PolicyName: "oracle", New: e.Oracle}, MaxContext: 1050, Workers: 2}
	rows, err := Reading(context.Background(), o, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]table.ReadingAudit{}
	for _, r := range rows {
		got[r.Condition] = r
	}
	if len(rows) != 5 || got[CondRightSkill].Success <= got[CondWrongSkill].Success+0.15 ||
		got[CondRightHint].Success < got[CondNone].Success+0.15 {
		t.Errorf("rows %+v", rows)
	}
	// Reads: the text policies make none of their own; a skill condition's
	// given read is one per episode, right in right-skill, never in
	// wrong-skill.
	for _, c := range []struct {
		cond         string
		reads, right float64
	}{
		{CondNone, 0, math.NaN()}, {CondRightHint, 0, math.NaN()}, {CondMisleadingHint, 0, math.NaN()},
		{CondRightSkill, 1, 1}, {CondWrongSkill, 1, 0},
	} {
		r := got[c.cond]
		if r.Reads != c.reads || (math.IsNaN(c.right) != (r.RightReads == nil)) || (!math.IsNaN(c.right) && *r.RightReads != c.right) {
			t.Errorf("%s: reads %v right %v (NULL: NaN), want %v and %v", c.cond, r.Reads, r.RightReads, c.reads, c.right)
		}
	}
	// the slate's picks
	names := []string{"heat-on-stove", "heat-then-place", "make-coffee"}
	if r, w := slateRead(lib, "pick_heat_then_place_in_recep", names, true), slateRead(lib, "pick_heat_then_place_in_recep", names, false); r != "heat-then-place" || w != "heat-on-stove" {
		t.Errorf("slateRead: right %q, wrong %q", r, w)
	}
	if w := slateRead(lib, "pick_heat_then_place_in_recep", names[1:], false); w != "make-coffee" {
		t.Errorf("slateRead without a misleading skill: %q", w)
	}
}

// TestReadingSkipsWhatIsMissing: an environment that states no rules and
// no library give only the conditions that can be played.
func TestReadingSkipsWhatIsMissing(t *testing.T) {
	e, err := env.Open("shop")
	if err != nil {
		t.Fatal(err)
	}
	tok, _ := tokenizer.ShippedWordLevel()
	o := rollout.Options{Env: e, Split: env.SplitValidSeen, Tasks: 3, Group: 1, Seed: 1, Tok: tok,
		Policy: rollout.TextPolicy{PolicyName: "oracle", New: e.Oracle}}
	rows, err := Reading(context.Background(), o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Condition != CondNone {
		t.Fatalf("rows %+v", rows)
	}
}

// TestReadingStatedBody: in a world whose right skills' bodies state the
// task's facts (household-drawn, env.BodyStater) the right-skill condition
// without a slate shows the stated body, as a read would: the oracle
// follows it to where the goal objects are kept and needs far fewer steps
// than with no text, while the library's own body (household's usual
// places) would leave it searching as with none.
func TestReadingStatedBody(t *testing.T) {
	o, lib := oracleOptions(t, "household-drawn", 30)
	rows, err := Reading(context.Background(), o, lib)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]table.ReadingAudit{}
	for _, r := range rows {
		got[r.Condition] = r
	}
	none, right, wrong := got[CondNone].Steps, got[CondRightSkill].Steps, got[CondWrongSkill].Steps
	if right > 0.6*none || right > 0.6*wrong {
		t.Errorf("steps per episode: right-skill %.1f, none %.1f, wrong-skill %.1f; want the stated body to save steps", right, none, wrong)
	}
}

// oracleOptions are the reading test's options for the oracle on tasks
// tasks of world's valid_seen, with the world's skill library.
func oracleOptions(t *testing.T, world string, tasks int) (rollout.Options, *skill.Library) {
	t.Helper()
	e, err := env.Open(world)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	lib, err := skill.ShippedLibrary(world)
	if err != nil {
		t.Fatal(err)
	}
	return rollout.Options{Env: e, Split: env.SplitValidSeen, Tasks: tasks, Group: 1, Seed: 1, Tok: tok,
		Policy: rollout.TextPolicy{PolicyName: "oracle", New: e.Oracle}, Workers: 2}, lib
}

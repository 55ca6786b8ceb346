package audit

import (
	"math"
	"testing"

	"github.com/pats-rl/pats/lib/rl"
	"github.com/pats-rl/pats/lib/rollout/episodetest"
	"github.com/pats-rl/pats/lib/table"
)

// TestBroadcastVersusSkillGate audits the credit of real household
// episodes (oracle with a skill slate: every episode reads the right skill
// once) where half of each group is marked failed. Broadcast credit
// punishes the right read of every failed episode; SkillGate without a
// baseline credits every single right read positively and puts far more
// of the loss weight on the skill-name tokens; with the group baseline no
// right read is credited below 0, and only the group that also has a wrong
// read credits its right reads at all.
func TestBroadcastVersusSkillGate(t *testing.T) {
	rows, err := episodetest.Household(nil, 3, 4, 11, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		if len(rows[i].Reads) != 1 || !rows[i].ReadsRight[0] {
			t.Fatalf("oracle episode %d reads %v (right %v)", i, rows[i].Reads, rows[i].ReadsRight)
		}
		rows[i].Reward = float64(10 * (rows[i].Sample % 2))
	}
	// One episode of the first group reads a second, wrong skill after the
	// right one: not a right choice, so its right read counts as wrong
	// (SkillGate gives it -1, which must not count as a punished right read).
	twice := &rows[1]
	twice.Reads = append(twice.Reads, "unrelated")
	twice.ReadsRight = append(twice.ReadsRight, false)
	twice.ReadsMisleading = append(twice.ReadsMisleading, false)
	pooled := func(c rl.Credit, b rl.SelectBaseline) (share, neg, sign float64) {
		cfg := rl.DefaultGRPO()
		cfg.Credit, cfg.SelectBaseline, cfg.SelectCoef = c, b, 1
		_, adv := rl.Credits(rows, cfg)
		out, err := Credit(rows, adv, "traj", "adv", 1)
		if err != nil {
			t.Fatal(err)
		}
		r := out[0] // one steps bin: every episode
		if r.Episodes != int32(len(rows)) || r.RightReads != int32(len(rows)-1) || r.WrongReads != 2 {
			t.Fatalf("%v: %+v", c, r)
		}
		return table.OrNaN(r.SkillNameShare), table.OrNaN(r.RightNegFrac), table.OrNaN(r.RightSign)
	}
	bs, bn, bsign := pooled(rl.Broadcast, rl.SelectNone)
	gs, gn, gsign := pooled(rl.SkillGate, rl.SelectNone)
	_, cn, csign := pooled(rl.SkillGate, rl.SelectGroup)
	t.Logf("skillgate, group baseline: right reads credited < 0 %.2f, mean sign %.2f", cn, csign)
	// Group baseline: the first group's read actions have utilities 1, 0,
	// 0, 1, 1 (rows[1] read twice: two actions of utility 0), mean 3/5, so
	// its three single right reads get +2/5; the other groups read only
	// right (one utility): 0.
	if n := float64(len(rows)); cn != 0 || csign != 3/(n-1) {
		t.Errorf("skillgate, group baseline: right reads credited < 0 %v, mean sign %v; want 0 and %v", cn, csign, 3/(n-1))
	}
	t.Logf("broadcast: skill-name share %.4f, right reads credited < 0 %.2f, mean sign %.2f", bs, bn, bsign)
	t.Logf("skillgate: skill-name share %.4f, right reads credited < 0 %.2f, mean sign %.2f", gs, gn, gsign)
	// rows[1] (sample 1) succeeded: of the other single right reads, half
	// are in failed episodes.
	if n := float64(len(rows)); bn != (n/2)/(n-1) || bsign != -1/(n-1) {
		t.Errorf("broadcast: right reads credited < 0 %v, mean sign %v; want %v and %v (half the episodes failed)", bn, bsign, (n/2)/(n-1), -1/(n-1))
	}
	if gn != 0 || gsign != 1 {
		t.Errorf("skillgate: right reads credited < 0 %v, mean sign %v; want 0 and 1", gn, gsign)
	}
	if !(gs > bs) || math.IsNaN(bs) {
		t.Errorf("skill-name share: skillgate %v not above broadcast %v", gs, bs)
	}
}

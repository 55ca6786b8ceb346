package audit

import (
	"math"
	"testing"

	"github.com/pats-rl/pats/lib/rl"
	"github.com/pats-rl/pats/lib/rl/rltest"
)

// TestBroadcastVersusSkillGate audits the credit of real household
// episodes (oracle with a skill slate: every episode reads the right skill
// once) where half of each group is marked failed. Broadcast credit
// punishes the right read of every failed episode; SkillGate credits every
// single right read positively and puts far more of the loss weight on the
// skill-name tokens.
func TestBroadcastVersusSkillGate(t *testing.T) {
	rows, err := rltest.Household(nil, 3, 4, 11, true, 0)
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
	pooled := func(c rl.Credit) (share, neg, sign float64) {
		cfg := rl.DefaultGRPO()
		cfg.Credit = c
		_, adv := rl.Credits(rows, cfg)
		out, err := Credit(rows, adv, "traj", "adv", 1)
		if err != nil {
			t.Fatal(err)
		}
		r := out[0] // one steps bin: every episode
		if r.Episodes != int32(len(rows)) || r.RightReads != int32(len(rows)-1) || r.WrongReads != 2 {
			t.Fatalf("%v: %+v", c, r)
		}
		return r.SkillNameShare, r.RightNegFrac, r.RightSign
	}
	bs, bn, bsign := pooled(rl.Broadcast)
	gs, gn, gsign := pooled(rl.SkillGate)
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

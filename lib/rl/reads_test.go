package rl

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/pats-rl/pats/lib/agent"
	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/rollout"
	"github.com/pats-rl/pats/lib/skill"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// scripted writes, per episode (by seed), a fixed list of answers, where
// "RIGHT" stands for the right skill of the slate; then "look" until the
// episode ends.
type scripted map[int64][]string

func (s scripted) Name() string { return "scripted" }

func (s scripted) NewEpisode(_ string, seed int64) rollout.Driver {
	return &scriptDriver{script: s[seed]}
}

type scriptDriver struct{ script []string }

func (d *scriptDriver) Act(_ context.Context, c *agent.Context, _ env.Episode, right string) (string, error) {
	a := "look"
	if len(d.script) > 0 {
		a, d.script = d.script[0], d.script[1:]
		if a == "RIGHT" {
			a = agent.ReadVerb + " " + right
		}
	}
	return agent.AddAnswer(c, a), nil
}

// TestEveryReadCounted: an episode that writes six read actions (three
// served, one of a name not on the slate, two after the limit of three
// bodies) has six recorded reads with those outcomes and turns, and the
// advantages file has six per-read values for it, each centred on the
// mean utility over all read actions of the group:
//
//	episode A: six reads, not a single right read      utility 0 (x6)
//	episode B: one read, of the right skill            utility 1 (x1)
//	episode C: no read                                 (not counted)
//	group mean over the 7 read actions = (6*0 + 1*1)/7 = 1/7
//	A's six reads: 0 - 1/7 = -0.142857...; B's read: 1 - 1/7 = 0.857142...
//
// (Counting only A's three served reads, the mean would be 1/4 and A's
// advantage -0.25.)
func TestEveryReadCounted(t *testing.T) {
	e, err := env.Open("household")
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	lib, err := skill.ShippedLibrary("household")
	if err != nil {
		t.Fatal(err)
	}
	o := rollout.Options{Env: e, Split: "train", Tasks: 1, Group: 3, Seed: 11, Tok: tok, ScaffoldVersion: -1,
		Skills: lib, Slate: 16, Workers: 1}
	ids, err := rollout.SelectTasks(e, o.Split, o.Tasks, o.Seed, rollout.Shard{I: 0, N: 1})
	if err != nil {
		t.Fatal(err)
	}
	seed := func(sample int) int64 { return rollout.EpisodeSeed(o.Seed, ids[0], sample) }
	o.Policy = scripted{
		seed(0): {"RIGHT", "read_skill no-such-skill", "RIGHT", "RIGHT", "RIGHT", "RIGHT"},
		seed(1): {"RIGHT"},
	}
	rows, err := rollout.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	a := rows[0]
	wantOutcome := []string{table.ReadServed, table.ReadUnknown, table.ReadServed, table.ReadServed, table.ReadOverLimit, table.ReadOverLimit}
	if d := cmp.Diff(wantOutcome, a.ReadsOutcome); d != "" {
		t.Errorf("episode A's read outcomes (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]int32{0, 1, 2, 3, 4, 5}, a.ReadTurns); d != "" {
		t.Errorf("episode A's read turns (-want +got):\n%s", d)
	}
	if len(a.Reads) != 6 || a.Reads[1] != "no-such-skill" || a.ReadsRight[1] || !a.ReadsRight[0] {
		t.Errorf("episode A's reads %v, right %v", a.Reads, a.ReadsRight)
	}
	if len(rows[1].Reads) != 1 || !rows[1].ReadsRight[0] || len(rows[2].Reads) != 0 {
		t.Fatalf("episodes B and C: reads %v and %v", rows[1].Reads, rows[2].Reads)
	}
	cfg := DefaultGRPO()
	cfg.Credit = SkillGate
	_, adv := Credits(rows, cfg)
	// The advantages file as learn writes it, read back.
	path := filepath.Join(t.TempDir(), "adv.parquet")
	if err := table.WriteFile(path, adv, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	back, _, err := table.ReadFiles[table.TokenAdvantages](path)
	if err != nil {
		t.Fatal(err)
	}
	const a7, b7 = -1.0 / 7, 6.0 / 7
	want := [][]float64{{a7, a7, a7, a7, a7, a7}, {b7}, {}}
	for i, r := range back {
		if d := cmp.Diff(want[i], r.ReadAdvantages, cmpopts.EquateApprox(0, 1e-12), cmpopts.EquateEmpty()); d != "" {
			t.Errorf("episode %d: read_advantages (-want +got):\n%s", i, d)
		}
	}
	// The skill-name tokens: one run per read action, six in episode A,
	// each credited in the selection channel with its read's value.
	runs := 0
	for tk, role := range rows[0].Roles {
		if role != table.RoleSkillName {
			continue
		}
		if tk == 0 || rows[0].Roles[tk-1] != table.RoleSkillName {
			runs++
		}
		if back[0].Channels[tk] != ChannelSelection || math.Abs(float64(back[0].Advantages[tk])-a7) > 1e-6 {
			t.Errorf("episode A token %d: channel %d advantage %v, want selection %v", tk, back[0].Channels[tk], back[0].Advantages[tk], a7)
		}
	}
	if runs != 6 {
		t.Errorf("episode A has %d runs of skill-name tokens, want 6", runs)
	}
}

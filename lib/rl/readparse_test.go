package rl

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/pats-rl/pats/lib/agent"
	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/policy"
	"github.com/pats-rl/pats/lib/rollout"
	"github.com/pats-rl/pats/lib/skill"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// spelled writes, per episode (by seed), a fixed list of answers in which
// RIGHT stands for the right skill of the slate; then "look".
type spelled map[int64][]string

func (s spelled) Name() string { return "spelled" }

func (s spelled) NewEpisode(_ string, seed int64) rollout.Driver {
	return &spelledDriver{script: s[seed]}
}

type spelledDriver struct{ script []string }

func (d *spelledDriver) Act(_ context.Context, c *agent.Context, _ env.Episode, right string) (string, error) {
	a := "look"
	if len(d.script) > 0 {
		a, d.script = strings.ReplaceAll(d.script[0], "RIGHT", right), d.script[1:]
	}
	return agent.AddAnswer(c, a), nil
}

// checkSelection recomputes SkillGate's group-centred selection credit
// from the trajectories alone (reads, reads_right, reads_misleading,
// group) and checks learn's advantages rows against it on every read
// action: read_advantages holds it once per recorded read; the tokens of
// each read's name (the skill_name tokens of its turn, read_turns) are in
// the selection channel with that value; no other token is; and the runs
// of selection tokens are exactly the recorded reads with a name. It
// returns the number of read actions checked.
func checkSelection(t *testing.T, rows []table.Trajectory, adv []table.TokenAdvantages) int {
	t.Helper()
	type acc struct{ sum, n, lo, hi float64 }
	groups := map[string]*acc{}
	util := make([]float64, len(rows))
	for i, r := range rows {
		if len(r.Reads) == 0 {
			continue
		}
		if len(r.Reads) == 1 && r.ReadsRight[0] && !r.ReadsMisleading[0] {
			util[i] = 1
		}
		g := groups[r.GroupID]
		if g == nil {
			g = &acc{lo: util[i], hi: util[i]}
			groups[r.GroupID] = g
		}
		g.sum += float64(len(r.Reads)) * util[i]
		g.n += float64(len(r.Reads))
		g.lo, g.hi = min(g.lo, util[i]), max(g.hi, util[i])
	}
	checked := 0
	for i, r := range rows {
		a := adv[i]
		want := 0.0
		if g := groups[r.GroupID]; len(r.Reads) > 0 && g.lo != g.hi {
			want = util[i] - g.sum/g.n
		}
		if len(a.ReadAdvantages) != len(r.Reads) {
			t.Fatalf("episode %d: %d read_advantages for %d reads", i, len(a.ReadAdvantages), len(r.Reads))
		}
		// The turn of every token, and the answer turns that are reads.
		turn, _ := TurnOf(r.Roles)
		readAt := map[int]int{}
		named := 0
		for k, rt := range r.ReadTurns {
			readAt[int(rt)] = k
			if math.Abs(a.ReadAdvantages[k]-want) > 1e-9 {
				t.Errorf("episode %d read %d (%q): read_advantage %v, recomputed %v", i, k, r.Reads[k], a.ReadAdvantages[k], want)
			}
			checked++
		}
		runs := 0
		for tk, ch := range a.Channels {
			if ch != ChannelSelection {
				continue
			}
			if tk == 0 || a.Channels[tk-1] != ChannelSelection {
				runs++
			}
			k, isRead := readAt[turn[tk]]
			if !isRead {
				t.Errorf("episode %d token %d: selection channel in answer %d, which is no recorded read (reads at %v)", i, tk, turn[tk], r.ReadTurns)
				continue
			}
			if math.Abs(float64(a.Advantages[tk])-want) > 1e-6 {
				t.Errorf("episode %d token %d (read %d): advantage %v, recomputed %v", i, tk, k, a.Advantages[tk], want)
			}
		}
		for _, name := range r.Reads {
			if name != "" {
				named++
			}
		}
		if runs != named {
			t.Errorf("episode %d: %d runs of selection tokens, %d recorded reads with a name (%q)", i, runs, named, r.Reads)
		}
	}
	return checked
}

// TestHostileReadSpellings: hostile spellings of read actions through
// rollout (with a slate, under a two-turn window) and learn's SkillGate
// credit together: a read the environment answers as a read is recorded
// with its name as written and its outcome, and only recorded reads'
// names get the selection channel; the group mean is over those reads.
//
//	episode 0: "read_skill. ladle 1" (no read: a step), the right skill   1 read, utility 1
//	episode 1: "read_skill sinkbasin 2 fill", "READ_SKILL RIGHT"         2 reads, utility 0
//	episode 2: "read_skill", " read_skill \t RIGHT ", "read_skill heat then place"   3 reads, utility 0
//	episode 3: no read
//	group mean over 6 read actions: 1/6; episode 0: 5/6, episodes 1-2: -1/6
func TestHostileReadSpellings(t *testing.T) {
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
	o := rollout.Options{Env: e, Split: "train", Tasks: 1, Group: 4, Seed: 11, Tok: tok, ScaffoldVersion: -1,
		Skills: lib, Slate: 16, History: 2, Workers: 1}
	ids, err := rollout.SelectTasks(e, o.Split, o.Tasks, o.Seed, rollout.Shard{I: 0, N: 1})
	if err != nil {
		t.Fatal(err)
	}
	seed := func(sample int) int64 { return rollout.EpisodeSeed(o.Seed, ids[0], sample) }
	o.Policy = spelled{
		seed(0): {"read_skill. ladle 1", "read_skill RIGHT"},
		seed(1): {"read_skill sinkbasin 2 fill", "READ_SKILL RIGHT"},
		seed(2): {"read_skill", " read_skill \t RIGHT ", "read_skill heat then place"},
	}
	rows, err := rollout.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	right := ""
	for _, s := range rows[0].Slate {
		if lib.IsRight(s, rows[0].TaskType) {
			right = s
		}
	}
	want := []struct {
		reads   []string
		outcome []string
		turns   []int32
	}{
		{[]string{right}, []string{table.ReadServed}, []int32{1}},
		{[]string{"sinkbasin 2 fill", right}, []string{table.ReadUnknown, table.ReadServed}, []int32{0, 1}},
		{[]string{"", right, "heat then place"}, []string{table.ReadUnknown, table.ReadServed, table.ReadUnknown}, []int32{0, 1, 2}},
		{nil, nil, nil},
	}
	for i, w := range want {
		r := rows[i]
		if d := cmp.Diff(w.reads, r.Reads, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("episode %d reads (-want +got):\n%s", i, d)
		}
		if d := cmp.Diff(w.outcome, r.ReadsOutcome, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("episode %d read outcomes (-want +got):\n%s", i, d)
		}
		if d := cmp.Diff(w.turns, r.ReadTurns, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("episode %d read turns (-want +got):\n%s", i, d)
		}
	}
	if rows[0].Actions[0] != "read_skill. ladle 1" || rows[0].Observations[0] == rollout.InvalidRead {
		t.Errorf("episode 0's first answer %q went to the environment as %q", rows[0].Actions[0], rows[0].Observations[0])
	}
	cfg := DefaultGRPO()
	cfg.Credit = SkillGate
	_, adv := Credits(rows, cfg)
	path := filepath.Join(t.TempDir(), "adv.parquet")
	if err := table.WriteFile(path, adv, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	back, _, err := table.ReadFiles[table.TokenAdvantages](path)
	if err != nil {
		t.Fatal(err)
	}
	if n := checkSelection(t, rows, back); n != 6 {
		t.Errorf("%d read actions checked, want 6", n)
	}
	const a6, b6 = 5.0 / 6, -1.0 / 6
	for i, w := range []float64{a6, b6, b6, 0} {
		for k, v := range back[i].ReadAdvantages {
			if math.Abs(v-w) > 1e-12 {
				t.Errorf("episode %d read %d: read_advantage %v, want %v", i, k, v, w)
			}
		}
	}
}

// TestReadWithoutSlate: with no slate a read action is an action the
// environment answers: no read is recorded and no token names a skill.
func TestReadWithoutSlate(t *testing.T) {
	e, err := env.Open("household")
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	o := rollout.Options{Env: e, Split: "train", Tasks: 1, Group: 1, Seed: 11, Tok: tok, ScaffoldVersion: -1, Workers: 1}
	ids, err := rollout.SelectTasks(e, o.Split, o.Tasks, o.Seed, rollout.Shard{I: 0, N: 1})
	if err != nil {
		t.Fatal(err)
	}
	o.Policy = spelled{rollout.EpisodeSeed(o.Seed, ids[0], 0): {"read_skill heat-then-place"}}
	rows, err := rollout.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows[0].Reads) != 0 {
		t.Errorf("reads %q without a slate", rows[0].Reads)
	}
	for tk, r := range rows[0].Roles {
		if r == table.RoleSkillName {
			t.Fatalf("token %d names a skill in an episode without a slate", tk)
		}
	}
}

// TestRecomputedSelectionOnSkillsBase: a skills run under the window, as
// the SkillGate runs roll out (the shipped skills base at temperature 1,
// household-rl, two-turn window, admissible actions, slate of 16): the
// group-centred credit recomputed from the trajectories agrees with
// learn's on every read action.
func TestRecomputedSelectionOnSkillsBase(t *testing.T) {
	ck, err := policy.Load(filepath.Join("..", "..", "pipelines", "bases", "reading-skills", "ckpt", "0"),
		policy.Options{Temperature: 1, TopP: 1, MaxActionTokens: 32})
	if err != nil {
		t.Fatal(err)
	}
	e, err := env.Open("household-rl")
	if err != nil {
		t.Fatal(err)
	}
	lib, err := skill.ShippedLibrary("household-rl")
	if err != nil {
		t.Fatal(err)
	}
	o := rollout.Options{Env: e, Split: "train", Tasks: 3, Group: 4, Seed: 3, Policy: rollout.CheckpointPolicy{Checkpoint: ck},
		Tok: ck.Tok, ScaffoldVersion: -1, Skills: lib, Slate: 16, History: 2, Admissible: rollout.AdmissibleHere,
		MaxContext: 4096, Workers: 1}
	rows, err := rollout.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultGRPO()
	cfg.Credit = SkillGate
	_, adv := Credits(rows, cfg)
	n := checkSelection(t, rows, adv)
	nonzero := 0
	for _, a := range adv {
		for _, v := range a.ReadAdvantages {
			if v != 0 {
				nonzero++
			}
		}
	}
	if n == 0 || nonzero == 0 {
		t.Errorf("%d read actions, %d with a nonzero credit: the check saw nothing to check", n, nonzero)
	}
	t.Logf("%d episodes, %d read actions, %d with a nonzero selection credit", len(rows), n, nonzero)
}

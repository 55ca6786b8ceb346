package rl

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/pats-rl/pats/lib/agent"
	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/policy"
	"github.com/pats-rl/pats/lib/rollout"
	"github.com/pats-rl/pats/lib/rollout/episodetest"
	"github.com/pats-rl/pats/lib/skill"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// readAtTwo drives episodes with a checkpoint (the rollout's own windowed
// decoder), except that the second answer reads the episode's right skill;
// that answer's behaviour log-probabilities are what the model gives it
// under the context the answer sees, so the whole episode is on-policy.
// It records the context every answer saw.
type readAtTwo struct {
	ck   *policy.Checkpoint
	seen map[int64][][]int32 // by episode seed: per answer, the context it saw
}

func (p *readAtTwo) Name() string { return "ckpt" }

func (p *readAtTwo) NewEpisode(group string, seed int64) rollout.Driver {
	return &readAtTwoDriver{p: p, inner: p.ck.NewEpisode(group, seed), seed: seed}
}

type readAtTwoDriver struct {
	p     *readAtTwo
	inner rollout.Driver
	seed  int64
	turn  int
}

func (d *readAtTwoDriver) Act(ctx context.Context, c *agent.Context, ep env.Episode, readSkill string) (string, error) {
	view := slices.Clone(c.Visible())
	d.p.seen[d.seed] = append(d.p.seen[d.seed], view)
	d.turn++
	if d.turn != 2 {
		return d.inner.Act(ctx, c, ep, readSkill)
	}
	ids := agent.EncodeAction(c.Tok, agent.ReadVerb+" "+readSkill)
	seq := append(slices.Clone(view), ids...)
	mask := make([]bool, len(seq))
	for j := len(view); j < len(seq); j++ {
		mask[j] = true
	}
	lp, _, err := d.p.ck.M.LogProbs([][]int32{seq}, [][]bool{mask})
	if err != nil {
		return "", err
	}
	agent.AddAction(c, ids, lp[0][len(view):])
	return agent.ReadVerb + " " + readSkill, nil
}

// TestBodyPinnedAtTurnTen: under --history 2 a skill body read at turn 2
// is in the context of turn 10 (pinned after the prompt, before the
// marker), both in what the policy saw when it sampled and in what the
// trajectory's columns rebuild; learn's sequences rebuild each answer's
// context exactly (every answer's log-probabilities equal the behaviour
// ones within 1e-5) and the first GRPO step's ratio mean is 1 within 1e-5.
func TestBodyPinnedAtTurnTen(t *testing.T) {
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.New(episodetest.TinyConfig(tok.VocabSize()), 5)
	if err != nil {
		t.Fatal(err)
	}
	e, err := env.Open("household")
	if err != nil {
		t.Fatal(err)
	}
	lib, err := skill.ShippedLibrary("household")
	if err != nil {
		t.Fatal(err)
	}
	p := &readAtTwo{ck: policy.New("ckpt", m, tok, policy.Options{Temperature: 1, TopP: 1, MaxActionTokens: 4}), seen: map[int64][][]int32{}}
	o := rollout.Options{Env: e, Split: "train", Tasks: 2, Group: 2, Seed: 3, Policy: p, Tok: tok,
		ScaffoldVersion: -1, Skills: lib, Slate: 4, History: 2, Workers: 1}
	rows, err := rollout.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckTokens("traj", rows, tok.Hash(), m.Cfg.VocabSize, m.Cfg.MaxPositionEmbeddings); err != nil {
		t.Fatal(err)
	}
	const turn10 = 9
	for i := range rows {
		r := &rows[i]
		if len(r.Reads) != 1 || r.ReadTurns[0] != 1 || r.ReadsOutcome[0] != table.ReadServed || len(r.BodyAt) != 1 {
			t.Fatalf("row %d: reads %v at %v (%v), bodies %v; want one served read at turn 2 and its body", i, r.Reads, r.ReadTurns, r.ReadsOutcome, r.BodyAt)
		}
		if len(r.TurnAt) <= turn10 {
			t.Fatalf("row %d: %d answers, want at least 10", i, len(r.TurnAt))
		}
		body := r.Tokens[r.BodyAt[0]:r.BodyEnd[0]]
		if int(r.TurnFrom[turn10]) < int(r.BodyEnd[0]) {
			t.Fatalf("row %d: turn 10's kept history starts at %d, before the body's end %d", i, r.TurnFrom[turn10], r.BodyEnd[0])
		}
		// What the policy saw at turn 10: prompt, body, marker, turns 8-9.
		saw := p.seen[r.Seed][turn10]
		want := slices.Concat(r.Tokens[:r.PromptLen], body, r.HistoryMarker, r.Tokens[r.TurnFrom[turn10]:r.TurnAt[turn10]])
		if !slices.Equal(saw, want) {
			t.Errorf("row %d: turn 10 saw %d tokens, want prompt+body+marker+kept turns (%d)", i, len(saw), len(want))
		}
		// What the trajectory's columns rebuild for every answer is what
		// it saw, then the answer.
		for k, seq := range TurnSequences(r) {
			end := answerEnd(r.Roles, int(r.TurnAt[k]))
			if got := seq.Tokens[:len(seq.Tokens)-(end-int(r.TurnAt[k]))]; !slices.Equal(got, p.seen[r.Seed][k]) {
				t.Errorf("row %d answer %d: the rebuilt context differs from the one sampled in", i, k)
			}
		}
	}
	// What learn recomputes: every answer's log-probabilities under its
	// rebuilt context, and the first step's ratio.
	cfg := DefaultGRPO()
	cfg.Credit, cfg.KL = SkillGate, 0
	prep, _ := Credits(rows, cfg)
	var seqs [][]int32
	var masks [][]bool
	var behav [][]float32
	for i := range prep {
		for _, q := range prep[i].Turns {
			seqs, masks, behav = append(seqs, q.Row.Tokens), append(masks, q.Mask), append(behav, q.Row.Logprobs)
		}
	}
	lp, _, err := m.LogProbs(seqs, masks)
	if err != nil {
		t.Fatal(err)
	}
	worst, n := 0.0, 0
	for i := range seqs {
		for j, on := range masks[i] {
			if on {
				worst, n = math.Max(worst, math.Abs(float64(lp[i][j]-behav[i][j]))), n+1
			}
		}
	}
	if worst > 1e-5 {
		t.Errorf("%d answer tokens: largest log-probability difference %g, want <= 1e-5", n, worst)
	}
	ms, err := TrainGRPO(context.Background(), m, model.NewAdamW(m, model.DefaultAdamW()), prep, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(orZero(ms[0].RatioMean)-1) > 1e-5 {
		t.Errorf("first step's ratio mean %v, want 1 within 1e-5", orZero(ms[0].RatioMean))
	}
	t.Logf("%d episodes, %d answer tokens, largest log-probability difference %.2g, first ratio mean %.8f", len(rows), n, worst, orZero(ms[0].RatioMean))
}

package rl

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/rollout/episodetest"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// windowRow is a hand-made windowed episode: prompt 0-2, marker ids 90 91,
// three answers (tokens 4-5, 8, 11-12) after cues at 3, 7, 10, replies in
// between; answer 2 saw the prompt, the marker and turn 1 (from 7).
func windowRow() table.Trajectory {
	const (
		S = table.RoleSystem
		O = table.RoleObservation
		A = table.RoleAction
		N = table.RoleSkillName
	)
	return table.Trajectory{TaskID: "t", History: 1, PromptLen: 3, HistoryMarker: []int32{90, 91},
		Tokens:   []int32{10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22},
		Roles:    []int8{S, S, S, O, A, N, O, O, A, O, O, A, A},
		Logprobs: []float32{0, 0, 0, 0, -1, -2, 0, 0, -3, 0, 0, -4, -5},
		TurnAt:   []int32{4, 8, 11}, TurnFrom: []int32{3, 3, 7}}
}

// TestTurnSpans: each answer's sequence by hand.
func TestTurnSpans(t *testing.T) {
	r := windowRow()
	want := []TurnSpan{
		{Index: []int{0, 1, 2, 3, 4, 5}, Marker: r.HistoryMarker, Answer: 4},
		{Index: []int{0, 1, 2, 3, 4, 5, 6, 7, 8}, Marker: r.HistoryMarker, Answer: 8},
		{Index: []int{0, 1, 2, -1, -1, 7, 8, 9, 10, 11, 12}, Marker: r.HistoryMarker, Answer: 9},
	}
	if d := cmp.Diff(want, TurnSpans(&r)); d != "" {
		t.Errorf("spans (-want +got):\n%s", d)
	}
	seq := TurnSequences(&r)
	got := [][]int32{seq[2].Tokens, {int32(len(seq))}}
	if d := cmp.Diff([][]int32{{10, 11, 12, 90, 91, 17, 18, 19, 20, 21, 22}, {3}}, got); d != "" {
		t.Errorf("answer 2's tokens (-want +got):\n%s", d)
	}
	// In answer 2's sequence, answer 1 (token 18) is context.
	wantRoles := []int8{0, 0, 0, table.RoleObservation, table.RoleObservation, table.RoleObservation,
		table.RoleObservation, table.RoleObservation, table.RoleObservation, table.RoleAction, table.RoleAction}
	if d := cmp.Diff(wantRoles, seq[2].Roles); d != "" {
		t.Errorf("answer 2's roles (-want +got):\n%s", d)
	}
	// Credits: one sequence per answer, loss on its tokens, the
	// episode's advantages, and the episode's counts.
	rows := []table.Trajectory{r, windowRow()}
	rows[1].Reward = 1
	rows[0].GroupID, rows[1].GroupID = "g", "g"
	prep, _ := Credits(rows, DefaultGRPO())
	p := prep[1]
	if len(p.Turns) != 3 || p.NLoss != 5 {
		t.Fatalf("%d turns, %d loss tokens; want 3 and 5", len(p.Turns), p.NLoss)
	}
	var mask []bool
	var adv []float32
	n := 0
	for _, q := range p.Turns {
		mask = append(mask, q.Mask...)
		for j, on := range q.Mask {
			if on {
				adv = append(adv, q.Adv[j])
				n += q.NLoss
			}
		}
	}
	wantMask := []bool{false, false, false, false, true, true,
		false, false, false, false, false, false, false, false, true,
		false, false, false, false, false, false, false, false, false, true, true}
	if d := cmp.Diff(wantMask, mask); d != "" {
		t.Errorf("masks (-want +got):\n%s", d)
	}
	a := float32(p.Outcome)
	if d := cmp.Diff([]float32{a, a, a, a, a}, adv); d != "" || a == 0 {
		t.Errorf("advantages (-want +got), outcome %v:\n%s", a, d)
	}
}

// TestCheckWindow: bad window columns are one problem each.
func TestCheckWindow(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(r *table.Trajectory)
		max  int
		want string
	}{
		{"fine", func(r *table.Trajectory) {}, 100, ""},
		{"fits exactly", func(r *table.Trajectory) {}, 11, ""},
		{"answer too long", func(r *table.Trajectory) {}, 10, "answer 2's context of 11 tokens"},
		{"lengths", func(r *table.Trajectory) { r.TurnFrom = r.TurnFrom[:2] }, 100, "2 turn_from for 3 turn_at"},
		{"not an answer", func(r *table.Trajectory) { r.TurnAt[1] = 7 }, 100, "turn_at 1 (7)"},
		{"out of order", func(r *table.Trajectory) { r.TurnAt[1] = 5 }, 100, "turn_at 1 (5)"},
		{"from after answer", func(r *table.Trajectory) { r.TurnFrom[2] = 12 }, 100, "turn_from 2 (12)"},
		{"from in prompt", func(r *table.Trajectory) { r.TurnFrom[0] = 1 }, 100, "turn_from 0 (1)"},
		{"marker id", func(r *table.Trajectory) { r.HistoryMarker[0] = 1000 }, 100, "history_marker token 0"},
		{"prompt", func(r *table.Trajectory) { r.PromptLen = 20 }, 100, "prompt_len 20"},
		{"no window", func(r *table.Trajectory) { r.History = 0 }, 100, "without a history window"},
		{"negative", func(r *table.Trajectory) { r.History = -1 }, 100, "history -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := windowRow()
			tc.edit(&r)
			got := checkWindow(&r, 100, tc.max)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("problem %q, want one with %q", got, tc.want)
			}
		})
	}
}

// TestWindowWithoutDrops: an episode recorded with a window that never
// dropped a turn trains as one sequence per answer, each a prefix of the
// whole episode, so one GRPO step gives the weights the unwindowed episode
// gives (the same loss tokens, contexts, advantages and weights).
func TestWindowWithoutDrops(t *testing.T) {
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	m0, err := model.New(episodetest.TinyConfig(tok.VocabSize()), 4)
	if err != nil {
		t.Fatal(err)
	}
	rows := modelRollouts(t, m0)
	win, _ := windowed(rows, 1000, []int32{1})
	if err := CheckTokens("traj", win, tok.Hash(), m0.Cfg.VocabSize, m0.Cfg.MaxPositionEmbeddings); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultGRPO()
	cfg.Optim.LR = 1e-3
	cfg.Minibatch = 4
	var weights [][]float32
	var ratios []float64
	for _, rs := range [][]table.Trajectory{rows, win} {
		m, err := model.New(episodetest.TinyConfig(tok.VocabSize()), 4)
		if err != nil {
			t.Fatal(err)
		}
		prep, _ := Credits(rs, cfg)
		if err := RefLogProbs(context.Background(), m, prep); err != nil {
			t.Fatal(err)
		}
		ms, err := TrainGRPO(context.Background(), m, model.NewAdamW(m, model.DefaultAdamW()), prep, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ratios = append(ratios, orZero(ms[0].RatioMean))
		var w []float32
		for _, p := range m.Params() {
			w = append(w, p.W...)
		}
		weights = append(weights, w)
	}
	worst := 0.0
	for i := range weights[0] {
		worst = math.Max(worst, math.Abs(float64(weights[0][i]-weights[1][i])))
	}
	if worst > 1e-5 || math.Abs(ratios[0]-ratios[1]) > 1e-6 {
		t.Errorf("largest weight difference %g, first ratio means %v; want the same update", worst, ratios)
	}
}

// windowed gives rows the window columns of rollout --history h (h = 1
// or more than the episode's turns): each answer sees the prompt (up to
// the first answer's cue), then from its h-th answer back, the marker in
// place of older turns; dropped counts the answers with turns dropped.
func windowed(rows []table.Trajectory, h int32, marker []int32) (out []table.Trajectory, dropped int) {
	for _, r := range rows {
		w := r
		w.History, w.HistoryMarker = h, marker
		for tk := 1; tk < len(r.Roles); tk++ {
			if table.PolicyWritten(r.Roles[tk]) && !table.PolicyWritten(r.Roles[tk-1]) {
				if len(w.TurnAt) == 0 {
					w.PromptLen = int32(tk - 1)
				}
				from := w.PromptLen
				if k := int32(len(w.TurnAt)); k >= h {
					from = w.TurnAt[k-h] - 1 // the cue of the answer h before
				}
				if from > w.PromptLen {
					dropped++
				}
				w.TurnAt = append(w.TurnAt, int32(tk))
				w.TurnFrom = append(w.TurnFrom, from)
			}
		}
		out = append(out, w)
	}
	return out, dropped
}

// TestSFTUnits: a windowed demonstration is one SFT unit of its turn
// sequences sharing the prompt (cost: the prompt once, then each
// sequence's rest), a plain one a unit of itself; and one SFT step on the
// windowed unit moves the weights as one step on its turn sequences given
// as plain demonstrations in one minibatch.
func TestSFTUnits(t *testing.T) {
	plain := windowRow()
	plain.History, plain.PromptLen, plain.HistoryMarker, plain.TurnAt, plain.TurnFrom = 0, 0, nil, nil, nil
	units := sftUnits([]table.Trajectory{windowRow(), plain})
	type got struct{ Seqs, Prefix, Cost, Count int }
	want := []got{{3, 3, 3 + 3 + 6 + 8, 5}, {1, 0, 13, 5}}
	var have []got
	for _, u := range units {
		have = append(have, got{len(u.seqs), u.prefix, u.cost, u.count})
	}
	if d := cmp.Diff(want, have); d != "" {
		t.Errorf("units (-want +got):\n%s", d)
	}

	train := func(rows []table.Trajectory) ([]float32, float64) {
		m, err := model.New(episodetest.TinyConfig(100), 4)
		if err != nil {
			t.Fatal(err)
		}
		cfg := DefaultSFT()
		cfg.Epochs, cfg.BatchTokens = 1, 1000
		opt := model.NewAdamW(m, model.DefaultAdamW())
		metrics, err := TrainSFT(context.Background(), m, opt, rows, cfg)
		if err != nil || len(metrics) != 1 || metrics[0].Sequences != 3 {
			t.Fatalf("metrics %+v, err %v", metrics, err)
		}
		var w []float32
		for _, p := range m.Params() {
			w = append(w, p.W...)
		}
		return w, metrics[0].Loss
	}
	var turns []table.Trajectory
	for _, s := range TurnSequences(&[]table.Trajectory{windowRow()}[0]) {
		s.History, s.PromptLen, s.HistoryMarker, s.TurnAt, s.TurnFrom = 0, 0, nil, nil, nil
		turns = append(turns, s)
	}
	w0, l0 := train(turns)
	w1, l1 := train([]table.Trajectory{windowRow()})
	if math.Abs(l0-l1) > 1e-6*math.Abs(l0) {
		t.Errorf("loss %v with the prefix shared, %v without", l1, l0)
	}
	for i := range w0 {
		if math.Abs(float64(w0[i]-w1[i])) > 1e-6 {
			t.Fatalf("weight %d: %v with the prefix shared, %v without", i, w1[i], w0[i])
		}
	}
}

// TestGRPOSharedPrefix: a GRPO update on windowed episodes whose answers
// saw the prompt, the marker and the last turn (older turns dropped) moves
// the weights as the same update with each turn sequence run whole: the
// prompt runs once per episode (Prepared.Prefix) for the same gradients.
func TestGRPOSharedPrefix(t *testing.T) {
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	m0, err := model.New(episodetest.TinyConfig(tok.VocabSize()), 4)
	if err != nil {
		t.Fatal(err)
	}
	rows, dropped := windowed(modelRollouts(t, m0), 1, []int32{1, 2})
	if err := CheckTokens("traj", rows, tok.Hash(), m0.Cfg.VocabSize, m0.Cfg.MaxPositionEmbeddings); err != nil {
		t.Fatal(err)
	}
	if dropped == 0 {
		t.Fatal("no answer with dropped turns")
	}
	cfg := DefaultGRPO()
	cfg.Optim.LR = 1e-3
	cfg.Minibatch = 4
	var weights [][]float32
	var losses []float64
	for _, shared := range []bool{true, false} {
		m, err := model.New(episodetest.TinyConfig(tok.VocabSize()), 4)
		if err != nil {
			t.Fatal(err)
		}
		prep, _ := Credits(rows, cfg)
		withPrefix := 0
		for i := range prep {
			if prep[i].Prefix > 0 {
				withPrefix++
			}
			if !shared {
				prep[i].Prefix = 0
			}
		}
		if withPrefix == 0 {
			t.Fatal("no episode with a shared prefix")
		}
		if err := RefLogProbs(context.Background(), m, prep); err != nil {
			t.Fatal(err)
		}
		ms, err := TrainGRPO(context.Background(), m, model.NewAdamW(m, model.DefaultAdamW()), prep, cfg)
		if err != nil {
			t.Fatal(err)
		}
		var w []float32
		for _, p := range m.Params() {
			w = append(w, p.W...)
		}
		weights = append(weights, w)
		losses = append(losses, ms[len(ms)-1].Loss)
	}
	worst := 0.0
	for i := range weights[0] {
		worst = math.Max(worst, math.Abs(float64(weights[0][i]-weights[1][i])))
	}
	if worst > 1e-5 || math.Abs(losses[0]-losses[1]) > 1e-5*math.Max(1, math.Abs(losses[1])) {
		t.Errorf("largest weight difference %g, last losses %v (shared, whole); want the same update", worst, losses)
	}
}

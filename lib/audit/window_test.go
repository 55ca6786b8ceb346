package audit

import (
	"math"
	"testing"

	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/table"
)

// TestScaffoldWindow: an episode rolled out with a history window is
// scored one answer at a time under the context that answer saw, with and
// without the scaffold (checked against scoring those sequences by hand),
// and counts as one episode.
func TestScaffoldWindow(t *testing.T) {
	const (
		S = table.RoleSystem
		Z = table.RoleScaffold
		O = table.RoleObservation
		A = table.RoleAction
	)
	// Prompt 0-3 (a scaffold at 1-2), cues at 4, 7, 10, answers 5, 8,
	// 11-12; answer 2 saw the prompt, the marker (16) and turn 1.
	r := table.Trajectory{TaskID: "t", History: 1, PromptLen: 4, HistoryMarker: []int32{16},
		Tokens:   []int32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13},
		Roles:    []int8{S, Z, Z, S, O, A, O, O, A, O, O, A, A},
		Logprobs: make([]float32, 13),
		TurnAt:   []int32{5, 8, 11}, TurnFrom: []int32{4, 4, 7}}
	m := microModel(t, 3)
	rows, err := Scaffold([]string{"a"}, func(string) (*model.Model, error) { return m, nil }, []table.Trajectory{r})
	if err != nil {
		t.Fatal(err)
	}
	seqs := [][]int32{{1, 2, 3, 4, 5, 6}, {1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 2, 3, 4, 16, 8, 9, 10, 11, 12, 13}}
	masks := [][]bool{
		{false, false, false, false, false, true},
		{false, false, false, false, false, false, false, false, true},
		{false, false, false, false, false, false, false, false, false, true, true}}
	score := func(drop bool) float64 {
		var ss [][]int32
		var ms [][]bool
		for i := range seqs {
			var s []int32
			var mk []bool
			for j, id := range seqs[i] {
				if drop && (j == 1 || j == 2) {
					continue
				}
				s, mk = append(s, id), append(mk, masks[i][j])
			}
			ss, ms = append(ss, s), append(ms, mk)
		}
		lp, _, err := m.LogProbs(ss, ms)
		if err != nil {
			t.Fatal(err)
		}
		var sum float64
		for i := range lp {
			for j, on := range ms[i] {
				if on {
					sum -= float64(lp[i][j])
				}
			}
		}
		return sum / 4
	}
	with, without := score(false), score(true)
	if len(rows) != 1 || rows[0].Episodes != 1 || rows[0].Tokens != 4 ||
		math.Abs(table.OrNaN(rows[0].NLLWith)-with) > 1e-6 || math.Abs(table.OrNaN(rows[0].NLLWithout)-without) > 1e-6 {
		t.Errorf("row %+v, want 1 episode, 4 tokens, NLL with %v without %v", rows, with, without)
	}
}

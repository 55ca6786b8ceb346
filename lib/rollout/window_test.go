package rollout

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/skill"
	"github.com/pats-rl/pats/lib/table"
)

// TestHistoryRecorded: the oracle writes the same episodes with and
// without a window (its actions do not depend on the context), so the
// stored tokens and roles are the same; with --history 2 every answer's
// kept history starts at the cue of the answer two before it, the
// scaffold and slate stay in the prompt, the read's name keeps role
// skill_name, and without a window the window columns stay empty.
func TestHistoryRecorded(t *testing.T) {
	lib, err := skill.New([]skill.Skill{
		{Name: "go-up", Description: "d", Body: "inc until there", RightFor: []string{"up"}},
		{Name: "go-down", Description: "d", Body: "dec until there", RightFor: []string{"down"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Group: 1, Seed: 4, Skills: lib, Slate: 2, Scaffold: func(string) string { return "rule" }, ScaffoldVersion: 1}
	whole := runCounter(t, o)
	o.History = 2
	win := runCounter(t, o)
	dropped := 0
	for i, r := range win {
		w := whole[i]
		if !slices.Equal(r.Tokens, w.Tokens) || !slices.Equal(r.Roles, w.Roles) || !slices.Equal(r.Actions, w.Actions) {
			t.Fatalf("%s: the window changed the stored episode", r.TaskID)
		}
		if w.History != 0 || w.PromptLen != 0 || len(w.TurnAt)+len(w.TurnFrom)+len(w.HistoryMarker) != 0 {
			t.Errorf("%s: window columns without a window: %d %d %v %v %v", w.TaskID, w.History, w.PromptLen, w.TurnAt, w.TurnFrom, w.HistoryMarker)
		}
		if r.History != 2 || len(r.TurnAt) != len(r.Actions) || len(r.TurnFrom) != len(r.Actions) || len(r.HistoryMarker) == 0 {
			t.Fatalf("%s: history %d, %d turn_at, %d turn_from for %d actions, marker %v", r.TaskID, r.History, len(r.TurnAt), len(r.TurnFrom), len(r.Actions), r.HistoryMarker)
		}
		for k, at := range r.TurnAt {
			want := r.PromptLen
			if k > 2 {
				want = r.TurnAt[k-2] - 1 // the cue <|act|> before answer k-2
				dropped++
			}
			if r.TurnFrom[k] != want || !table.PolicyWritten(r.Roles[at]) || table.PolicyWritten(r.Roles[at-1]) {
				t.Errorf("%s answer %d: at %d from %d, want from %d", r.TaskID, k, at, r.TurnFrom[k], want)
			}
		}
		for j, role := range r.Roles {
			if (role == table.RoleScaffold || role == table.RoleSkillSlate) && j >= int(r.PromptLen) {
				t.Errorf("%s: role %d at %d after the prompt (%d)", r.TaskID, role, j, r.PromptLen)
			}
			if role == table.RoleSkillName && (j < int(r.TurnAt[0]) || len(r.TurnAt) > 1 && j >= int(r.TurnAt[1])) {
				t.Errorf("%s: skill_name token at %d outside the first answer", r.TaskID, j)
			}
		}
		if !strings.HasPrefix(r.Actions[0], "read_skill ") || !slices.Contains(r.Roles, table.RoleSkillName) {
			t.Errorf("%s: first action %q without a skill name", r.TaskID, r.Actions[0])
		}
	}
	if dropped == 0 {
		t.Errorf("no episode outgrew the window")
	}
	o.History = -1
	o.Env, o.Split, o.Tok, o.Policy = counter{}, "train", newWordTok(), TextPolicy{PolicyName: "oracle", New: counter{}.Oracle}
	var se *SettingError
	if _, err := Run(context.Background(), o); !errors.As(err, &se) || se.Setting != "history" || strings.Contains(err.Error(), "--") {
		t.Errorf("history -1: %v", err)
	}
}

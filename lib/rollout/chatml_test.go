package rollout

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/agent"
	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/skill"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// scripted writes chat answers: the first reads the right skill (after
// thinking), the second holds no action and ends in a lone byte token that
// cuts a character (as a byte-level model may write), the rest are the
// counter oracle's actions.
type scripted struct{ tok tokenizer.Tokenizer }

func (s scripted) Name() string { return "scripted" }
func (s scripted) NewEpisode(string, int64) Driver {
	return &scriptedDriver{tok: s.tok}
}

type scriptedDriver struct {
	tok    tokenizer.Tokenizer
	oracle *counterOracle
	turn   int
}

func (d *scriptedDriver) Act(_ context.Context, c *agent.Context, ep env.Episode, read string) (string, error) {
	if d.oracle == nil {
		d.oracle = &counterOracle{}
		d.oracle.Start(ep.Goal(), ep.Observation(), 0)
	}
	end := c.Ends()[0]
	var ids []int32
	switch d.turn {
	case 0:
		ids = d.tok.Encode("<think>\nThe slate has a skill for this.\n</think>\n<action>read_skill " + read + "</action>")
	case 1:
		cut, _ := d.tok.TokenID("ä") // the byte 0xE4 in the byte-level alphabet
		ids = append(d.tok.Encode("I am not sure what to do."), cut)
	default:
		ids = d.tok.Encode("<action>" + d.oracle.Act("", ep.Admissible()) + "</action>")
	}
	d.turn++
	ids = append(ids, end)
	agent.AddAction(c, ids, nil)
	return d.tok.Decode(ids[:len(ids)-1]), nil
}

func TestChatMLTrajectoryRoles(t *testing.T) {
	tok, err := tokenizer.Load(filepath.Join("..", "tokenizer", "testdata", "qwen3", "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := agent.NewChatML(tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	lib, err := skill.New([]skill.Skill{
		{Name: "count-up", Description: "Reach a larger number.", Body: "Write inc until you reach it.", RightFor: []string{"up"}},
		{Name: "count-down", Description: "Reach a smaller number.", Body: "Write dec until you reach it.", RightFor: []string{"down"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := Run(context.Background(), Options{Env: counter{}, Split: "train", Tasks: 2, Group: 1, Seed: 4,
		Policy: scripted{tok}, Tok: tok, Skills: lib, Slate: 2, Format: f, InvalidPenalty: 0.25,
		Scaffold: func(string) string { return "- Count carefully." }, ScaffoldVersion: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	for _, r := range rows {
		if !r.Success || r.Invalid != 1 || r.Reward != 1-0.25 {
			t.Errorf("%s: success %v, invalid %d, reward %v; want success, 1 invalid, reward 0.75", r.TaskID, r.Success, r.Invalid, r.Reward)
		}
		want := []string{"read_skill count-" + r.TaskType, "I am not sure what to do.\ufffd"}
		if diff := cmp.Diff(want, r.Actions[:2]); diff != "" {
			t.Errorf("%s: actions (-want +got):\n%s", r.TaskID, diff)
		}
		// One step key and reward per turn; the invalid turn acts from the
		// state the read left and is rewarded with the penalty.
		if len(r.StepKeys) != len(r.Actions) || len(r.StepRewards) != len(r.Actions) || r.StepKeys[1] != r.StepKeys[0] ||
			r.StepKeys[2] != r.StepKeys[1] || r.StepRewards[1] != -0.25 {
			t.Errorf("%s: step keys %v, step rewards %v for %d actions", r.TaskID, r.StepKeys, r.StepRewards, len(r.Actions))
		}
		sum := 0.0
		for _, x := range r.StepRewards {
			sum += x
		}
		if sum != r.Reward {
			t.Errorf("%s: step rewards sum to %v, reward %v", r.TaskID, sum, r.Reward)
		}
		if !slices.Contains(r.Features, "failure:invalid_answer") {
			t.Errorf("%s: features %v lack failure:invalid_answer", r.TaskID, r.Features)
		}
		if r.Observations[2] != agent.InvalidAnswer || len(r.Reads) != 1 || !r.ReadsRight[0] {
			t.Errorf("%s: observation after the invalid answer %q, reads %v %v", r.TaskID, r.Observations[2], r.Reads, r.ReadsRight)
		}
		// The text of each role over the whole trajectory.
		byRole := map[string]*strings.Builder{}
		for i := 0; i < len(r.Tokens); {
			j := i
			for j < len(r.Tokens) && r.Roles[j] == r.Roles[i] {
				j++
			}
			name := table.RoleNames[r.Roles[i]]
			if byRole[name] == nil {
				byRole[name] = &strings.Builder{}
			}
			byRole[name].WriteString(tok.Decode(r.Tokens[i:j]) + "|")
			i = j
		}
		text := func(role string) string {
			if byRole[role] == nil {
				return ""
			}
			return byRole[role].String()
		}
		if got, want := text("skill_name"), " "+r.Reads[0]+"|"; got != want {
			t.Errorf("%s: skill_name runs %q, want %q", r.TaskID, got, want)
		}
		if got := text("scaffold"); got != "Rules:\n- Count carefully.|" {
			t.Errorf("%s: scaffold runs %q", r.TaskID, got)
		}
		action := text("action")
		for _, s := range []string{"<think>\nThe slate has a skill for this.\n</think>\n<action>read_skill|</action><|im_end|>|",
			"I am not sure what to do.\xe4<|im_end|>|", "<action>inc</action><|im_end|>|"} {
			if !strings.Contains(action, s) && !strings.Contains(action, strings.ReplaceAll(s, "inc", "dec")) {
				t.Errorf("%s: action runs %q lack %q", r.TaskID, action, s)
			}
		}
		for _, role := range []string{"action", "skill_name"} {
			if strings.Contains(text(role), "<|im_start|>") {
				t.Errorf("%s: a template token <|im_start|> has role %s", r.TaskID, role)
			}
		}
		for _, s := range []string{"<|im_start|>assistant\n", "<|im_start|>user\n" + agent.InvalidAnswer + "<|im_end|>"} {
			if !strings.Contains(text("observation"), s) {
				t.Errorf("%s: observation runs lack %q", r.TaskID, s)
			}
		}
		if !strings.Contains(text("skill_body"), "until you reach it.<|im_end|>") || !strings.Contains(text("skill_slate"), "- count-up: Reach a larger number.\n") {
			t.Errorf("%s: skill body %q, slate %q", r.TaskID, text("skill_body"), text("skill_slate"))
		}
	}
}

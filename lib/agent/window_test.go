package agent

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// windowEpisode writes a builtin episode of four answers (a read, then
// steps) and returns its context and the context each answer saw.
func windowEpisode(t *testing.T, history int) (*Context, [][]int32) {
	t.Helper()
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	c := NewContext(tok)
	c.History = history
	Begin(c, Prompt{Scaffold: "look first", Goal: "put a apple in fridge", Observation: "you see a table"})
	var seen [][]int32
	answers := []string{"read_skill heat", "go to fridge 1", "open fridge 1", "take apple 1"}
	for i, a := range answers {
		seen = append(seen, slices.Clone(c.Visible()))
		AddAnswer(c, a)
		if i == 0 {
			SkillBody(c, "heat it first")
		} else {
			Observe(c, fmt.Sprintf("you see %d things", i))
		}
	}
	return c, seen
}

// name reads a windowed context back as the names of its parts: the
// prompt, the marker, turn i (cue, answer i and the reply), and "cue" for
// the cue of the answer being written.
func name(t *testing.T, c *Context, ids []int32) string {
	t.Helper()
	turns := c.Turns()
	parts := map[string][]int32{"prompt": c.Tokens[:c.PromptLen()], "marker": c.Marker()}
	order := []string{"prompt", "marker"}
	for i, b := range c.Bodies() {
		k := fmt.Sprint("body", i)
		parts[k] = c.Tokens[b.At:b.End]
		order = append(order, k)
	}
	for i := range turns {
		end := c.Len()
		if i+1 < len(turns) {
			end = turns[i+1].Cue
		}
		k := fmt.Sprint(i)
		parts[k] = c.Tokens[turns[i].Cue:end]
		order = append(order, k)
	}
	var got []string
	rest := ids
	for len(rest) > 0 {
		found := false
		for _, k := range order {
			if p := parts[k]; len(p) > 0 && len(rest) >= len(p) && slices.Equal(rest[:len(p)], p) {
				got, rest, found = append(got, k), rest[len(p):], true
				break
			}
		}
		if !found {
			// The cue of the answer being written is the last part.
			act, _ := c.Tok.TokenID(tokenizer.Act)
			if slices.Equal(rest, []int32{act}) {
				return strings.Join(append(got, "cue"), " ")
			}
			t.Fatalf("context has tokens that are no part: %v", rest)
		}
	}
	return strings.Join(got, " ")
}

// TestWindow: which turns each answer sees for N = 0, 1, 2: the prompt
// always, the body read at turn 0 once that turn was dropped (pinned after
// the prompt), the marker once a turn was dropped, then the last N turns.
func TestWindow(t *testing.T) {
	for _, tc := range []struct {
		history int
		want    []string // per answer t = 0..3
	}{
		{0, []string{"prompt cue", "prompt 0 cue", "prompt 0 1 cue", "prompt 0 1 2 cue"}},
		{1, []string{"prompt cue", "prompt 0 cue", "prompt body0 marker 1 cue", "prompt body0 marker 2 cue"}},
		{2, []string{"prompt cue", "prompt 0 cue", "prompt 0 1 cue", "prompt body0 marker 1 2 cue"}},
	} {
		t.Run(fmt.Sprint(tc.history), func(t *testing.T) {
			c, seen := windowEpisode(t, tc.history)
			var got []string
			for _, ids := range seen {
				got = append(got, name(t, c, ids))
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("visible parts (-want +got):\n%s", d)
			}
			// Turn.From and Window rebuild what each answer saw from the
			// whole episode, and the whole episode is the same as without
			// a window.
			for i, tr := range c.Turns() {
				if w := Window(c.Tokens, c.PromptLen(), Pinned(c.Bodies(), c.PromptLen(), tr.From), tr.From, tr.At, c.Marker()); !slices.Equal(w, seen[i]) {
					t.Errorf("answer %d: Window gives %v, the answer saw %v", i, w, seen[i])
				}
			}
			whole, _ := windowEpisode(t, 0)
			if !slices.Equal(whole.Tokens, c.Tokens) || !slices.Equal(whole.Roles, c.Roles) {
				t.Errorf("the episode's tokens or roles depend on the window")
			}
			// Roles: the scaffold keeps its role, the read names a skill.
			if n := c.Count(func(r int8) bool { return r == table.RoleScaffold }); n != 3 {
				t.Errorf("%d scaffold tokens (the special and two words), want 3", n)
			}
			if n := c.Count(func(r int8) bool { return r == table.RoleSkillName }); n != 1 {
				t.Errorf("%d skill_name tokens, want 1", n)
			}
		})
	}
}

// TestMarker: the marker line in each format, written by the harness.
func TestMarker(t *testing.T) {
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	c := NewContext(tok)
	if got, want := tok.Decode(c.Marker()), "<|obs|> "+WordLevelMarker; got != want {
		t.Errorf("builtin marker %q, want %q", got, want)
	}
	for _, id := range c.Marker() {
		if id == tokenizerUnk(t, tok) {
			t.Errorf("the word-level format's marker has an unknown word: %q", WordLevelMarker)
		}
	}
}

func tokenizerUnk(t *testing.T, tok tokenizer.Tokenizer) int32 {
	t.Helper()
	id, _ := tok.TokenID(tokenizer.Unk)
	return id
}

package agent

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// wordTok is a whitespace tokenizer over a fixed vocabulary, enough to test
// the context layout without the built-in vocabulary.
type wordTok struct{ ids map[string]int32 }

func newWordTok(words ...string) *wordTok {
	t := &wordTok{ids: map[string]int32{}}
	for _, w := range append(append([]string{}, tokenizer.Specials...), words...) {
		if _, ok := t.ids[w]; !ok {
			t.ids[w] = int32(len(t.ids))
		}
	}
	return t
}
func (t *wordTok) Encode(s string) []int32 {
	var out []int32
	for _, w := range strings.Fields(s) {
		id, ok := t.ids[w]
		if !ok {
			id = t.ids[tokenizer.Unk]
		}
		out = append(out, id)
	}
	return out
}
func (t *wordTok) Decode(ids []int32) string { return "" }
func (t *wordTok) TokenID(s string) (int32, bool) {
	id, ok := t.ids[s]
	return id, ok
}
func (t *wordTok) VocabSize() int        { return len(t.ids) }
func (t *wordTok) Hash() string          { return "word" }
func (t *wordTok) JSON() ([]byte, error) { return nil, nil }

func TestBeginLayout(t *testing.T) {
	tok := newWordTok("put", "apple", "in", "fridge", "rules", "here", "heat", "a", "room")
	c := NewContext(tok)
	Begin(c, Prompt{Scaffold: "rules here", Slate: []SlateEntry{{"heat", "a"}}, Goal: "put apple in fridge", Observation: "a room"})
	AddAction(c, EncodeAction(tok, "put apple in fridge"), []float32{-1, -2, -3, -4, -5})
	Observe(c, "a room")
	var got []string
	last := int8(-1)
	for _, r := range c.Roles {
		if r != last {
			got = append(got, table.RoleNames[r])
			last = r
		}
	}
	want := []string{"system", "scaffold", "skill_slate", "task", "observation", "action", "observation"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("role runs (-want +got):\n%s", diff)
	}
	if c.PolicyTokens() != 5 {
		t.Errorf("policy tokens = %d, want 5", c.PolicyTokens())
	}
	var sum float32
	for i, lp := range c.Logprobs {
		if !table.PolicyWritten(c.Roles[i]) && lp != 0 {
			t.Errorf("token %d of role %s has logprob %v", i, table.RoleNames[c.Roles[i]], lp)
		}
		sum += lp
	}
	if sum != -15 {
		t.Errorf("logprob sum = %v, want -15", sum)
	}
}

package agent

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

var update = flag.Bool("update", false, "rewrite testdata/chatml-episode.txt")

var (
	qwenOnce sync.Once
	qwenTok  tokenizer.Tokenizer
	qwenErr  error
)

// qwen loads the Qwen3 tokenizer lib/tokenizer tests against.
func qwen(t *testing.T) tokenizer.Tokenizer {
	t.Helper()
	qwenOnce.Do(func() {
		qwenTok, qwenErr = tokenizer.Load(filepath.Join("..", "tokenizer", "testdata", "qwen3", "tokenizer.json"))
	})
	if qwenErr != nil {
		t.Fatal(qwenErr)
	}
	return qwenTok
}

// The answers of the golden episode: a read (with thinking), a step, an
// answer with no action, and a second step (with thinking).
const (
	answerRead    = "<think>\nA skill on the slate fits this task.\n</think>\n<action>read_skill heat-then-place</action>"
	answerStep1   = "<action>go to microwave 1</action>"
	answerInvalid = "I think I should open the microwave."
	answerStep2   = "<think>\nOpen it first.\n</think>\n\n<action> open microwave 1 </action>"
)

// goldenEpisode writes the fixed chatml episode: scaffold, slate, a read,
// two steps and an invalid answer.
func goldenEpisode(t *testing.T) *Context {
	t.Helper()
	tok := qwen(t)
	f, err := NewChatML(tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := NewContext(tok)
	c.Format = f
	Begin(c, Prompt{
		Scaffold: "General:\n- Check the receptacles one by one.\nTask-specific:\n- Heat the object in the microwave before you place it.",
		Slate: []SlateEntry{
			{"heat-then-place", "Heat an object, then put it in a receptacle."},
			{"clean-then-place", "Clean an object in the sink, then put it in a receptacle."},
		},
		Goal:        "put a hot apple in fridge.",
		Observation: "You are in the middle of a room. Looking quickly around you, you see a fridge 1 and a microwave 1.",
	})
	answer := func(text string) {
		AddAction(c, append(tok.Encode(text), f.End), nil)
		action, ok := c.Parse(text)
		if !ok && text != answerInvalid {
			t.Fatalf("answer %q does not parse", text)
		}
		_ = action
	}
	answer(answerRead)
	SkillBody(c, "1. Find the object.\n2. Heat it in the microwave.\n3. Put it in place.")
	answer(answerStep1)
	Observe(c, "You arrive at microwave 1. The microwave 1 is closed.")
	answer(answerInvalid)
	Invalid(c)
	answer(answerStep2)
	Observe(c, "You open the microwave 1. It is empty. Café crème.")
	return c
}

// TestChatMLGolden: the rendered text of the golden episode is the
// checked-in text, and its ids are those the independent tokenizer
// (scripts/tokref) gives for the whole text.
func TestChatMLGolden(t *testing.T) {
	c := goldenEpisode(t)
	text := c.Tok.Decode(c.Tokens)
	path := filepath.Join("testdata", "chatml-episode.txt")
	if *update {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), text); diff != "" {
		t.Errorf("rendered episode differs from %s (-want +got); run go test -update and scripts/tokref:\n%s", path, diff)
	}
	b, err := os.ReadFile(filepath.Join("testdata", "chatml-episode.ids.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		IDs []int32 `json:"ids"`
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.IDs) < 100 {
		t.Fatalf("reference has %d ids", len(ref.IDs))
	}
	if diff := cmp.Diff(ref.IDs, c.Tokens); diff != "" {
		t.Errorf("context ids differ from the reference tokenizer's ids of the whole text (-ref +got):\n%s", diff)
	}
}

// TestChatMLRoles: every run of one role in the golden episode, with its
// text: the harness's template tokens are never policy-written, thinking
// and tags are action tokens, the read skill's name is skill_name, and an
// invalid answer is policy-written like any other.
func TestChatMLRoles(t *testing.T) {
	c := goldenEpisode(t)
	type run struct{ Role, Text string }
	var got []run
	for i := 0; i < len(c.Tokens); {
		j := i
		for j < len(c.Tokens) && c.Roles[j] == c.Roles[i] {
			j++
		}
		got = append(got, run{table.RoleNames[c.Roles[i]], c.Tok.Decode(c.Tokens[i:j])})
		i = j
	}
	cue := "<|im_start|>assistant\n"
	want := []run{
		{"system", "<|im_start|>system\n" + ChatSystemText + "\n"},
		{"scaffold", "Rules:\nGeneral:\n- Check the receptacles one by one.\nTask-specific:\n- Heat the object in the microwave before you place it."},
		{"system", "<|im_end|>\n"},
		{"task", "<|im_start|>user\nTask: put a hot apple in fridge.\n"},
		{"skill_slate", "Skills you may read:\n- heat-then-place: Heat an object, then put it in a receptacle.\n- clean-then-place: Clean an object in the sink, then put it in a receptacle.\n"},
		{"task", "Observation: You are in the middle of a room. Looking quickly around you, you see a fridge 1 and a microwave 1.<|im_end|>\n"},
		{"observation", cue},
		{"action", "<think>\nA skill on the slate fits this task.\n</think>\n<action>read_skill"},
		{"skill_name", " heat-then-place"},
		{"action", "</action><|im_end|>"},
		{"skill_body", "\n<|im_start|>user\n1. Find the object.\n2. Heat it in the microwave.\n3. Put it in place.<|im_end|>\n"},
		{"observation", cue},
		{"action", answerStep1 + "<|im_end|>"},
		{"observation", "\n<|im_start|>user\nYou arrive at microwave 1. The microwave 1 is closed.<|im_end|>\n" + cue},
		{"action", answerInvalid + "<|im_end|>"},
		{"observation", "\n<|im_start|>user\n" + InvalidAnswer + "<|im_end|>\n" + cue},
		{"action", answerStep2 + "<|im_end|>"},
		{"observation", "\n<|im_start|>user\nYou open the microwave 1. It is empty. Café crème.<|im_end|>\n" + cue},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("role runs (-want +got):\n%s", diff)
	}
	// Only the policy's answers are policy-written: 4 answers' tokens.
	n := 0
	for _, a := range []string{answerRead, answerStep1, answerInvalid, answerStep2} {
		n += len(c.Tok.Encode(a)) + 1
	}
	if c.PolicyTokens() != n {
		t.Errorf("policy tokens %d, want %d", c.PolicyTokens(), n)
	}
	// Removing the scaffold's tokens gives the deployment context.
	var kept []int32
	for i, id := range c.Tokens {
		if c.Roles[i] != table.RoleScaffold {
			kept = append(kept, id)
		}
	}
	d := NewContext(c.Tok)
	d.Format = c.Format
	Begin(d, Prompt{Slate: []SlateEntry{
		{"heat-then-place", "Heat an object, then put it in a receptacle."},
		{"clean-then-place", "Clean an object in the sink, then put it in a receptacle."},
	}, Goal: "put a hot apple in fridge.", Observation: "You are in the middle of a room. Looking quickly around you, you see a fridge 1 and a microwave 1."})
	if diff := cmp.Diff(d.Tokens, kept[:len(d.Tokens)]); diff != "" {
		t.Errorf("prompt without the scaffold's tokens differs from the deployment prompt:\n%s", diff)
	}
}

// TestChatMLCutAnswer: an answer cut at the token cap (no end token) is
// closed by the harness with <|im_end|>, which is not policy-written.
func TestChatMLCutAnswer(t *testing.T) {
	tok := qwen(t)
	f, _ := NewChatML(tok, nil)
	c := NewContext(tok)
	c.Format = f
	Begin(c, Prompt{Goal: "g", Observation: "o"})
	ids := tok.Encode("<action>go to")
	AddAction(c, ids, nil)
	n := c.Len()
	Observe(c, "x")
	if c.Tokens[n] != f.End || table.PolicyWritten(c.Roles[n]) {
		t.Errorf("token after a cut answer: %d (role %s), want <|im_end|> not policy-written", c.Tokens[n], table.RoleNames[c.Roles[n]])
	}
	if c.PolicyTokens() != len(ids) {
		t.Errorf("policy tokens %d, want %d", c.PolicyTokens(), len(ids))
	}
}

func TestParseAnswer(t *testing.T) {
	cases := []struct {
		in     string
		action string
		name   string
		ok     bool
	}{
		{"<action>go to fridge 1</action>", "go to fridge 1", "", true},
		{"<think>\nhm\n</think>\n<action> open microwave 1 </action>", "open microwave 1", "", true},
		{"  <think>a</think>x<action>read_skill heat-then-place</action> trailing", "read_skill heat-then-place", "heat-then-place", true},
		{"<action>read_skill\theat</action>", "read_skill\theat", "heat", true},
		{"<action>read_skill</action>", "read_skill", "", true},
		{"<action>read_skill a b</action>", "read_skill a b", "a b", true},
		{"<action>read_skill. ladle 1</action>", "read_skill. ladle 1", "", true},
		{"go to fridge 1", "", "", false},
		{"<think>no end <action>go</action>", "", "", false},
		{"<action>go to", "", "", false},
		{"<action>  </action>", "", "", false},
		{"<action>a<action>b</action>", "", "", false},
		{"", "", "", false},
		{"<think>x</think>", "", "", false},
		{"<action>café \xe4\xbd</action>", "café \xe4\xbd", "", true},
	}
	for _, c := range cases {
		action, span, ok := ParseAnswer(c.in)
		name := c.in[span[0]:span[1]]
		if action != c.action || name != c.name || ok != c.ok {
			t.Errorf("ParseAnswer(%q) = %q, name %q, %v; want %q, %q, %v", c.in, action, name, ok, c.action, c.name, c.ok)
		}
	}
}

func TestNewChatMLNeedsChatTokens(t *testing.T) {
	tok := newWordTok("hello")
	_, err := NewChatML(tok, nil)
	if err == nil || !strings.Contains(err.Error(), "<|im_start|>") {
		t.Errorf("word tokenizer: %v", err)
	}
	f, err := NewChatML(qwen(t), []int32{151645, 151643, -1, 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int32{151645, 151643}, f.Stop); diff != "" {
		t.Errorf("stop ids (-want +got):\n%s", diff)
	}
}

// TestChatMLNoThinking: with NoThinking (Qwen3's enable_thinking false)
// every assistant cue closes an empty thinking block, as the Qwen3 chat
// template's generation prompt does: <think> and </think> are one token
// each, the block is harness-written (role observation), the whole text
// encodes to the context's ids, and an answer after it parses.
func TestChatMLNoThinking(t *testing.T) {
	tok := qwen(t)
	f, err := NewChatML(tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.NoThinking = true
	c := NewContext(tok)
	c.Format = f
	Begin(c, Prompt{Goal: "put a hot apple in fridge.", Observation: "You are in a room."})
	answer := "<action>go to fridge 1</action>"
	AddAction(c, append(tok.Encode(answer), f.End), nil)
	Observe(c, "You arrive at fridge 1.")
	cue := "<|im_start|>assistant\n<think>\n\n</think>\n\n"
	text := tok.Decode(c.Tokens)
	if n := strings.Count(text, cue); n != 2 {
		t.Errorf("%d cues with an empty thinking block in:\n%s", n, text)
	}
	if !strings.HasSuffix(text, "<|im_end|>\n"+cue) {
		t.Errorf("the context does not end with the cue:\n%s", text)
	}
	if diff := cmp.Diff(tok.Encode(text), c.Tokens); diff != "" {
		t.Errorf("the context's ids differ from the whole text's (-whole +context):\n%s", diff)
	}
	open, _ := tok.TokenID("<think>")
	shut, _ := tok.TokenID("</think>")
	var seen int
	for i, id := range c.Tokens {
		if (id == open || id == shut) && c.Roles[i] != table.RoleSystem { // the system text names the tags too
			seen++
			if c.Roles[i] != table.RoleObservation {
				t.Errorf("token %d (%s) has role %s, want observation", i, tok.Decode([]int32{id}), table.RoleNames[c.Roles[i]])
			}
		}
	}
	if seen != 4 {
		t.Errorf("%d <think> and </think> tokens, want 4", seen)
	}
	if a, ok := c.Parse(answer); !ok || a != "go to fridge 1" {
		t.Errorf("answer parsed as %q, %v", a, ok)
	}
	if c.PolicyTokens() != len(tok.Encode(answer))+1 {
		t.Errorf("policy tokens %d, want the answer's %d", c.PolicyTokens(), len(tok.Encode(answer))+1)
	}
}

package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/toolcall"
)

// testTools are two household-like tools and read_skill.
func testTools(t *testing.T) *toolcall.Set {
	t.Helper()
	s, err := toolcall.NewSet([]toolcall.Tool{
		{Name: "go_to", Description: "Go to a place.", Action: "go to {place}",
			Parameters: json.RawMessage(`{"type": "object", "properties": {"place": {"type": "string", "description": "a place, e.g. fridge 1"}}, "required": ["place"]}`)},
		{Name: "open", Description: "Open a receptacle.", Action: "open {place}",
			Parameters: json.RawMessage(`{"type": "object", "properties": {"place": {"type": "string"}}, "required": ["place"]}`)},
		ReadSkillTool,
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// toolChat makes the tools format with a shipped template of
// lib/chattemplate's testdata.
func toolChat(t *testing.T, template string, noThinking bool) *ToolChat {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "chattemplate", "testdata", template))
	if err != nil {
		t.Fatal(err)
	}
	chat, err := NewChatML(qwen(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	chat.NoThinking = noThinking
	f, err := NewToolChat(chat, string(src), testTools(t))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// Answers of the tool episode: a read (with thinking), a step, an answer
// that is no call, a call that does not fit its schema, and a step.
const (
	toolRead     = "<think>\nA skill on the slate fits.\n</think>\n<tool_call>\n{\"name\": \"read_skill\", \"arguments\": {\"name\": \"heat-then-place\"}}\n</tool_call>"
	toolStep1    = "<tool_call>\n{\"name\": \"go_to\", \"arguments\": {\"place\": \"microwave 1\"}}\n</tool_call>"
	toolNoCall   = "I should open the microwave."
	toolBadCall  = "<tool_call>\n{\"name\": \"open\", \"arguments\": {\"door\": \"microwave 1\"}}\n</tool_call>"
	toolStep2    = "<tool_call>\n{\"name\": \"open\", \"arguments\": {\"place\": \"microwave 1\"}}\n</tool_call>"
	toolScaffold = "General:\n- Check the receptacles one by one."
)

var toolSlate = []SlateEntry{
	{"heat-then-place", "Heat an object, then put it in a receptacle."},
	{"clean-then-place", "Clean an object in the sink, then put it in a receptacle."},
}

// toolEpisode plays the tool episode under f; it returns the context and
// the actions the answers parsed to ("" for an invalid one).
func toolEpisode(t *testing.T, f *ToolChat) (*Context, []string) {
	t.Helper()
	c := NewContext(qwen(t))
	c.Format = f
	Begin(c, Prompt{Scaffold: toolScaffold, Slate: toolSlate, Goal: "put a hot apple in fridge.",
		Observation: "You are in the middle of a room. You see a fridge 1 and a microwave 1."})
	var actions []string
	for _, a := range []string{toolRead, toolStep1, toolNoCall, toolBadCall, toolStep2} {
		AddAction(c, append(c.Tok.Encode(a), f.Chat.End), nil)
		action, ok := c.Parse(a)
		actions = append(actions, action)
		switch {
		case !ok:
			Invalid(c)
		case strings.HasPrefix(action, ReadVerb):
			SkillBody(c, "1. Find the object.\n2. Heat it in the microwave.")
		default:
			Observe(c, "You did "+action+".")
		}
	}
	return c, actions
}

// TestToolChatGolden: under Qwen2.5's template as shipped, the prompt
// shows the tools through the template's tools block, observations come
// back as tool responses; the text is the checked-in text, and the
// context's ids are those the whole text encodes to.
func TestToolChatGolden(t *testing.T) {
	c, actions := toolEpisode(t, toolChat(t, "qwen2.5.jinja", false))
	text := c.Tok.Decode(c.Tokens)
	path := filepath.Join("testdata", "toolchat-episode.txt")
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
		t.Errorf("rendered episode differs from %s (-want +got); run go test -update:\n%s", path, diff)
	}
	for _, s := range []string{"# Tools", "<tools>\n{\"type\": \"function\", \"function\": {\"name\": \"go_to\"", "<tool_response>\nYou did go to microwave 1.\n</tool_response>"} {
		if !strings.Contains(text, s) {
			t.Errorf("episode lacks %q", s)
		}
	}
	if diff := cmp.Diff(c.Tok.Encode(text), c.Tokens); diff != "" {
		t.Errorf("context ids differ from the whole text's (-whole +context):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"read_skill heat-then-place", "go to microwave 1", "", "", "open microwave 1"}, actions); diff != "" {
		t.Errorf("parsed actions (-want +got):\n%s", diff)
	}
}

// TestToolChatRoles: the template's text is never policy-written, the
// scaffold is its own system message, the slate its lines, and of the
// read_skill call exactly the tokens of the skill's name are skill_name.
func TestToolChatRoles(t *testing.T) {
	c, _ := toolEpisode(t, toolChat(t, "qwen2.5.jinja", false))
	runs := map[string][]string{}
	for i := 0; i < len(c.Tokens); {
		j := i
		for j < len(c.Tokens) && c.Roles[j] == c.Roles[i] {
			j++
		}
		name := table.RoleNames[c.Roles[i]]
		runs[name] = append(runs[name], c.Tok.Decode(c.Tokens[i:j]))
		i = j
	}
	if diff := cmp.Diff([]string{"heat-then-place"}, runs["skill_name"]); diff != "" {
		t.Errorf("skill_name runs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"<|im_start|>system\nRules:\n" + toolScaffold + "<|im_end|>\n"}, runs["scaffold"]); diff != "" {
		t.Errorf("scaffold runs (-want +got):\n%s", diff)
	}
	wantSlate := "Skills you may read:\n- heat-then-place: Heat an object, then put it in a receptacle.\n- clean-then-place: Clean an object in the sink, then put it in a receptacle.\n"
	if diff := cmp.Diff([]string{wantSlate}, runs["skill_slate"]); diff != "" {
		t.Errorf("skill_slate runs (-want +got):\n%s", diff)
	}
	if len(runs["system"]) != 1 || !strings.Contains(runs["system"][0], "</tools>") {
		t.Errorf("system runs %q", runs["system"])
	}
	for _, r := range append(runs["action"], runs["skill_name"]...) {
		if strings.Contains(r, "<|im_start|>") || strings.Contains(r, "<tool_response>") {
			t.Errorf("template text in a policy-written run %q", r)
		}
	}
	n := 0
	for _, a := range []string{toolRead, toolStep1, toolNoCall, toolBadCall, toolStep2} {
		n += len(c.Tok.Encode(a)) + 1
	}
	if c.PolicyTokens() != n {
		t.Errorf("policy tokens %d, want the answers' %d", c.PolicyTokens(), n)
	}
	body := strings.Join(runs["skill_body"], "|")
	if !strings.Contains(body, "<tool_response>\n1. Find the object.") {
		t.Errorf("skill body runs %q", body)
	}
	obs := strings.Join(runs["observation"], "|")
	if !strings.Contains(obs, "<|im_start|>user\n"+ToolInvalidAnswer+"<|im_end|>") || strings.Count(obs, "<|im_start|>assistant\n") != 6 {
		t.Errorf("observation runs %q", obs)
	}
	// Without the scaffold's tokens the context is the deployment prompt.
	var kept []int32
	for i, id := range c.Tokens {
		if c.Roles[i] != table.RoleScaffold {
			kept = append(kept, id)
		}
	}
	d := NewContext(c.Tok)
	d.Format = c.Format
	Begin(d, Prompt{Slate: toolSlate, Goal: "put a hot apple in fridge.",
		Observation: "You are in the middle of a room. You see a fridge 1 and a microwave 1."})
	if diff := cmp.Diff(d.Tokens, kept[:len(d.Tokens)]); diff != "" {
		t.Errorf("prompt without the scaffold's tokens differs from the deployment prompt:\n%s", diff)
	}
}

// TestToolChatReadNameRoles: only a valid read_skill call's name argument
// is skill_name; a read_skill call with an undeclared argument, a call of
// another tool whose argument looks like a name, and a read with an empty
// name give none.
func TestToolChatReadNameRoles(t *testing.T) {
	f := toolChat(t, "qwen2.5.jinja", false)
	tok := qwen(t)
	cases := []struct{ answer, name string }{
		{"<tool_call>{\"name\": \"read_skill\", \"arguments\": {\"name\": \" clean-then-place \"}}</tool_call>", "clean-then-place"},
		{"<tool_call>{\"name\": \"read_skill\", \"arguments\": {\"name\": \"x\", \"why\": \"y\"}}</tool_call>", ""},
		{"<tool_call>{\"name\": \"go_to\", \"arguments\": {\"place\": \"heat-then-place\"}}</tool_call>", ""},
		{"<tool_call>{\"name\": \"read_skill\", \"arguments\": {\"name\": \"\"}}</tool_call>", ""},
		{"<action>read_skill heat-then-place</action>", ""},
	}
	for _, c := range cases {
		ids := append(tok.Encode(c.answer), f.Chat.End)
		roles := f.AnswerRoles(tok, ids)
		var named []int32
		for i, r := range roles {
			if r == table.RoleSkillName {
				named = append(named, ids[i])
			} else if r != table.RoleAction {
				t.Errorf("%q: token %d has role %d", c.answer, i, r)
			}
		}
		if got := strings.TrimSpace(tok.Decode(named)); got != c.name {
			t.Errorf("%q: skill_name tokens %q, want %q", c.answer, got, c.name)
		}
	}
}

// TestToolChatQwen3: under Qwen3's template as shipped with
// enable_thinking false, every cue is the template's generation prompt
// with its empty thinking block, and tool responses are user turns.
func TestToolChatQwen3(t *testing.T) {
	c, actions := toolEpisode(t, toolChat(t, "qwen3.jinja", true))
	text := c.Tok.Decode(c.Tokens)
	if n := strings.Count(text, "<|im_start|>assistant\n<think>\n\n</think>\n\n"); n != 6 {
		t.Errorf("%d cues with an empty thinking block, want 6:\n%s", n, text)
	}
	if !strings.Contains(text, "<|im_end|>\n<|im_start|>user\n<tool_response>\nYou did go to microwave 1.\n</tool_response><|im_end|>\n") {
		t.Errorf("no tool response turn in:\n%s", text)
	}
	if diff := cmp.Diff(c.Tok.Encode(text), c.Tokens); diff != "" {
		t.Errorf("context ids differ from the whole text's (-whole +context):\n%s", diff)
	}
	if actions[4] != "open microwave 1" {
		t.Errorf("actions %q", actions)
	}
}

// TestToolChatAnswer: a text policy's action is written as the call the
// template would write, and reads back as the action; the marker of a
// history window is a user message.
func TestToolChatAnswer(t *testing.T) {
	f := toolChat(t, "qwen2.5.jinja", false)
	c := NewContext(qwen(t))
	c.Format = f
	Begin(c, Prompt{Goal: "g", Observation: "o"})
	text := AddAnswer(c, "go to fridge 1")
	if a, ok := c.Parse(text); !ok || a != "go to fridge 1" {
		t.Errorf("AddAnswer wrote %q, which reads as %q, %v", text, a, ok)
	}
	if got := c.Tok.Decode(c.Marker()); got != "<|im_start|>user\n"+ChatMarker+"<|im_end|>\n" {
		t.Errorf("marker %q", got)
	}
	if InvalidText(c) != ToolInvalidAnswer {
		t.Errorf("invalid reply %q", InvalidText(c))
	}
}

// TestNewToolChatRefuses: a template that cannot render the tools, or
// that rewrites what it rendered before, is refused.
func TestNewToolChatRefuses(t *testing.T) {
	chat, _ := NewChatML(qwen(t), nil)
	for tpl, want := range map[string]string{
		"{% for m in messages %}{{ m.content }}{% endfor %}{{ tools|wordcount }}": "wordcount",
		"{{ messages|length }}": "changes the text before it",
		"{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}": "does not show tool go_to",
		"{% for t in tools %}{{ t|tojson }}{% endfor %}{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}":                   "no generation prompt",
		"{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content|upper }}<|im_end|>\n{% endfor %}":                                                           "not written as given",
	} {
		if _, err := NewToolChat(chat, tpl, testTools(t)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", tpl, err, want)
		}
	}
}

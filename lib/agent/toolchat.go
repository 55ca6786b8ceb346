package agent

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/pats-rl/pats/lib/chattemplate"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
	"github.com/pats-rl/pats/lib/toolcall"
)

// ActionFormatNames are the action formats, as --action-format takes them:
// tags, an action inside <action> </action> (every prompt format), or
// tools, a tool call through the checkpoint's chat template (chatml only).
var ActionFormatNames = []string{"tags", "tools"}

// ToolSystemText is the system message under the tools action format.
const ToolSystemText = "You are an agent in a text environment. Each turn, you may first think inside " +
	"<think> </think>, then call exactly one of the tools."

// ToolInvalidAnswer is the harness's reply (a user message) to an answer
// that holds no valid tool call under the tools action format.
const ToolInvalidAnswer = "Invalid answer: call exactly one of the tools inside <tool_call> </tool_call>, with arguments that fit its parameters."

// ReadSkillTool is the tool that reads a skill from the slate: it is
// offered, after the environment's own, whenever a slate is shown; its
// call stands for the read action, read_skill NAME.
var ReadSkillTool = toolcall.Tool{
	Name:        ReadVerb,
	Description: "Read one of the skills listed under \"Skills you may read\": its instructions come back.",
	Parameters:  json.RawMessage(`{"type": "object", "properties": {"name": {"type": "string", "description": "the skill's name, as listed"}}, "required": ["name"]}`),
	Action:      ReadVerb + " {name}",
}

// ToolChat is the tools action format under ChatML: the environment's
// actions are tools, shown by the checkpoint's own chat template through
// its tools variable, and the policy answers with one
// <tool_call>{"name": ..., "arguments": ...}</tool_call>, which Tools
// reads into the action. Observations and skill bodies come back as tool
// responses (the template's tool role), an invalid answer's reply as a
// user message, each as the template writes it after an assistant turn.
//
// Every harness-written part is the template's text: the prompt is
// rendered message by message (system; the scaffold, in training, as a
// second system message; the user message with the task, the slate and
// the first observation; the generation prompt, the cue), each part
// encoded on its own with its role (system, scaffold, task with the
// slate's lines skill_slate, observation). A tool response is what the
// template adds after an assistant message for it. The answer's ids are
// the ids the policy wrote, never re-rendered: the tokens that overlap
// the text of read_skill's name argument get role skill_name, every other
// answer token role action.
type ToolChat struct {
	Chat     *ChatML // the chat tokens; NoThinking renders with enable_thinking false
	Template *chattemplate.Template
	Tools    *toolcall.Set
	tools    []any // Tools as the template's tools variable
}

// NewToolChat makes the format and renders a trial episode with it: a
// template that fails with tools, does not write the messages one after
// the other (each render a prefix of the next), rewrites the user
// message, shows no tool's name in the system message or writes no
// generation prompt is an error.
func NewToolChat(chat *ChatML, template string, tools *toolcall.Set) (*ToolChat, error) {
	t, err := chattemplate.Parse(template)
	if err != nil {
		return nil, fmt.Errorf("chat template: %v", err)
	}
	v, err := tools.Value()
	if err != nil {
		return nil, err
	}
	f := &ToolChat{Chat: chat, Template: t, Tools: tools, tools: v}
	parts, err := f.prompt(Prompt{Scaffold: "z", Slate: []SlateEntry{{"s", "d"}}, Goal: "g", Observation: "o"})
	if err != nil {
		return nil, err
	}
	if len(parts) != 6 { // system, scaffold, task, slate, task, cue
		return nil, fmt.Errorf("chat template: the user message is not written as given")
	}
	for _, tool := range tools.Tools() {
		if !strings.Contains(parts[0].text, tool.Name) {
			return nil, fmt.Errorf("chat template: the system message does not show tool %s (the template renders no tools block)", tool.Name)
		}
	}
	if parts[len(parts)-1].text == "" {
		return nil, fmt.Errorf("chat template: writes no generation prompt (the assistant cue)")
	}
	if _, _, err := f.reply("tool", "o"); err != nil {
		return nil, err
	}
	if _, _, err := f.reply("user", ToolInvalidAnswer); err != nil {
		return nil, err
	}
	return f, nil
}

// Name implements Format: the prompt format, chatml.
func (f *ToolChat) Name() string { return "chatml" }

func msg(role, content string) *chattemplate.Map {
	return chattemplate.NewMap("role", role, "content", content)
}

// render renders messages with the format's tools.
func (f *ToolChat) render(msgs []any, gen bool) (string, error) {
	vars := map[string]any{"messages": msgs, "tools": f.tools, "add_generation_prompt": gen}
	if f.Chat.NoThinking {
		vars["enable_thinking"] = false
	}
	s, err := f.Template.Render(vars)
	if err != nil {
		return "", fmt.Errorf("chat template: %v", err)
	}
	return s, nil
}

// part is a run of the rendered text and its role.
type part struct {
	text string
	role int8
}

// prompt renders the prompt as parts: each message's text is what one
// more message adds to the render before it.
func (f *ToolChat) prompt(p Prompt) ([]part, error) {
	var msgs []any
	var parts []part
	done := ""
	add := func(m *chattemplate.Map, gen bool, role int8) (string, error) {
		if m != nil {
			msgs = append(msgs, m)
		}
		s, err := f.render(msgs, gen)
		if err != nil {
			return "", err
		}
		if !strings.HasPrefix(s, done) {
			return "", fmt.Errorf("chat template: rendering one more message changes the text before it")
		}
		d := s[len(done):]
		done = s
		parts = append(parts, part{d, role})
		return d, nil
	}
	if _, err := add(msg("system", ToolSystemText), false, table.RoleSystem); err != nil {
		return nil, err
	}
	if p.Scaffold != "" {
		if _, err := add(msg("system", "Rules:\n"+p.Scaffold), false, table.RoleScaffold); err != nil {
			return nil, err
		}
	}
	head, slate := "Task: "+p.Goal+"\n", ""
	if len(p.Slate) > 0 {
		var b strings.Builder
		b.WriteString("Skills you may read:\n")
		for _, s := range p.Slate {
			b.WriteString("- " + s.Name + ": " + s.Description + "\n")
		}
		slate = b.String()
	}
	content := head + slate + "Observation: " + p.Observation
	d, err := add(msg("user", content), false, table.RoleTask)
	if err != nil {
		return nil, err
	}
	if at := strings.Index(d, content); slate != "" && at >= 0 { // else the slate keeps role task (NewToolChat refuses a template that does this to its trial)
		at += len(head)
		parts = append(parts[:len(parts)-1], part{d[:at], table.RoleTask}, part{slate, table.RoleSkillSlate},
			part{d[at+len(slate):], table.RoleTask})
	}
	if _, err := add(nil, true, table.RoleObservation); err != nil {
		return nil, err
	}
	return parts, nil
}

// sentinel stands for the policy's answer in the renders of a reply.
const sentinel = "\x00answer\x00"

// reply renders what the template writes after an assistant turn for one
// more message (role tool or user): the message, from just after the
// answer's end token, and the cue.
func (f *ToolChat) reply(role, content string) (message, cue string, err error) {
	msgs := []any{msg("system", ToolSystemText), msg("user", "u"), msg("assistant", sentinel), msg(role, content)}
	s, err := f.render(msgs, false)
	if err != nil {
		return "", "", err
	}
	g, err := f.render(msgs, true)
	if err != nil {
		return "", "", err
	}
	if !strings.HasPrefix(g, s) {
		return "", "", fmt.Errorf("chat template: the generation prompt changes the text before it")
	}
	a := strings.Index(s, sentinel)
	if a < 0 {
		return "", "", fmt.Errorf("chat template: an assistant message is not written as given")
	}
	e := strings.Index(s[a:], ImEnd)
	if e < 0 {
		return "", "", fmt.Errorf("chat template: an assistant message does not end with %s", ImEnd)
	}
	from := a + e + len(ImEnd)
	return s[from:], g[len(s):], nil
}

// Begin implements Format.
func (f *ToolChat) Begin(c *Context, p Prompt) {
	parts, err := f.prompt(p)
	if err != nil { // NewToolChat rendered a trial prompt; texts cannot make it fail
		f.Chat.Begin(c, p)
		return
	}
	for i, pt := range parts {
		if i == len(parts)-1 {
			c.markCue()
		}
		c.Add(pt.text, pt.role)
	}
}

// turn writes the template's reply after the answer: the answer's end
// token when it was cut, the message (role), the cue.
func (f *ToolChat) turn(c *Context, msgRole, text string, role int8) {
	m, cue, err := f.reply(msgRole, text)
	if err != nil { // as in Begin
		f.Chat.turn(c, text, role)
		return
	}
	if n := len(c.Tokens); n > 0 && !f.Chat.isEnd(c.Tokens[n-1]) {
		c.AddIDs([]int32{f.Chat.End}, role, nil)
	}
	if rest, ok := strings.CutPrefix(m, "\n"); ok {
		c.Add("\n", role)
		m = rest
	}
	c.markBody()
	c.Add(m, role)
	c.markCue()
	c.Add(cue, table.RoleObservation)
}

// Observe implements Format: a tool response.
func (f *ToolChat) Observe(c *Context, obs string) { f.turn(c, "tool", obs, table.RoleObservation) }

// SkillBody implements Format: the body as read_skill's tool response.
func (f *ToolChat) SkillBody(c *Context, body string) { f.turn(c, "tool", body, table.RoleSkillBody) }

// Invalid implements Format: a user message with ToolInvalidAnswer.
func (f *ToolChat) Invalid(c *Context) { f.turn(c, "user", ToolInvalidAnswer, table.RoleObservation) }

// InvalidText implements the reply text rollout records for an invalid
// answer.
func (f *ToolChat) InvalidText() string { return ToolInvalidAnswer }

// AnswerText implements Format: the call that stands for action.
func (f *ToolChat) AnswerText(action string) string { return f.Tools.Answer(action) }

// Answer implements Format: AnswerText's tokens and <|im_end|>.
func (f *ToolChat) Answer(tok tokenizer.Tokenizer, action string) []int32 {
	return append(tok.Encode(f.AnswerText(action)), f.Chat.End)
}

// Ends implements Format.
func (f *ToolChat) Ends(tokenizer.Tokenizer) []int32 { return f.Chat.Stop }

// Parse implements Format: the action of the answer's one valid call.
func (f *ToolChat) Parse(answer string) (string, bool) {
	c, err := f.Tools.Parse(answer)
	return c.Action, err == nil
}

// AnswerRoles implements Format: every token is an execution token
// except those that overlap the text of the name argument of a valid
// read_skill call (white space at its ends left out) that reads a skill
// (ReadSpan of its action, with a name).
func (f *ToolChat) AnswerRoles(tok tokenizer.Tokenizer, ids []int32) []int8 {
	text, offs := f.Chat.answerText(tok, ids)
	return nameRoles(offs, f.readName(text))
}

// readName is the byte span in text of the name a valid read_skill call
// reads (its name argument's text, white space at its ends left out), or
// an empty span.
func (f *ToolChat) readName(text string) [2]int {
	call, err := f.Tools.Parse(text)
	if err != nil || call.Name != ReadVerb {
		return [2]int{}
	}
	if sp, ok := ReadSpan(call.Action); !ok || sp[0] == sp[1] {
		return [2]int{}
	}
	name, ok := call.Spans["name"]
	if !ok {
		return [2]int{}
	}
	v := text[name[0]:name[1]]
	lo := name[0] + len(v) - len(strings.TrimLeftFunc(v, unicode.IsSpace))
	hi := name[0] + len(strings.TrimRightFunc(v, unicode.IsSpace))
	return [2]int{lo, hi}
}

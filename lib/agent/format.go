package agent

import (
	"fmt"
	"strings"

	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// Format is how an episode's context is written: the prompt, the harness's
// turns (observations, skill bodies, the answer to an invalid answer), the
// tokens a text policy writes for an action, the role of each token the
// policy writes, and how its answer is read as an action.
type Format interface {
	// Name is builtin or chatml (the --prompt-format values).
	Name() string
	// Begin writes the prompt up to the point where the policy writes.
	Begin(c *Context, p Prompt)
	// Observe writes the environment's answer and the cue for the next
	// answer.
	Observe(c *Context, obs string)
	// SkillBody writes the body of a skill that was read, then the cue.
	SkillBody(c *Context, body string)
	// Invalid writes the harness's reply to an answer that held no
	// well-formed action, then the cue.
	Invalid(c *Context)
	// AnswerText is the text a text policy writes for action (Parse gives
	// action back), and Answer its ids, end included.
	AnswerText(action string) string
	Answer(tok tokenizer.Tokenizer, action string) []int32
	// AnswerRoles gives the role of each policy-written token.
	AnswerRoles(tok tokenizer.Tokenizer, ids []int32) []int8
	// Ends are the ids that end an answer.
	Ends(tok tokenizer.Tokenizer) []int32
	// Parse reads the action out of an answer's text (without its end
	// token); ok is false when the answer holds no well-formed action.
	Parse(answer string) (action string, ok bool)
}

// FormatNames are the prompt formats, as --prompt-format takes them.
var FormatNames = []string{"builtin", "chatml"}

// InvalidAnswer is the harness's reply to an answer without a well-formed
// action (chatml).
const InvalidAnswer = "Invalid answer: write your action inside <action> </action>."

// WordLevelFormat is the toolkit's own format for its word-level models
// (the --prompt-format value builtin): one special token opens each part
// (see the package documentation); every answer is an action.
type WordLevelFormat struct{}

// Name implements Format: "builtin", the --prompt-format value (and a
// checkpoint's agent.json prompt_format) that selects it.
func (WordLevelFormat) Name() string { return "builtin" }

// Begin implements Format: system, scaffold, skill slate, task and first
// observation, each under its special token and role, then the action cue.
func (WordLevelFormat) Begin(c *Context, p Prompt) {
	c.AddSpecial(tokenizer.BOS, table.RoleSystem)
	c.AddSpecial(tokenizer.System, table.RoleSystem)
	c.Add(SystemText, table.RoleSystem)
	if p.Scaffold != "" {
		c.AddSpecial(tokenizer.Scaffold, table.RoleScaffold)
		c.Add(p.Scaffold, table.RoleScaffold)
	}
	if len(p.Slate) > 0 {
		c.AddSpecial(tokenizer.Skills, table.RoleSkillSlate)
		for _, s := range p.Slate {
			c.Add(s.Name+": "+s.Description, table.RoleSkillSlate)
		}
	}
	c.AddSpecial(tokenizer.Task, table.RoleTask)
	c.Add(p.Goal, table.RoleTask)
	c.Add(p.Observation, table.RoleTask)
	c.markCue()
	c.AddSpecial(tokenizer.Act, table.RoleObservation)
}

// Observe implements Format.
func (WordLevelFormat) Observe(c *Context, obs string) {
	c.AddSpecial(tokenizer.Obs, table.RoleObservation)
	c.Add(obs, table.RoleObservation)
	c.markCue()
	c.AddSpecial(tokenizer.Act, table.RoleObservation)
}

// SkillBody implements Format.
func (WordLevelFormat) SkillBody(c *Context, body string) {
	c.markBody()
	c.AddSpecial(tokenizer.Skill, table.RoleSkillBody)
	c.Add(body, table.RoleSkillBody)
	c.markCue()
	c.AddSpecial(tokenizer.Act, table.RoleObservation)
}

// Invalid implements Format (never needed: every builtin answer is an
// action).
func (b WordLevelFormat) Invalid(c *Context) { b.Observe(c, InvalidAnswer) }

// AnswerText implements Format: the action itself.
func (WordLevelFormat) AnswerText(action string) string { return action }

// Answer implements Format: the action's tokens and the end token.
func (WordLevelFormat) Answer(tok tokenizer.Tokenizer, action string) []int32 {
	return EncodeAction(tok, action)
}

// AnswerRoles implements Format (see ActionRoles).
func (WordLevelFormat) AnswerRoles(tok tokenizer.Tokenizer, ids []int32) []int8 {
	return ActionRoles(tok, ids)
}

// Ends implements Format: the end token.
func (WordLevelFormat) Ends(tok tokenizer.Tokenizer) []int32 {
	end, _ := tok.TokenID(tokenizer.End)
	return []int32{end}
}

// Parse implements Format: the whole answer is the action.
func (WordLevelFormat) Parse(answer string) (string, bool) { return answer, true }

// ChatML is the chat format of Qwen2/2.5/3 instruct checkpoints: each
// message is <|im_start|>ROLE\n CONTENT <|im_end|>\n, the policy writes the
// assistant turns and ends each with the end-of-turn token it samples.
// It uses only tokens the checkpoint's vocabulary already has.
type ChatML struct {
	Start, End int32   // <|im_start|>, <|im_end|>
	Stop       []int32 // ids that end an answer (End first)
	// NoThinking makes every cue close an empty thinking block
	// (EmptyThinking), as Qwen3's chat template does with enable_thinking
	// false: the policy answers without thinking.
	NoThinking bool
}

// Chat tokens.
const (
	ImStart = "<|im_start|>"
	ImEnd   = "<|im_end|>"
)

// EmptyThinking is the empty thinking block that Qwen3's chat template
// writes after the assistant cue when thinking is off.
const EmptyThinking = "<think>\n\n</think>\n\n"

// ChatSystemText is the system message under chatml.
const ChatSystemText = "You are an agent in a text environment. Each turn, you may first think inside " +
	"<think> </think>, then write exactly one action inside <action> </action>. " +
	"To read a skill from the list, write <action>read_skill NAME</action>."

// NewChatML reads the chat tokens from tok; eos are further ids that end an
// answer (generation_config.json's eos_token_id), <|im_end|> always does.
// A tokenizer without <|im_start|> or the end-of-turn token <|im_end|> is
// an error.
func NewChatML(tok tokenizer.Tokenizer, eos []int32) (*ChatML, error) {
	start, ok := tok.TokenID(ImStart)
	if !ok {
		return nil, fmt.Errorf("tokenizer has no %s token (chatml needs %s and the end-of-turn token %s)", ImStart, ImStart, ImEnd)
	}
	end, ok := tok.TokenID(ImEnd)
	if !ok {
		return nil, fmt.Errorf("tokenizer has no end-of-turn token %s (chatml needs it)", ImEnd)
	}
	f := &ChatML{Start: start, End: end, Stop: []int32{end}}
	for _, id := range eos {
		if id != end && id >= 0 && int(id) < tok.VocabSize() {
			f.Stop = append(f.Stop, id)
		}
	}
	return f, nil
}

// Name implements Format.
func (*ChatML) Name() string { return "chatml" }

// Begin implements Format. Every run of text of one role ends in a newline
// or before a special token, so encoding the runs one by one gives the
// same ids as encoding the whole text at once.
//
//	<|im_start|>system\n SYSTEM\n                  role system
//	Rules:\n SCAFFOLD                             role scaffold (training only)
//	<|im_end|>\n                                  role system
//	<|im_start|>user\n Task: GOAL\n               role task
//	Skills you may read:\n - NAME: DESC\n ...     role skill_slate (skills on)
//	Observation: OBS<|im_end|>\n                  role task
//	<|im_start|>assistant\n                       role observation (the cue)
func (f *ChatML) Begin(c *Context, p Prompt) {
	c.AddIDs([]int32{f.Start}, table.RoleSystem, nil)
	c.Add("system\n"+ChatSystemText+"\n", table.RoleSystem)
	if p.Scaffold != "" {
		c.Add("Rules:\n"+p.Scaffold, table.RoleScaffold)
	}
	c.AddIDs([]int32{f.End}, table.RoleSystem, nil)
	c.Add("\n", table.RoleSystem)
	c.AddIDs([]int32{f.Start}, table.RoleTask, nil)
	c.Add("user\nTask: "+p.Goal+"\n", table.RoleTask)
	if len(p.Slate) > 0 {
		var b strings.Builder
		b.WriteString("Skills you may read:\n")
		for _, s := range p.Slate {
			b.WriteString("- " + s.Name + ": " + s.Description + "\n")
		}
		c.Add(b.String(), table.RoleSkillSlate)
	}
	c.Add("Observation: "+p.Observation, table.RoleTask)
	c.AddIDs([]int32{f.End}, table.RoleTask, nil)
	c.Add("\n", table.RoleTask)
	f.cue(c)
}

// cue opens the assistant turn; with NoThinking it also writes the empty
// thinking block (harness-written, role observation).
func (f *ChatML) cue(c *Context) {
	c.markCue()
	c.AddIDs([]int32{f.Start}, table.RoleObservation, nil)
	if f.NoThinking {
		c.Add("assistant\n"+EmptyThinking, table.RoleObservation)
		return
	}
	c.Add("assistant\n", table.RoleObservation)
}

// turn writes a user turn of one role after the policy's answer, closing
// the answer first when it stopped without an end token, then the cue.
func (f *ChatML) turn(c *Context, text string, role int8) {
	if n := len(c.Tokens); n > 0 && !f.isEnd(c.Tokens[n-1]) {
		c.AddIDs([]int32{f.End}, role, nil)
	}
	c.Add("\n", role)
	c.markBody()
	c.AddIDs([]int32{f.Start}, role, nil)
	c.Add("user\n"+text, role)
	c.AddIDs([]int32{f.End}, role, nil)
	c.Add("\n", role)
	f.cue(c)
}

func (f *ChatML) isEnd(id int32) bool {
	for _, e := range f.Stop {
		if id == e {
			return true
		}
	}
	return false
}

// Observe implements Format: a user turn with the observation.
func (f *ChatML) Observe(c *Context, obs string) { f.turn(c, obs, table.RoleObservation) }

// SkillBody implements Format: a user turn with the skill's body.
func (f *ChatML) SkillBody(c *Context, body string) { f.turn(c, body, table.RoleSkillBody) }

// Invalid implements Format: a user turn with InvalidAnswer.
func (f *ChatML) Invalid(c *Context) { f.turn(c, InvalidAnswer, table.RoleObservation) }

// AnswerText implements Format: <action>ACTION</action>.
func (f *ChatML) AnswerText(action string) string { return "<action>" + action + "</action>" }

// Answer implements Format: AnswerText's tokens and <|im_end|>.
func (f *ChatML) Answer(tok tokenizer.Tokenizer, action string) []int32 {
	return append(tok.Encode(f.AnswerText(action)), f.End)
}

// Ends implements Format.
func (f *ChatML) Ends(tokenizer.Tokenizer) []int32 { return f.Stop }

// Parse implements Format (see ParseAnswer).
func (f *ChatML) Parse(answer string) (string, bool) {
	a, _, ok := ParseAnswer(answer)
	return a, ok
}

// AnswerRoles implements Format: every token is an execution token (role
// action: the thinking, the tags, the end token) except those that overlap
// the bytes of the skill name in a well-formed <action>read_skill
// NAME</action>, which get role skill_name.
func (f *ChatML) AnswerRoles(tok tokenizer.Tokenizer, ids []int32) []int8 {
	text, offs := f.answerText(tok, ids)
	_, name, ok := ParseAnswer(text)
	if !ok {
		name = [2]int{}
	}
	return nameRoles(offs, name)
}

// answerText is the text of an answer's ids without its end tokens, and
// where each token's bytes start in it (offs[i], offs[len(ids)] the end).
func (f *ChatML) answerText(tok tokenizer.Tokenizer, ids []int32) (string, []int) {
	offs := make([]int, len(ids)+1)
	var b strings.Builder
	for i, id := range ids {
		if !f.isEnd(id) {
			b.WriteString(tok.Decode([]int32{id}))
		}
		offs[i+1] = b.Len()
	}
	return b.String(), offs
}

// nameRoles gives an answer's tokens (offs, as answerText gives them)
// role skill_name where they overlap the byte span name, role action
// elsewhere (everywhere for an empty span).
func nameRoles(offs []int, name [2]int) []int8 {
	roles := make([]int8, len(offs)-1)
	for i := range roles {
		roles[i] = table.RoleAction
		if name[0] < name[1] && offs[i] < name[1] && offs[i+1] > name[0] {
			roles[i] = table.RoleSkillName
		}
	}
	return roles
}

// ParseAnswer reads an answer written under chatml: an optional
// <think>...</think> first, then <action>ACTION</action>. It returns the
// action with surrounding white space removed and, when the action is
// read_skill NAME, the byte span of NAME in answer (else an empty span).
// An answer with no <action>, an unclosed <think> or </action>, an empty
// action or a second <action> inside the first holds no well-formed
// action: ok is false. Text between </think> and <action> and after
// </action> is ignored.
func ParseAnswer(answer string) (action string, name [2]int, ok bool) {
	from := 0
	lead := len(answer) - len(strings.TrimLeft(answer, " \t\r\n"))
	if strings.HasPrefix(answer[lead:], "<think>") {
		k := strings.Index(answer[lead:], "</think>")
		if k < 0 {
			return "", name, false
		}
		from = lead + k + len("</think>")
	}
	a := strings.Index(answer[from:], "<action>")
	if a < 0 {
		return "", name, false
	}
	a += from + len("<action>")
	n := strings.Index(answer[a:], "</action>")
	if n < 0 {
		return "", name, false
	}
	content := answer[a : a+n]
	if strings.Contains(content, "<action>") {
		return "", name, false
	}
	action = strings.TrimSpace(content)
	if action == "" {
		return "", name, false
	}
	if sp, isRead := ReadSpan(content); isRead && sp[0] < sp[1] {
		name = [2]int{a + sp[0], a + sp[1]}
	}
	return action, name, true
}

package agent

import (
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// SystemText is the fixed instruction at the start of every context.
const SystemText = "you are an agent in a text world. after each cue write one action and end it. " +
	"to read a skill write read_skill and its name."

// ReadVerb is the action verb that reads a skill from the slate.
const ReadVerb = "read_skill"

// SlateEntry is one candidate skill as the slate shows it.
type SlateEntry struct {
	Name        string
	Description string
}

// Prompt is what comes before the first action.
type Prompt struct {
	Scaffold    string       // rendered scaffold z for the task's type; empty at deployment
	Slate       []SlateEntry // candidate skills; empty without skills
	Goal        string
	Observation string // first observation
}

// Begin writes the prompt into c in c's format: system, scaffold, skill
// slate, task and first observation, then the action cue. Everything before
// the first action is shared by a group's episodes (same task, same
// scaffold, same slate).
func Begin(c *Context, p Prompt) { c.format().Begin(c, p) }

// Observe appends the environment's answer to the last action and the cue
// for the next one.
func Observe(c *Context, obs string) { c.format().Observe(c, obs) }

// SkillBody appends the body of a skill that was read, then the action cue,
// and notes where the body's message lies (Bodies): under a history window
// a body read after the prompt stays in view once its turn is dropped.
func SkillBody(c *Context, body string) {
	c.msgAt = c.Len()
	c.format().SkillBody(c, body)
	c.bodies = append(c.bodies, Span{At: c.msgAt, End: c.cueAt})
}

// Invalid appends the reply to an answer without a well-formed action,
// then the action cue.
func Invalid(c *Context) { c.format().Invalid(c) }

// InvalidText is the text of c's reply to an answer without a
// well-formed action (rollout records it as the turn's observation):
// InvalidAnswer, or ToolInvalidAnswer under the tools action format.
func InvalidText(c *Context) string {
	if t, ok := c.format().(interface{ InvalidText() string }); ok {
		return t.InvalidText()
	}
	return InvalidAnswer
}

// ActionRoles gives the role of each token of a policy-written action
// (ids, ending with the end token unless it was cut): the tokens over the
// name of a read action (ReadSpan, on the text the tokens before the end
// token decode to) name a skill (RoleSkillName); every other token, the
// verb and the end token included, is an execution token (RoleAction).
func ActionRoles(tok tokenizer.Tokenizer, ids []int32) []int8 {
	roles := make([]int8, len(ids))
	for i := range roles {
		roles[i] = table.RoleAction
	}
	n := len(ids)
	if end, ok := tok.TokenID(tokenizer.End); ok && n > 0 && ids[n-1] == end {
		n--
	}
	// offs[i] is where token i's text (with the space before it) starts:
	// the word-level Decode of a prefix is a prefix of the whole one.
	offs := make([]int, n+1)
	for i := 1; i <= n; i++ {
		offs[i] = len(tok.Decode(ids[:i]))
	}
	span, ok := ReadSpan(tok.Decode(ids[:n]))
	if !ok || span[0] == span[1] {
		return roles
	}
	for i := 0; i < n; i++ {
		if offs[i] < span[1] && offs[i+1] > span[0] {
			roles[i] = table.RoleSkillName
		}
	}
	return roles
}

// AddAction appends a policy-written answer (ids ending with an end token,
// unless it was cut) with the roles of c's format and behaviour
// log-probabilities (nil: zeros).
func AddAction(c *Context, ids []int32, logprobs []float32) {
	addAnswer(c, ids, c.format().AnswerRoles(c.Tok, ids), logprobs)
}

func addAnswer(c *Context, ids []int32, roles []int8, logprobs []float32) {
	c.recordTurn()
	for i, id := range ids {
		var lp float32
		if logprobs != nil {
			lp = logprobs[i]
		}
		c.Tokens = append(c.Tokens, id)
		c.Roles = append(c.Roles, roles[i])
		c.Logprobs = append(c.Logprobs, lp)
	}
}

// EncodeAction gives the ids a text agent's action is written as: the
// action's tokens and the end token.
func EncodeAction(tok tokenizer.Tokenizer, action string) []int32 {
	ids := tok.Encode(action)
	end, _ := tok.TokenID(tokenizer.End)
	return append(ids, end)
}

// AddAnswer appends the answer a text agent writes for action in c's
// format (behaviour log-probabilities 0) and returns its text. Under the
// built-in format, whose tokenizer lower-cases and loses white space and
// words outside its vocabulary, the roles come from action as written
// (ReadSpan on it), not from the text its tokens decode to, so that they
// agree with the read rollout finds in the returned text.
func AddAnswer(c *Context, action string) string {
	f := c.format()
	ids := f.Answer(c.Tok, action)
	roles := f.AnswerRoles(c.Tok, ids)
	if _, builtin := f.(WordLevelFormat); builtin {
		roles = writtenRoles(c.Tok, action, ids)
	}
	addAnswer(c, ids, roles, nil)
	return f.AnswerText(action)
}

// writtenRoles gives the roles of ids, action's tokens and the end token:
// the tokens of the name ReadSpan finds in action are skill-name tokens.
// The name follows white space, so the tokens before it are those of the
// text before it.
func writtenRoles(tok tokenizer.Tokenizer, action string, ids []int32) []int8 {
	roles := make([]int8, len(ids))
	for i := range roles {
		roles[i] = table.RoleAction
	}
	span, ok := ReadSpan(action)
	if !ok || span[0] == span[1] {
		return roles
	}
	from := len(tok.Encode(action[:span[0]]))
	to := from + len(tok.Encode(action[span[0]:span[1]]))
	for i := from; i < to && i < len(ids)-1; i++ {
		roles[i] = table.RoleSkillName
	}
	return roles
}

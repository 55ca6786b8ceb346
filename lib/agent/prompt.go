package agent

import (
	"strings"

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

// ActionRoles gives the role of each token of a policy-written action: the
// tokens after the read verb of a read action name a skill (RoleSkillName);
// every other token, the verb and the end token included, is an execution
// token (RoleAction).
func ActionRoles(tok tokenizer.Tokenizer, ids []int32) []int8 {
	roles := make([]int8, len(ids))
	verb, hasVerb := tok.TokenID(ReadVerb)
	end, _ := tok.TokenID(tokenizer.End)
	naming := false
	for i, id := range ids {
		switch {
		case i == 0 && hasVerb && id == verb:
			roles[i] = table.RoleAction
			naming = true
		case naming && id != end:
			roles[i] = table.RoleSkillName
		default:
			roles[i] = table.RoleAction
		}
	}
	return roles
}

// AddAction appends a policy-written answer (ids ending with an end token,
// unless it was cut) with the roles of c's format and behaviour
// log-probabilities (nil: zeros).
func AddAction(c *Context, ids []int32, logprobs []float32) {
	roles := c.format().AnswerRoles(c.Tok, ids)
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
// format (behaviour log-probabilities 0) and returns its text.
func AddAnswer(c *Context, action string) string {
	f := c.format()
	AddAction(c, f.Answer(c.Tok, action), nil)
	return f.AnswerText(action)
}

// ParseRead reports whether action reads a skill, and which.
func ParseRead(action string) (name string, ok bool) {
	f := strings.Fields(strings.TrimSpace(action))
	if len(f) == 0 || f[0] != ReadVerb {
		return "", false
	}
	if len(f) != 2 {
		return "", true
	}
	return f[1], true
}

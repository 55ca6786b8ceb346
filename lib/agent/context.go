package agent

import (
	"errors"

	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// Context is the token sequence of one episode as the policy sees it, with a
// role and a behaviour log-probability per token. It only grows.
type Context struct {
	Tok      tokenizer.Tokenizer
	Tokens   []int32
	Roles    []int8
	Logprobs []float32
	// Format writes the prompt and turns; nil is WordLevelFormat.
	Format Format
	// History is the history window: the number of latest turns the
	// policy sees in full (see Visible); 0 keeps the whole episode.
	History int

	cueAt  int     // first token of the last cue written
	msgAt  int     // first token of the last skill body's message (see markBody)
	turns  []Turn  // the answers written so far
	marker []int32 // Marker's ids, once computed
	bodies []Span  // the skill bodies written, in order
}

// format is c's format, WordLevelFormat when none is set.
func (c *Context) format() Format {
	if c.Format == nil {
		return WordLevelFormat{}
	}
	return c.Format
}

// Ends are the ids that end an answer in c's format.
func (c *Context) Ends() []int32 { return c.format().Ends(c.Tok) }

// Parse reads the action out of an answer in c's format.
func (c *Context) Parse(answer string) (string, bool) { return c.format().Parse(answer) }

// NewContext starts an empty context under tok.
func NewContext(tok tokenizer.Tokenizer) *Context { return &Context{Tok: tok} }

// Add encodes text and appends it with one role for every token.
func (c *Context) Add(text string, role int8) {
	c.AddIDs(c.Tok.Encode(text), role, nil)
}

// AddSpecial appends one special token (see lib/tokenizer's specials).
func (c *Context) AddSpecial(tok string, role int8) {
	id, ok := c.Tok.TokenID(tok)
	if !ok {
		id, _ = c.Tok.TokenID(tokenizer.Unk)
	}
	c.AddIDs([]int32{id}, role, nil)
}

// AddIDs appends ids with one role; logprobs may be nil (zeros).
func (c *Context) AddIDs(ids []int32, role int8, logprobs []float32) {
	for i, id := range ids {
		c.Tokens = append(c.Tokens, id)
		c.Roles = append(c.Roles, role)
		var lp float32
		if logprobs != nil {
			lp = logprobs[i]
		}
		c.Logprobs = append(c.Logprobs, lp)
	}
}

// Len is the number of tokens so far.
func (c *Context) Len() int { return len(c.Tokens) }

// Count returns how many tokens carry one of the roles.
func (c *Context) Count(pred func(int8) bool) int {
	n := 0
	for _, r := range c.Roles {
		if pred(r) {
			n++
		}
	}
	return n
}

// PolicyTokens counts the policy-written tokens.
func (c *Context) PolicyTokens() int { return c.Count(table.PolicyWritten) }

// ErrContextLimit is returned by a driver whose model cannot take the
// context any further; the episode ends there with failure mode
// context_limit.
var ErrContextLimit = errors.New("context limit reached")

// NotRead gives the last answer's skill-name tokens role action: an answer
// that reads a skill where no slate is shown is an action the environment
// answers, and no read (rollout records none).
func (c *Context) NotRead() {
	if len(c.turns) == 0 {
		return
	}
	for i := c.turns[len(c.turns)-1].At; i < len(c.Roles); i++ {
		if c.Roles[i] == table.RoleSkillName {
			c.Roles[i] = table.RoleAction
		}
	}
}

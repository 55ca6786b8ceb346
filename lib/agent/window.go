package agent

import (
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// A history window keeps an episode's context short: with History N > 0
// the policy sees, when it writes its answer t, the prompt (everything
// before the first answer's cue), then, once turns were dropped, a
// one-line marker, then the last N turns in full. Turn i is the cue
// before answer i, the answer, and the harness's reply to it; the reply
// to the last turn holds the observation the next answer acts on, so
// N = 1 still shows it. N = 0 keeps the whole episode.
//
// A skill body the policy read stays in view: once the turn that read it
// is dropped, the body's message (Span: under WordLevelFormat <|skill|> and
// the body, under ChatML the user message that holds it) is shown after the
// prompt, bodies in the order read, before the marker. A body read in a
// kept turn is shown in that turn, once.
//
// The context's Tokens stay the whole episode as it happened (every
// token once, with its role and behaviour log-probability); what each
// answer saw is recorded per turn (Turns) and rebuilt by Window, so a
// trainer can compute each answer's log-probabilities under the context it
// was sampled in.

// Marker texts: the line that stands for the dropped turns.
const (
	// WordLevelMarker follows <|obs|> under WordLevelFormat (words of the
	// shipped vocabulary).
	WordLevelMarker = "old actions are cut"
	// ChatMarker is a user message under ChatML.
	ChatMarker = "(Earlier turns are omitted.)"
)

// Turn is where one answer sits in the whole context and what it saw.
type Turn struct {
	Cue  int // first token of the cue before the answer
	At   int // first token of the answer
	From int // first token of the kept history it saw: the prompt's end when nothing was dropped, else the cue of its oldest kept turn
}

// Span is a run of tokens [At, End) of the whole context.
type Span struct{ At, End int }

// markBody notes that the format starts writing a skill body's message
// at the current end (the part of the body that is pinned).
func (c *Context) markBody() { c.msgAt = c.Len() }

// Bodies are the skill bodies written after the prompt (in answer to
// reads), in order: the spans a window pins once their turn is dropped.
func (c *Context) Bodies() []Span {
	var out []Span
	p := c.PromptLen()
	for _, b := range c.bodies {
		if b.At >= p {
			out = append(out, b)
		}
	}
	return out
}

// Pinned are the bodies shown after the prompt to an answer whose kept
// history starts at from: those read after the prompt that end at or
// before from, in order.
func Pinned(bodies []Span, prompt, from int) []Span {
	var out []Span
	for _, b := range bodies {
		if b.At >= prompt && b.End <= from {
			out = append(out, b)
		}
	}
	return out
}

// markCue notes that the format starts writing a cue at the current end.
func (c *Context) markCue() { c.cueAt = c.Len() }

// PromptLen is the number of tokens before the first answer's cue (the
// prompt every turn keeps), or the current cue's start before any answer.
func (c *Context) PromptLen() int {
	if len(c.turns) > 0 {
		return c.turns[0].Cue
	}
	return c.cueAt
}

// Turns are the answers written so far, in order.
func (c *Context) Turns() []Turn { return c.turns }

// Marker is the token ids of the marker line in c's format.
func (c *Context) Marker() []int32 {
	if c.marker == nil {
		m := NewContext(c.Tok)
		f := c.format()
		if tc, ok := f.(*ToolChat); ok {
			f = tc.Chat // a user message, as under ChatML
		}
		switch f := f.(type) {
		case *ChatML:
			m.AddIDs([]int32{f.Start}, table.RoleObservation, nil)
			m.Add("user\n"+ChatMarker, table.RoleObservation)
			m.AddIDs([]int32{f.End}, table.RoleObservation, nil)
			m.Add("\n", table.RoleObservation)
		default:
			m.AddSpecial(tokenizer.Obs, table.RoleObservation)
			m.Add(WordLevelMarker, table.RoleObservation)
		}
		c.marker = m.Tokens
	}
	return c.marker
}

// from is where the kept history of answer t starts.
func (c *Context) from(t int) int {
	if c.History <= 0 || t <= c.History {
		return c.PromptLen()
	}
	return c.turns[t-c.History].Cue
}

// recordTurn notes answer len(c.turns), which starts at the current end.
func (c *Context) recordTurn() {
	t := len(c.turns)
	at := c.Len()
	c.turns = append(c.turns, Turn{Cue: c.cueAt, At: at})
	c.turns[t].From = c.from(t)
}

// VisibleFrom is where the kept history of the next answer starts in
// Tokens: PromptLen until a window drops a turn.
func (c *Context) VisibleFrom() int { return c.from(len(c.turns)) }

// Visible is the context the policy sees for its next answer: the whole
// Tokens without a window or before any turn is dropped, else the prompt,
// the pinned bodies, the marker and the kept turns (a new slice).
func (c *Context) Visible() []int32 {
	t := len(c.turns)
	if c.History <= 0 || t <= c.History {
		return c.Tokens
	}
	return Window(c.Tokens, c.PromptLen(), c.Pinned(), c.from(t), c.Len(), c.Marker())
}

// Pinned are the bodies the next answer sees after the prompt.
func (c *Context) Pinned() []Span {
	if c.History <= 0 {
		return nil
	}
	return Pinned(c.Bodies(), c.PromptLen(), c.VisibleFrom())
}

// VisibleHead is the length of what comes before the kept turns in
// Visible once a turn was dropped: the prompt, the pinned bodies and the
// marker.
func (c *Context) VisibleHead() int {
	n := c.PromptLen() + len(c.Marker())
	for _, b := range c.Pinned() {
		n += b.End - b.At
	}
	return n
}

// Window assembles a windowed context from an episode's tokens: the prompt
// tokens[:prompt], then, when from > prompt (turns were dropped), the
// pinned bodies (tokens[b.At:b.End] each, in order), the marker and
// tokens[from:end]; else tokens[:end].
func Window(tokens []int32, prompt int, pinned []Span, from, end int, marker []int32) []int32 {
	if from <= prompt {
		return append([]int32(nil), tokens[:end]...)
	}
	out := make([]int32, 0, prompt+len(marker)+end-from)
	out = append(out, tokens[:prompt]...)
	for _, b := range pinned {
		out = append(out, tokens[b.At:b.End]...)
	}
	out = append(out, marker...)
	return append(out, tokens[from:end]...)
}

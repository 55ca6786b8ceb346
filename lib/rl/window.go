package rl

import (
	"context"
	"fmt"

	"github.com/pats-rl/pats/lib/agent"
	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/table"
)

// Windowed reports whether a trajectory was rolled out with a history
// window (rollout --history): its answers saw different contexts, recorded
// per answer in TurnAt and TurnFrom.
func Windowed(r *table.Trajectory) bool { return r.History > 0 }

// TurnSpan is one answer of a windowed trajectory: the indices into its
// tokens of the context the answer saw (-1 for a marker token, whose id is
// Marker) followed by the answer's own tokens, and where the answer
// starts in that list.
type TurnSpan struct {
	Index  []int // per position of the turn's sequence: index in the trajectory's tokens, or -1 for the i-th marker token
	Marker []int32
	Answer int // position in Index of the answer's first token
}

// answerEnd is the first token after the answer starting at at: the next
// token that is not policy-written.
func answerEnd(roles []int8, at int) int {
	e := at
	for e < len(roles) && table.PolicyWritten(roles[e]) {
		e++
	}
	return e
}

// pinnedBodies are the skill bodies answer's history starting at from
// sees after the prompt (agent.Pinned over body_at, body_end).
func pinnedBodies(r *table.Trajectory, from int) []agent.Span {
	bodies := make([]agent.Span, len(r.BodyAt))
	for i := range r.BodyAt {
		bodies[i] = agent.Span{At: int(r.BodyAt[i]), End: int(r.BodyEnd[i])}
	}
	return agent.Pinned(bodies, int(r.PromptLen), from)
}

// TurnSpans gives the sequence of every answer of a windowed trajectory:
// tokens[:prompt_len], then, when turn_from > prompt_len, the pinned skill
// bodies (tokens[body_at:body_end] of each body that ends at or before
// turn_from, in order) and the marker, then tokens[turn_from:end] with end
// the answer's last token + 1. The rows must have passed CheckWindow.
func TurnSpans(r *table.Trajectory) []TurnSpan {
	out := make([]TurnSpan, len(r.TurnAt))
	prompt := int(r.PromptLen)
	for i := range r.TurnAt {
		at, from := int(r.TurnAt[i]), int(r.TurnFrom[i])
		end := answerEnd(r.Roles, at)
		var idx []int
		if from > prompt {
			idx = make([]int, 0, prompt+len(r.HistoryMarker)+end-from)
			for t := 0; t < prompt; t++ {
				idx = append(idx, t)
			}
			for _, b := range pinnedBodies(r, from) {
				for t := b.At; t < b.End; t++ {
					idx = append(idx, t)
				}
			}
			for range r.HistoryMarker {
				idx = append(idx, -1)
			}
		} else {
			from = 0
			idx = make([]int, 0, end)
		}
		for t := from; t < end; t++ {
			idx = append(idx, t)
		}
		out[i] = TurnSpan{Index: idx, Marker: r.HistoryMarker, Answer: len(idx) - (end - at)}
	}
	return out
}

// checkWindow checks the window columns of one trajectory whose token,
// role and log-probability columns have one entry per token: nothing set
// without a window; else one turn_from per turn_at, answers in order,
// each starting on a policy-written token, histories inside the episode
// before their answer, marker ids inside the vocabulary, and every
// answer's sequence within maxLen positions. It returns the problem, or
// "".
func checkWindow(r *table.Trajectory, vocab, maxLen int) string {
	if r.History < 0 {
		return fmt.Sprintf("history %d is negative", r.History)
	}
	if !Windowed(r) {
		if len(r.TurnAt) > 0 || len(r.TurnFrom) > 0 || len(r.HistoryMarker) > 0 || r.PromptLen != 0 || len(r.BodyAt) > 0 {
			return "turn_at, turn_from, history_marker, prompt_len or body_at set without a history window"
		}
		return ""
	}
	if len(r.TurnFrom) != len(r.TurnAt) {
		return fmt.Sprintf("%d turn_from for %d turn_at", len(r.TurnFrom), len(r.TurnAt))
	}
	n, prompt, prev := len(r.Tokens), int(r.PromptLen), -1
	if prompt < 0 || prompt > n {
		return fmt.Sprintf("prompt_len %d outside the %d tokens", prompt, n)
	}
	for k, at := range r.BodyAt {
		if int(at) < prompt || int(r.BodyEnd[k]) > n {
			return fmt.Sprintf("body %d [%d, %d) is not after the prompt (%d) inside the %d tokens", k, at, r.BodyEnd[k], prompt, n)
		}
		for t := at; t < r.BodyEnd[k]; t++ {
			if r.Roles[t] != table.RoleSkillBody {
				return fmt.Sprintf("body %d [%d, %d) holds a token of role %s at %d, not a skill body", k, at, r.BodyEnd[k], table.RoleNames[r.Roles[t]], t)
			}
		}
	}
	for t, id := range r.HistoryMarker {
		if id < 0 || int(id) >= vocab {
			return fmt.Sprintf("history_marker token %d is id %d, outside the model's vocabulary of %d", t, id, vocab)
		}
	}
	for k := range r.TurnAt {
		at, from := int(r.TurnAt[k]), int(r.TurnFrom[k])
		if at <= prev || at >= n || !table.PolicyWritten(r.Roles[at]) {
			return fmt.Sprintf("turn_at %d (%d) is not the start of a policy-written answer after the previous one", k, at)
		}
		if from < prompt || from > at {
			return fmt.Sprintf("turn_from %d (%d) is outside [prompt_len %d, turn_at %d]", k, from, prompt, at)
		}
		prev = answerEnd(r.Roles, at) - 1
		l := prev + 1
		if from > prompt {
			l = prompt + len(r.HistoryMarker) + prev + 1 - from
			for _, b := range pinnedBodies(r, from) {
				l += b.End - b.At
			}
		}
		if l > maxLen {
			return fmt.Sprintf("answer %d's context of %d tokens exceeds the model's %d positions", k, l, maxLen)
		}
	}
	return ""
}

// turnPrepared splits a windowed episode's prepared credit into one
// sequence per answer: the context it saw and its own tokens, the loss on
// those only, with the episode's token advantages and channels.
func turnPrepared(p *Prepared) []Prepared {
	r := p.Row
	spans := TurnSpans(r)
	out := make([]Prepared, len(spans))
	for i, s := range spans {
		row := *r
		L := len(s.Index)
		row.Tokens, row.Roles, row.Logprobs = make([]int32, L), make([]int8, L), make([]float32, L)
		q := Prepared{Row: &row, Mask: make([]bool, L), Adv: make([]float32, L), Channels: make([]int8, L),
			Outcome: p.Outcome, Selection: p.Selection, SelectScale: p.SelectScale, ZeroVarGrp: p.ZeroVarGrp}
		m := 0
		for j, t := range s.Index {
			if t < 0 {
				row.Tokens[j], row.Roles[j] = s.Marker[m], table.RoleObservation
				m++
				continue
			}
			row.Tokens[j], row.Roles[j], row.Logprobs[j] = r.Tokens[t], r.Roles[t], r.Logprobs[t]
			if j >= s.Answer && p.Mask[t] {
				q.Mask[j], q.Adv[j], q.Channels[j] = true, p.Adv[t], p.Channels[t]
				q.NLoss++
				if p.Channels[t] == ChannelSelection {
					q.NSelect++
				}
			}
		}
		out[i] = q
	}
	return out
}

// sequences lists the sequences the prepared episodes train on, in order:
// an episode without a window is one sequence (itself), a windowed one one
// per answer; owner gives each sequence's episode.
func sequences(prep []*Prepared) (seqs []*Prepared, owner []int) {
	for i, p := range prep {
		if p.Turns == nil {
			seqs, owner = append(seqs, p), append(owner, i)
			continue
		}
		for j := range p.Turns {
			seqs, owner = append(seqs, &p.Turns[j]), append(owner, i)
		}
	}
	return seqs, owner
}

// TurnSequences gives one row per answer of a windowed trajectory (the
// rows must have passed CheckTokens): tokens, roles and log-probabilities
// of the context the answer saw followed by the answer, the marker and the
// earlier answers in that context with role observation (context, not
// policy-written here), so that the policy-written tokens of each row are
// its answer's. Every other column is the trajectory's.
func TurnSequences(r *table.Trajectory) []table.Trajectory {
	spans := TurnSpans(r)
	out := make([]table.Trajectory, len(spans))
	for i, s := range spans {
		row := *r
		L := len(s.Index)
		row.Tokens, row.Roles, row.Logprobs = make([]int32, L), make([]int8, L), make([]float32, L)
		m := 0
		for j, t := range s.Index {
			switch {
			case t < 0:
				row.Tokens[j], row.Roles[j] = s.Marker[m], table.RoleObservation
				m++
			case j < s.Answer && table.PolicyWritten(r.Roles[t]):
				row.Tokens[j], row.Roles[j] = r.Tokens[t], table.RoleObservation
			default:
				row.Tokens[j], row.Roles[j], row.Logprobs[j] = r.Tokens[t], r.Roles[t], r.Logprobs[t]
			}
		}
		out[i] = row
	}
	return out
}

// turnsPrefix is the number of leading tokens the turn sequences of one
// windowed episode share and none of them scores (sharedPrefix); 0 for
// fewer than two.
func turnsPrefix(turns []Prepared) int {
	if len(turns) < 2 {
		return 0
	}
	seqs, masks := make([][]int32, len(turns)), make([][]bool, len(turns))
	for i := range turns {
		seqs[i], masks[i] = turns[i].Row.Tokens, turns[i].Mask
	}
	return sharedPrefix(seqs, masks)
}

// forwardBackwardParts runs the forward and backward of a minibatch's
// sequences (seqs, masks; owner[j] is sequence j's episode in batch,
// consecutive per episode as sequences lists them), accumulating the
// gradients: each windowed episode with a shared prefix runs its turn
// sequences together with the prefix once (model.ForwardBackwardPrefix),
// and every run of other sequences runs as one ForwardBackward, so a
// minibatch without a window is one call as before. weights gets the
// sequence's index in seqs, in order.
func forwardBackwardParts(ctx context.Context, m *model.Model, batch []*Prepared, seqs [][]int32, masks [][]bool, owner []int, weights func(j int, lp, ent []float32) []float32) error {
	for j := 0; j < len(seqs); {
		if err := ctx.Err(); err != nil {
			return err
		}
		e := j + 1
		prefix := batch[owner[j]].Prefix
		if prefix > 0 {
			for e < len(seqs) && owner[e] == owner[j] {
				e++
			}
		} else {
			for e < len(seqs) && batch[owner[e]].Prefix == 0 {
				e++
			}
		}
		off := j
		w := func(k int, lp, ent []float32) []float32 { return weights(off+k, lp, ent) }
		var err error
		if prefix > 0 {
			_, _, err = m.ForwardBackwardPrefix(prefix, seqs[j:e], masks[j:e], w)
		} else {
			_, _, err = m.ForwardBackward(seqs[j:e], masks[j:e], w)
		}
		if err != nil {
			return err
		}
		j = e
	}
	return nil
}

package policy

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/pats-rl/pats/lib/agent"
	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/output"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// MaxActionTokens bounds one action unless Options say otherwise.
const MaxActionTokens = 32

// Options say how a checkpoint samples.
type Options struct {
	Temperature float32 // <= 0 or Greedy: greedy
	TopP        float32 // 1: no nucleus cut
	TopK        int     // 0: no top-k cut
	// RepetitionPenalty divides (multiplies, when negative) the logits of
	// the tokens already in the context the answer sees; 0 or 1: none.
	RepetitionPenalty float32
	Greedy            bool
	// MaxActionTokens bounds one answer; 0 is MaxActionTokens.
	MaxActionTokens int
}

// Checkpoint is a policy backed by a model. It is safe for concurrent use by
// many episodes.
type Checkpoint struct {
	Path string
	M    *model.Model
	Tok  tokenizer.Tokenizer
	Opt  Options
	Gen  GenerationConfig // the folder's generation_config.json (zero without one)
	// Hash is the content hash of the folder's weights (model.WeightsHash);
	// "" for a model built in memory.
	Hash string

	mu       sync.Mutex
	prefixes map[string]*prefix
	order    []string
	batch    *batcher
}

// BeginBatch makes the next episodes decode together: participants
// goroutines will run episodes, each calling the returned retire function
// once when it takes no more. Until then every decoding step of the
// episodes in flight is one batched forward. Without BeginBatch each
// episode decodes on its own.
func (p *Checkpoint) BeginBatch(participants int) (retire func()) {
	b := newBatcher(p.M, participants)
	p.mu.Lock()
	p.batch = b
	p.mu.Unlock()
	return b.retire
}

type prefix struct {
	once   sync.Once
	tokens []int32
	dec    *model.Decoder
	logits []float32
	err    error
}

// maxPrefixes is how many group prompts are kept; groups are run in task
// order, so only a few are live at once, and an evicted one is recomputed
// (the same numbers: decoding is deterministic).
const maxPrefixes = 64

// IsCheckpoint reports whether dir looks like a checkpoint folder.
func IsCheckpoint(dir string) bool {
	output.Recover(dir) // a replacement killed between its renames
	_, err := os.Stat(filepath.Join(dir, model.ConfigFile))
	return err == nil || model.IsAdapter(dir) // issue 60: a LoRA adapter folder is a checkpoint too
}

// Load opens a checkpoint folder with its tokenizer.json (model.OpenFolder;
// errors do not repeat dir) and its generation_config.json.
func Load(dir string, o Options) (*Checkpoint, error) {
	f, err := model.OpenFolder(dir)
	if err != nil {
		return nil, err
	}
	gen, err := ReadGenerationConfig(dir)
	if err != nil {
		return nil, err
	}
	p := New(dir, f.Model, f.Tok, o)
	p.Gen = gen
	if p.Hash, err = model.WeightsHash(dir); err != nil {
		return nil, err
	}
	return p, nil
}

// Given says which sampling settings the user gave (SamplingDefaults).
type Given struct{ Temperature, TopP, TopK, RepetitionPenalty, Greedy bool }

// SamplingDefaults takes temperature, top-p, top-k, the repetition penalty
// and do_sample (false: greedy) from the checkpoint's
// generation_config.json where the user gave none.
func (p *Checkpoint) SamplingDefaults(g Given) { p.Opt.defaults(p.Gen, g) }

// defaults fills o from gen where g says the user gave nothing
// (SamplingDefaults).
func (o *Options) defaults(gen GenerationConfig, g Given) {
	if !g.Temperature && gen.Temperature != nil {
		o.Temperature = float32(*gen.Temperature)
	}
	if !g.TopP && gen.TopP != nil {
		o.TopP = float32(*gen.TopP)
	}
	if !g.TopK && gen.TopK != nil {
		o.TopK = *gen.TopK
	}
	if !g.RepetitionPenalty && gen.RepetitionPenalty != nil {
		o.RepetitionPenalty = float32(*gen.RepetitionPenalty)
	}
	if !g.Greedy && !g.Temperature && gen.DoSample != nil && !*gen.DoSample {
		o.Greedy = true
	}
}

// Rule is how the checkpoint draws each token (model.Rule): greedy is
// temperature 0.
func (p *Checkpoint) Rule() model.Rule { return p.Opt.rule() }

// rule is how o draws each token: greedy is temperature 0, a top-p out of
// (0, 1] is 1, a repetition penalty of 0 is 1.
func (o Options) rule() model.Rule {
	r := model.Rule{Temperature: o.Temperature, TopP: o.TopP, TopK: o.TopK, RepetitionPenalty: o.RepetitionPenalty}
	if o.Greedy || r.Temperature < 0 {
		r.Temperature = 0
	}
	if r.TopP <= 0 || r.TopP > 1 {
		r.TopP = 1
	}
	if r.RepetitionPenalty == 0 {
		r.RepetitionPenalty = 1
	}
	return r
}

// New wraps a model already in memory.
func New(name string, m *model.Model, tok tokenizer.Tokenizer, o Options) *Checkpoint {
	if o.TopP <= 0 {
		o.TopP = 1
	}
	return &Checkpoint{Path: name, M: m, Tok: tok, Opt: o, prefixes: map[string]*prefix{}}
}

// Name implements rollout.Policy.
func (p *Checkpoint) Name() string { return p.Path }

// Tokenizer is the checkpoint's tokenizer.
func (p *Checkpoint) Tokenizer() tokenizer.Tokenizer { return p.Tok }

// NewEpisode implements rollout.Policy.
func (p *Checkpoint) NewEpisode(groupKey string, seed int64) *Driver {
	h := fnv.New64a()
	fmt.Fprintf(h, "sample|%d", seed)
	p.mu.Lock()
	b := p.batch
	p.mu.Unlock()
	return &Driver{p: p, group: groupKey, key: seed, batch: b, rng: rand.New(rand.NewPCG(uint64(seed), h.Sum64()))}
}

// shared returns the group's prompt decoded once.
func (p *Checkpoint) shared(group string, tokens []int32) *prefix {
	p.mu.Lock()
	e, ok := p.prefixes[group]
	if !ok || !equal(e.tokens, tokens) {
		e = &prefix{tokens: append([]int32(nil), tokens...)}
		p.prefixes[group] = e
		p.order = append(p.order, group)
		if len(p.order) > maxPrefixes {
			delete(p.prefixes, p.order[0])
			p.order = p.order[1:]
		}
	}
	p.mu.Unlock()
	e.once.Do(func() {
		e.dec = p.M.NewDecoder()
		e.logits, e.err = e.dec.Append(e.tokens)
	})
	return e
}

func equal(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Driver writes the actions of one episode.
type Driver struct {
	p     *Checkpoint
	group string
	rng   *rand.Rand
	dec   *model.Decoder
	key   int64
	batch *batcher
	from  int            // where the kept history the decoder holds starts (agent.Context.VisibleFrom)
	head  *model.Decoder // the prompt, the pinned skill bodies and the history marker, once a window dropped a turn
	headN int            // tokens in head
}

// feed appends tokens to the episode's decoder, batched when a batch is on.
func (d *Driver) feed(tokens []int32) ([]float32, error) {
	if d.batch != nil {
		return d.batch.append(d.key, d.dec, tokens)
	}
	return d.dec.Append(tokens)
}

// feedSample appends tokens and draws the next token on the device (see
// model.Decoder.AppendSample), batched when a batch is on.
func (d *Driver) feedSample(tokens []int32, s model.Sampling, u float64) (int32, float32, error) {
	if d.batch != nil {
		return d.batch.appendSample(d.key, d.dec, tokens, s, u)
	}
	return d.dec.AppendSample(tokens, s, u)
}

// Act implements rollout.Driver: it feeds the context written since the
// last action, then samples the next action token by token.
func (d *Driver) Act(_ context.Context, c *agent.Context, _ env.Episode, _ string) (string, error) {
	var logits []float32
	limit := d.p.M.ContextLimit() // max_position_embeddings, or a device decoder's capacity
	view := c.Visible()
	from := c.VisibleFrom()
	switch {
	case d.dec == nil:
		if len(view)+1 >= limit {
			return "", agent.ErrContextLimit
		}
		e := d.p.shared(d.group, view)
		if e.err != nil {
			return "", e.err
		}
		d.dec = e.dec.Clone()
		logits = e.logits
	case from == d.from:
		fresh := view[d.dec.Len():]
		if len(view)+1 >= limit {
			return "", agent.ErrContextLimit
		}
		var err error
		if logits, err = d.feed(fresh); err != nil {
			return "", err
		}
	default:
		// The window moved: the oldest kept turn was dropped. Start again
		// from the prompt, the pinned skill bodies and the marker (kept
		// until a newly dropped turn pins a body), then the kept turns.
		if len(view)+1 >= limit {
			return "", agent.ErrContextLimit
		}
		head := c.VisibleHead()
		if d.head == nil || d.headN != head {
			d.head, d.headN = d.p.M.NewDecoder(), head
			if _, err := d.head.Append(view[:head]); err != nil {
				return "", err
			}
		}
		d.dec = d.head.Clone()
		var err error
		if logits, err = d.feed(view[head:]); err != nil {
			return "", err
		}
	}
	d.from = from
	ends := c.Ends()
	maxTokens := d.p.Opt.MaxActionTokens
	if maxTokens <= 0 {
		maxTokens = MaxActionTokens
	}
	rule := d.p.Rule()
	temp := rule.Temperature
	var ids []int32
	var lps []float32
	// seen is what the repetition penalty applies to: the context the
	// answer sees and what it wrote so far.
	var seen []int32
	if !rule.OnDevice() {
		seen = append(seen, view...)
	}
	tok, lp := rule.Draw(logits, seen, model.SampleDraw(temp, d.rng))
	for {
		ids = append(ids, tok)
		lps = append(lps, lp)
		if slices.Contains(ends, tok) || len(ids) >= maxTokens || d.dec.Len()+1 >= limit {
			break
		}
		var err error
		if d.p.M.OnDevice() && rule.OnDevice() {
			// The device draws the token with the uniform the host's
			// generator gives, as Sample would; no logits row comes back.
			if tok, lp, err = d.feedSample([]int32{tok}, rule.Sampling(), model.SampleDraw(temp, d.rng)); err != nil {
				return "", err
			}
			continue
		}
		if logits, err = d.feed([]int32{tok}); err != nil {
			return "", err
		}
		if seen != nil {
			seen = append(seen, tok)
		}
		tok, lp = rule.Draw(logits, seen, model.SampleDraw(temp, d.rng))
	}
	// The decoder has every written token but the last; the next Act
	// feeds it with what the environment answered.
	agent.AddAction(c, ids, lps)
	text := ids
	if len(text) > 0 && slices.Contains(ends, text[len(text)-1]) {
		text = text[:len(text)-1]
	}
	return d.p.Tok.Decode(text), nil
}

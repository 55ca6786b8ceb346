package policy

import (
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
	Greedy      bool
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
	return err == nil
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
	return p, nil
}

// SamplingDefaults takes temperature and top-p from the checkpoint's
// generation_config.json where the user gave none.
func (p *Checkpoint) SamplingDefaults(temperatureGiven, topPGiven bool) {
	if !temperatureGiven && p.Gen.Temperature != nil {
		p.Opt.Temperature = float32(*p.Gen.Temperature)
	}
	if !topPGiven && p.Gen.TopP != nil {
		p.Opt.TopP = float32(*p.Gen.TopP)
	}
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
	head  *model.Decoder // the prompt and the history marker, once a window dropped a turn
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
func (d *Driver) Act(c *agent.Context, _ env.Episode, _ string) (string, error) {
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
		// from the prompt and the marker, then the kept turns.
		if len(view)+1 >= limit {
			return "", agent.ErrContextLimit
		}
		head := c.PromptLen() + len(c.Marker())
		if d.head == nil {
			d.head = d.p.M.NewDecoder()
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
	temp := d.p.Opt.Temperature
	if d.p.Opt.Greedy {
		temp = 0
	}
	var ids []int32
	var lps []float32
	tok, lp := model.Sample(logits, temp, d.p.Opt.TopP, d.rng)
	for {
		ids = append(ids, tok)
		lps = append(lps, lp)
		if slices.Contains(ends, tok) || len(ids) >= maxTokens || d.dec.Len()+1 >= limit {
			break
		}
		var err error
		if d.p.M.OnDevice() {
			// The device draws the token with the uniform the host's
			// generator gives, as Sample would; no logits row comes back.
			s := model.Sampling{Temperature: temp, TopP: d.p.Opt.TopP}
			if tok, lp, err = d.feedSample([]int32{tok}, s, model.SampleDraw(temp, d.rng)); err != nil {
				return "", err
			}
			continue
		}
		if logits, err = d.feed([]int32{tok}); err != nil {
			return "", err
		}
		tok, lp = model.Sample(logits, temp, d.p.Opt.TopP, d.rng)
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

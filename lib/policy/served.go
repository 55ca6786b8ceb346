package policy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pats-rl/pats/lib/agent"
	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/remote"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// The kinds of inference server a served policy talks to.
const (
	// ServerVLLM is vLLM's OpenAI-compatible completions endpoint
	// (BASE/completions, BASE ending in /v1): the prompt is sent as a list
	// of token ids, the answer's ids come back in the choice's token_ids
	// (return_token_ids) or, failing that, in its logprobs tokens written
	// "token_id:N" (return_tokens_as_token_ids).
	ServerVLLM = "vllm"
	// ServerSGLang is SGLang's native /generate endpoint: input_ids and
	// sampling_params in, output_ids and meta_info.output_token_logprobs
	// out.
	ServerSGLang = "sglang"
)

// ServerKinds are the kinds a served policy knows.
var ServerKinds = []string{ServerVLLM, ServerSGLang}

// Defaults of a served policy's exchange.
const (
	DefaultServerTimeout = 120 * time.Second
	DefaultServerRetries = 5
	DefaultServerBackoff = 500 * time.Millisecond
)

// How much of the servers' answers is read (AnswerBound): one answer at
// most AnswerBaseBytes, plus AnswerTokenBytes per token asked for, plus
// PromptTokenBytes per prompt token (a server may send the prompt's ids
// back), about ten times what the longest legitimate answer of vLLM or
// SGLang takes (some 100 bytes per answer token with its log-probability
// and top log-probability, 10 per prompt id); and the answers in flight
// together at most DefaultAnswerBudget (a request waits for room before
// it is sent). An answer past its bound fails the run (exit 1).
const (
	AnswerBaseBytes     = 1 << 20
	AnswerTokenBytes    = 1 << 10
	PromptTokenBytes    = 64
	DefaultAnswerBudget = 256 << 20
	// errorAnswerBytes is how much of an error answer is read: its start
	// is all a message shows.
	errorAnswerBytes = 64 << 10
)

// AnswerBound is the most bytes read of one answer to a prompt of
// promptLen tokens that asks for at most maxTokens tokens.
func AnswerBound(promptLen, maxTokens int) int64 {
	return AnswerBaseBytes + AnswerTokenBytes*int64(max(maxTokens, 0)) + PromptTokenBytes*int64(max(promptLen, 0))
}

// answerBudget is the total bound of the answers in flight of every
// served policy of the process.
var answerBudget = remote.NewBudget(DefaultAnswerBudget)

// IsServerURL reports whether a --policy value names a server (an http://
// or https:// URL) rather than a policy of the toolkit.
func IsServerURL(s string) bool { return remote.IsURL(s) }

// ServerOptions say where a served policy's server is and how to talk to
// it.
type ServerOptions struct {
	URL    string // http://HOST:PORT/v1 (vLLM) or http://HOST:PORT (SGLang)
	Kind   string // ServerVLLM, ServerSGLang, or "" for the URL's (KindOf)
	Model  string // the served model's name (vLLM's "model"; recorded)
	APIKey string // sent as a bearer token; "" sends none
	// Timeout bounds one request (0: DefaultServerTimeout); Retries is how
	// many more tries a request gets after a transport error, a timeout, or
	// an answer 429, 502, 503 or 504 (negative: DefaultServerRetries);
	// Backoff is the wait before the first retry, doubled before each
	// next one (0: DefaultServerBackoff).
	Timeout time.Duration
	Retries int
	Backoff time.Duration
	// Client makes the requests (nil: a plain client); its redirects are
	// those remote.Client follows whatever it sets.
	Client *http.Client
	// Budget bounds the answers in flight together (nil: the process's,
	// DefaultAnswerBudget).
	Budget *remote.Budget
}

// KindOf is the server kind a URL names when none is given: a path ending
// in /v1 is vLLM's OpenAI-compatible server, any other SGLang's native
// one.
func KindOf(u string) string {
	if strings.HasSuffix(strings.TrimRight(u, "/"), "/v1") {
		return ServerVLLM
	}
	return ServerSGLang
}

// CheckServerURL checks a server URL: http or https with a host and a
// port a server can listen on, no blanks, no query or fragment. Its
// message never repeats credentials written in the URL.
func CheckServerURL(s string) error { return remote.CheckURL(s) }

// Served is a policy played by an inference server: the prompt goes out as
// the token ids of the checkpoint folder's tokenizer (its chat template,
// its end tokens), and the token ids the server answers are what the
// context records; their text is only decoded to read the action. It is
// safe for concurrent use by many episodes.
type Served struct {
	// Dir is the checkpoint folder the server was started from: its
	// tokenizer, generation_config.json and agent.json; Hash is its
	// weights' content hash (model.WeightsHash), recorded in every row.
	Dir   string
	Tok   tokenizer.Tokenizer
	Gen   GenerationConfig
	Hash  string
	Vocab int // the model's vocabulary (config.json): ids at or above it are refused
	Opt   Options

	Kind, Model string
	endpoint    string // the request URL
	shown       string // the base URL without credentials, for names and messages
	apiKey      string
	timeout     time.Duration
	retries     int
	backoff     time.Duration
	client      *http.Client
	budget      *remote.Budget
	// down is the error of a request that ran out of tries: later
	// requests fail with it at once (the episodes in flight do not each
	// wait out the backoff again).
	down atomic.Pointer[error]

	// LoRA is the name of the runtime-loaded adapter requests name
	// (LoadAdapter; SGLang's lora_path, vLLM's model), "" for none.
	LoRA string
}

// LoadServed opens the checkpoint folder dir (tokenizer.json, config.json,
// generation_config.json; the weights are hashed, not loaded) for a server
// that was started from it. Errors do not repeat dir.
func LoadServed(dir string, so ServerOptions, o Options) (*Served, error) {
	if err := CheckServerURL(so.URL); err != nil {
		return nil, err
	}
	// Whatever a server says is scrubbed of what is sent to it.
	table.KnownSecret(so.APIKey)
	table.KnownURL(so.URL)
	kind := so.Kind
	if kind == "" {
		kind = KindOf(so.URL)
	}
	if !slices.Contains(ServerKinds, kind) {
		return nil, fmt.Errorf("server kind %q: want vllm or sglang", kind)
	}
	if kind == ServerVLLM && so.Model == "" {
		return nil, fmt.Errorf("a vLLM server needs the served model's name")
	}
	cfgDir, err := dir, error(nil)
	if model.IsAdapter(dir) { // issue 60: an adapter's shape is its base's
		if cfgDir, err = model.AdapterBase(dir); err != nil {
			return nil, err
		}
	}
	cfg, err := model.LoadConfig(filepath.Join(cfgDir, model.ConfigFile))
	if err != nil {
		return nil, err
	}
	tok, err := tokenizer.Load(filepath.Join(dir, model.TokenizerFile))
	if err != nil {
		return nil, err
	}
	gen, err := ReadGenerationConfig(dir)
	if err != nil {
		return nil, err
	}
	hash, err := model.WeightsHash(dir)
	if err != nil {
		return nil, fmt.Errorf("hashing the weights (the folder the server was started from, with its weights): %w", err)
	}
	if o.TopP <= 0 {
		o.TopP = 1
	}
	s := &Served{Dir: dir, Tok: tok, Gen: gen, Hash: hash, Vocab: cfg.VocabSize, Opt: o, Kind: kind, Model: so.Model,
		apiKey: so.APIKey, timeout: so.Timeout, retries: so.Retries, backoff: so.Backoff, client: remote.Client(so.Client), budget: so.Budget}
	if s.timeout <= 0 {
		s.timeout = DefaultServerTimeout
	}
	if s.retries < 0 {
		s.retries = DefaultServerRetries
	}
	if s.backoff <= 0 {
		s.backoff = DefaultServerBackoff
	}
	if s.budget == nil {
		s.budget = answerBudget
	}
	base := strings.TrimRight(so.URL, "/")
	s.shown = table.Scrub(base)
	switch {
	case kind == ServerSGLang:
		s.endpoint = strings.TrimSuffix(base, "/v1") + "/generate"
	case strings.HasSuffix(base, "/v1"):
		s.endpoint = base + "/completions"
	default:
		s.endpoint = base + "/v1/completions"
	}
	return s, nil
}

// SamplingDefaults takes the sampling settings the user did not give from
// the folder's generation_config.json (as Checkpoint.SamplingDefaults).
func (s *Served) SamplingDefaults(g Given) { s.Opt.defaults(s.Gen, g) }

// Rule is how the server is asked to draw each token: greedy is
// temperature 0.
func (s *Served) Rule() model.Rule { return s.Opt.rule() }

// Name is what trajectories record in their policy column: the server's
// base URL (without credentials) and the served model, as URL#MODEL.
func (s *Served) Name() string {
	if s.Model == "" {
		return s.shown
	}
	return s.shown + "#" + s.Model
}

// Server is the server's base URL without credentials.
func (s *Served) Server() string { return s.shown }

// Endpoint is the URL requests go to.
func (s *Served) Endpoint() string { return s.endpoint }

// NewEpisode returns the driver of one episode; seed makes the per-request
// seeds sent to the server.
func (s *Served) NewEpisode(_ string, seed int64) *ServedDriver {
	return &ServedDriver{s: s, seed: seed}
}

// ServedDriver writes the actions of one episode through the server.
type ServedDriver struct {
	s    *Served
	seed int64
	turn int
}

// requestSeed is the seed sent with the turn-th request of an episode: a
// server that honours per-request seeds answers a rerun with the same
// tokens.
func requestSeed(seed int64, turn int) int64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "served|%d|%d", seed, turn)
	return int64(h.Sum64() >> 33) // fits every server's seed type
}

// Act implements rollout.Driver: it sends the context the answer sees as
// token ids and records the ids (and log-probabilities) the server
// answers. An answer whose text has no well-formed action is left to the
// caller, as for a local checkpoint (an invalid action). ctx ends the
// wait for the answer and the retries at once.
func (d *ServedDriver) Act(ctx context.Context, c *agent.Context, _ env.Episode, _ string) (string, error) {
	s := d.s
	maxTokens := s.Opt.MaxActionTokens
	if maxTokens <= 0 {
		maxTokens = MaxActionTokens
	}
	view := c.Visible()
	ends := c.Ends()
	a, err := s.Generate(ctx, view, ends, maxTokens, requestSeed(d.seed, d.turn))
	d.turn++
	if err != nil {
		return "", err
	}
	agent.AddAction(c, a.IDs, a.Logprobs)
	text := a.IDs
	if len(text) > 0 && slices.Contains(ends, text[len(text)-1]) {
		text = text[:len(text)-1]
	}
	return s.Tok.Decode(text), nil
}

// Answer is what a server answered to one request.
type Answer struct {
	IDs      []int32
	Logprobs []float32
}

// Generate asks the server for one answer to prompt: at most maxTokens
// tokens, stopping at any of stop, with the policy's sampling settings
// sent explicitly and seed as the request's seed. A cancelled ctx ends
// the request and its retries at once, with an error that wraps ctx's.
func (s *Served) Generate(ctx context.Context, prompt, stop []int32, maxTokens int, seed int64) (Answer, error) {
	r := s.Rule()
	topK := r.TopK
	if topK <= 0 {
		topK = -1 // both servers: -1 is no cut
	}
	stopIDs := append([]int32{}, stop...)
	var body any
	switch s.Kind {
	case ServerVLLM:
		body = vllmRequest{Model: s.Model, Prompt: prompt, MaxTokens: maxTokens, Temperature: r.Temperature, TopP: r.TopP,
			TopK: topK, RepetitionPenalty: r.RepetitionPenalty, StopTokenIDs: stopIDs, Seed: seed, Logprobs: 1,
			ReturnTokensAsTokenIDs: true, ReturnTokenIDs: true, N: 1}
	default:
		body = sglangRequest{InputIDs: prompt, ReturnLogprob: true, SamplingParams: sglangSampling{MaxNewTokens: maxTokens,
			Temperature: r.Temperature, TopP: r.TopP, TopK: topK, RepetitionPenalty: r.RepetitionPenalty, StopTokenIDs: stopIDs,
			SamplingSeed: seed}, LoraPath: s.LoRA}
	}
	req, err := json.Marshal(body)
	if err != nil {
		return Answer{}, err
	}
	var vr vllmResponse
	var sr sglangResponse
	answer, what := any(&vr), "a completions response"
	if s.Kind != ServerVLLM {
		answer, what = &sr, "a /generate response"
	}
	if err := s.post(ctx, req, AnswerBound(len(prompt), maxTokens), answer, what); err != nil {
		return Answer{}, err
	}
	var a Answer
	var matched *int32
	if s.Kind == ServerVLLM {
		a, matched, err = parseVLLM(&vr)
	} else {
		a, matched, err = parseSGLang(&sr)
	}
	if err != nil {
		return Answer{}, fmt.Errorf("policy server %s: %v", s.shown, err)
	}
	// A server that stopped on an end token without returning it: the
	// token it names as the match ends the answer (its log-probability
	// unknown: 0; learn recomputes every one).
	if matched != nil && slices.Contains(stop, *matched) && (len(a.IDs) == 0 || a.IDs[len(a.IDs)-1] != *matched) {
		a.IDs = append(a.IDs, *matched)
		a.Logprobs = append(a.Logprobs, 0)
	}
	if len(a.IDs) == 0 {
		return Answer{}, fmt.Errorf("policy server %s: an answer with no tokens", s.shown)
	}
	if len(a.IDs) > maxTokens+1 {
		return Answer{}, fmt.Errorf("policy server %s: %d tokens answered, more than the %d asked for", s.shown, len(a.IDs), maxTokens)
	}
	for _, id := range a.IDs {
		if id < 0 || int(id) >= s.Vocab {
			return Answer{}, fmt.Errorf("policy server %s: token id %d is outside the vocabulary of %s (%d): is the server running this checkpoint?", s.shown, id, s.Dir, s.Vocab)
		}
	}
	for i, lp := range a.Logprobs {
		if math.IsNaN(float64(lp)) || math.IsInf(float64(lp), 0) || lp > 0 {
			return Answer{}, fmt.Errorf("policy server %s: log-probability %v of answer token %d is not a log-probability (finite, at most 0)", s.shown, lp, i)
		}
	}
	if table.HoldsSecret(s.Tok.Decode(a.IDs)) {
		return Answer{}, fmt.Errorf("policy server %s: an answer that holds a credential sent to the server: refused (the rows would record it)", s.shown)
	}
	return a, nil
}

// post sends one request to the server's generation endpoint (postTo).
func (s *Served) post(ctx context.Context, body []byte, limit int64, v any, what string) error {
	return s.postTo(ctx, s.endpoint, body, limit, v, what)
}

// postTo sends one request to url, an endpoint of the server (its
// generation endpoint, or issue 60's adapter routes), and decodes its
// answer into v (what names it in messages; nil v reads the answer and
// drops it), reading at most limit bytes of it; it retries transport
// errors, timeouts and answers 429, 502, 503 and 504 with exponential
// backoff; any other status, an answer past limit, one that is not what
// names and a refused redirect fail at once, and so does a cancelled ctx
// (in a request or between tries). Errors wrap their cause (scrubbed of
// credentials), so that errors.Is finds context.Canceled or a timeout.
func (s *Served) postTo(ctx context.Context, url string, body []byte, limit int64, v any, what string) error {
	var gone error // the server found down by this or another request before
	retried := false
	tries, err := remote.Retry(ctx, s.retries, s.backoff, func(ctx context.Context) (bool, error) {
		if down := s.down.Load(); down != nil {
			gone = *down
			return false, gone
		}
		retry, err := s.once(ctx, url, body, limit, v, what)
		retried = retry
		return retry, err
	})
	switch {
	case err == nil:
		return nil
	case gone != nil:
		return gone
	case ctx.Err() != nil: // given up: what the request met meanwhile is beside the point
		return fmt.Errorf("policy server %s: %w", s.shown, ctx.Err())
	case !retried:
		return fmt.Errorf("policy server %s: %w", s.shown, err)
	}
	err = fmt.Errorf("policy server %s: no answer after %d tries: %w", s.shown, tries, err)
	s.down.CompareAndSwap(nil, &err)
	return err
}

// once sends one request, its answer's bound taken from the budget of the
// answers in flight first; retry says whether a failure may pass on a
// later try.
func (s *Served) once(ctx context.Context, url string, body []byte, limit int64, v any, what string) (retry bool, err error) {
	give := s.budget.Take(limit)
	defer give()
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	req.Header.Set("Content-Type", "application/json")
	if s.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+s.apiKey)
	}
	resp, err := s.client.Do(req)
	if r, ok := remote.AsRedirect(err); ok {
		return false, r
	}
	if err != nil {
		return true, scrubbed(err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusOK:
	case remote.RetryStatus(resp.StatusCode):
		return true, fmt.Errorf("HTTP %d", resp.StatusCode)
	default:
		data, _ := remote.Read(resp.Body, errorAnswerBytes)
		return false, &StatusError{Code: resp.StatusCode, msg: fmt.Sprintf("HTTP %d%s: %s", resp.StatusCode, redirected(resp, s.endpoint), snippet(data))}
	}
	if v == nil {
		if _, err := remote.Read(resp.Body, limit); err != nil {
			return !errors.Is(err, remote.ErrTooLarge), scrubbed(err)
		}
		return false, nil
	}
	err = remote.Decode(resp.Body, limit, v)
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case err == nil:
		return false, nil
	case errors.Is(err, remote.ErrTooLarge):
		return false, fmt.Errorf("an answer of more than %d bytes, past the bound for this prompt and answer length (AnswerBound; docs/reference.md, Input limits)", limit)
	case errors.As(err, &syntax) || errors.As(err, &typ):
		return false, fmt.Errorf("an answer that is not %s: %v", what, err)
	}
	return true, scrubbed(err)
}

// redirected says where a request ended that followed a redirect within
// its server (sent without credentials), for the message of its failure.
func redirected(resp *http.Response, endpoint string) string {
	if resp.Request == nil || resp.Request.URL.String() == endpoint {
		return ""
	}
	return " (after a redirect to " + remote.Shown(resp.Request.URL) + ", which gets no credentials)"
}

// scrubbed is err with its message scrubbed of credentials (a transport
// error repeats the URL) and its chain kept (errors.Is and errors.As see
// through it); a request that ran past its time says "timed out".
func scrubbed(err error) error {
	msg := table.Scrub(err.Error())
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) {
		msg = "timed out"
	}
	return &scrubError{msg: msg, err: err}
}

// StatusError is a server's answer with a status that is neither success
// nor worth a retry; Code is the HTTP status.
type StatusError struct {
	Code int
	msg  string // the status, where a redirect led, and the answer's start
}

func (e *StatusError) Error() string { return e.msg }

// scrubError is an error shown by a scrubbed message that wraps the
// original.
type scrubError struct {
	msg string
	err error
}

func (e *scrubError) Error() string { return e.msg }
func (e *scrubError) Unwrap() error { return e.err }

// snippet is the start of a server's error answer, on one line.
func snippet(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return table.Scrub(s)
}

type vllmRequest struct {
	Model                  string  `json:"model"`
	Prompt                 []int32 `json:"prompt"`
	MaxTokens              int     `json:"max_tokens"`
	Temperature            float32 `json:"temperature"`
	TopP                   float32 `json:"top_p"`
	TopK                   int     `json:"top_k"`
	RepetitionPenalty      float32 `json:"repetition_penalty"`
	StopTokenIDs           []int32 `json:"stop_token_ids"`
	Seed                   int64   `json:"seed"`
	Logprobs               int     `json:"logprobs"`
	ReturnTokensAsTokenIDs bool    `json:"return_tokens_as_token_ids"`
	ReturnTokenIDs         bool    `json:"return_token_ids"`
	N                      int     `json:"n"`
}

type vllmResponse struct {
	Choices []struct {
		TokenIDs []int32 `json:"token_ids"`
		Logprobs *struct {
			Tokens        []string   `json:"tokens"`
			TokenLogprobs []*float32 `json:"token_logprobs"`
		} `json:"logprobs"`
		FinishReason string          `json:"finish_reason"`
		StopReason   json.RawMessage `json:"stop_reason"`
	} `json:"choices"`
}

// parseVLLM reads a completions answer: the ids from token_ids, else from
// the logprobs tokens ("token_id:N"); matched is the stop token id the
// server names (stop_reason), if any.
func parseVLLM(r *vllmResponse) (Answer, *int32, error) {
	if len(r.Choices) != 1 {
		return Answer{}, nil, fmt.Errorf("want one choice in the answer, got %d", len(r.Choices))
	}
	ch := r.Choices[0]
	var a Answer
	var fromTokens []int32
	if ch.Logprobs != nil {
		for _, t := range ch.Logprobs.Tokens {
			v, ok := strings.CutPrefix(t, "token_id:")
			id, err := strconv.ParseInt(v, 10, 32)
			if !ok || err != nil {
				return Answer{}, nil, fmt.Errorf("logprobs token %q is not token_id:N (a server without return_tokens_as_token_ids?)", t)
			}
			fromTokens = append(fromTokens, int32(id))
		}
		for _, lp := range ch.Logprobs.TokenLogprobs {
			var v float32
			if lp != nil {
				v = *lp
			}
			a.Logprobs = append(a.Logprobs, v)
		}
	}
	switch {
	case ch.TokenIDs != nil:
		a.IDs = ch.TokenIDs
		if fromTokens != nil && !slices.Equal(fromTokens, a.IDs) {
			return Answer{}, nil, fmt.Errorf("token_ids and the logprobs tokens differ")
		}
	case fromTokens != nil:
		a.IDs = fromTokens
	default:
		return Answer{}, nil, fmt.Errorf("an answer without token ids (want token_ids or logprobs tokens)")
	}
	if len(a.Logprobs) != len(a.IDs) {
		a.Logprobs = make([]float32, len(a.IDs)) // unknown: learn recomputes them
	}
	var matched *int32
	var id int32
	if len(ch.StopReason) > 0 && json.Unmarshal(ch.StopReason, &id) == nil {
		matched = &id
	}
	return a, matched, nil
}

type sglangSampling struct {
	MaxNewTokens      int     `json:"max_new_tokens"`
	Temperature       float32 `json:"temperature"`
	TopP              float32 `json:"top_p"`
	TopK              int     `json:"top_k"`
	RepetitionPenalty float32 `json:"repetition_penalty"`
	StopTokenIDs      []int32 `json:"stop_token_ids"`
	SamplingSeed      int64   `json:"sampling_seed"`
}

type sglangRequest struct {
	InputIDs       []int32        `json:"input_ids"`
	SamplingParams sglangSampling `json:"sampling_params"`
	ReturnLogprob  bool           `json:"return_logprob"`
	LoraPath       string         `json:"lora_path,omitempty"` // issue 60: the loaded adapter's name
}

type sglangResponse struct {
	OutputIDs []int32 `json:"output_ids"`
	MetaInfo  struct {
		FinishReason *struct {
			Type    string          `json:"type"`
			Matched json.RawMessage `json:"matched"`
		} `json:"finish_reason"`
		OutputTokenLogprobs [][]json.RawMessage `json:"output_token_logprobs"`
	} `json:"meta_info"`
}

// parseSGLang reads a /generate answer: the ids from output_ids, else from
// meta_info.output_token_logprobs ([logprob, id, text] per token);
// matched is the stop token id of meta_info.finish_reason, if any.
func parseSGLang(r *sglangResponse) (Answer, *int32, error) {
	var a Answer
	var fromLogprobs []int32
	for _, e := range r.MetaInfo.OutputTokenLogprobs {
		var lp float32
		var id int32
		if len(e) < 2 || json.Unmarshal(e[1], &id) != nil {
			return Answer{}, nil, fmt.Errorf("output_token_logprobs entry is not [logprob, id, ...]")
		}
		if json.Unmarshal(e[0], &lp) != nil {
			lp = 0
		}
		a.Logprobs = append(a.Logprobs, lp)
		fromLogprobs = append(fromLogprobs, id)
	}
	switch {
	case r.OutputIDs != nil:
		a.IDs = r.OutputIDs
		if fromLogprobs != nil && !slices.Equal(fromLogprobs, a.IDs) {
			return Answer{}, nil, fmt.Errorf("output_ids and output_token_logprobs differ")
		}
	case fromLogprobs != nil:
		a.IDs = fromLogprobs
	default:
		return Answer{}, nil, fmt.Errorf("an answer without token ids (want output_ids or meta_info.output_token_logprobs)")
	}
	if len(a.Logprobs) != len(a.IDs) {
		a.Logprobs = make([]float32, len(a.IDs))
	}
	var matched *int32
	if fr := r.MetaInfo.FinishReason; fr != nil && fr.Type == "stop" {
		var id int32
		if json.Unmarshal(fr.Matched, &id) == nil {
			matched = &id
		}
	}
	return a, matched, nil
}

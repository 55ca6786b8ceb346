package env

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pats-rl/pats/lib/cleanup"
	"github.com/pats-rl/pats/lib/remote"
	"github.com/pats-rl/pats/lib/table"
)

// Defaults of an environment server's exchange (ServerOptions).
const (
	DefaultServerTimeout     = 60 * time.Second
	DefaultServerRetries     = 3
	DefaultServerBackoff     = 200 * time.Millisecond
	DefaultServerConcurrency = 8
	// DefaultServerBudget bounds the answers of one environment server
	// being read at once (remote.Budget): each request takes its answer's
	// bound (ServerOptions.MaxAnswer) from it first.
	DefaultServerBudget = 256 << 20
)

// ServerOptions say how to talk to an environment server (OpenServer).
type ServerOptions struct {
	// Timeout bounds one request, answer included (0:
	// DefaultServerTimeout); Retries is how many more tries a request gets
	// after a timeout, a transport error or an answer 429, 502, 503 or 504
	// (negative: DefaultServerRetries); Backoff is the wait before the
	// first retry, doubled before each next one (0: DefaultServerBackoff).
	Timeout time.Duration
	Retries int
	Backoff time.Duration
	// Concurrency bounds the requests in flight at once (0:
	// DefaultServerConcurrency): episodes beyond it wait for a free slot.
	Concurrency int
	// MaxAnswer bounds one answer in bytes (0: DefaultMaxLine, the bound
	// of an exec: child's answer line).
	MaxAnswer int64
	// Client makes the requests (nil: a client that keeps a connection
	// per request in flight); its redirects are those remote.Client
	// follows whatever it sets.
	Client *http.Client
	// Context, when it ends, ends every request and every wait between
	// retries at once (nil: never). SIGINT and SIGTERM end them as well
	// (lib/cleanup).
	Context context.Context
}

// serverEnv is the client of an environment server: the HTTP shape of
// OpenEnv's reset, step and state (docs/env-protocol.md, "Environment
// servers"), with the episode named in every request.
type serverEnv struct {
	base, shown string // the base URL, and the same without credentials
	opts        ServerOptions
	client      *http.Client
	budget      *remote.Budget
	slots       chan struct{}
	ctx         context.Context
	cancel      context.CancelFunc
	undo        func()
	nonce       string // names this client's episodes apart from another's on the same server
	next        atomic.Int64
	// down is the error of a request that ran out of tries: later
	// requests fail with it at once.
	down atomic.Pointer[error]

	info    serverMetadata
	mu      sync.Mutex
	tasks   map[string][]string
	closeMu sync.Once
}

// serverMetadata is GET /metadata: OpenEnv's EnvironmentMetadata (name,
// description, version) and the fields pats adds.
type serverMetadata struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Version     string   `json:"version"`
	TaskTypes   []string `json:"task_types"`
	Splits      []string `json:"splits"`
	Vocabulary  []string `json:"vocabulary"`
}

// serverObservation is the observation of a reset or step answer.
type serverObservation struct {
	Text       string   `json:"text"`
	TaskID     string   `json:"task_id"`
	TaskType   string   `json:"task_type"`
	Goal       string   `json:"goal"`
	Admissible []string `json:"admissible"`
	MaxSteps   int      `json:"max_steps"`
	Features   []string `json:"features"`
	Key        string   `json:"key"`
	Success    bool     `json:"success"`
	Score      float64  `json:"score"`
	Valid      bool     `json:"valid"`
}

// serverAnswer is the answer to a reset or a step (OpenEnv's
// ResetResponse and StepResponse).
type serverAnswer struct {
	Observation *serverObservation `json:"observation"`
	Reward      *float64           `json:"reward"`
	Done        bool               `json:"done"`
}

// OpenServer opens the environment server at base (http:// or https://,
// credentials in the URL allowed: they are sent, never shown), asks it for
// its metadata and returns it as an Env. It is safe for concurrent use:
// episodes run in parallel goroutines, at most ServerOptions.Concurrency
// requests in flight. A server that stays down, keeps timing out or
// answers what is not its shape breaks the Env (BrokenError): the run
// fails (exit 1). The Env implements io.Closer; its episodes implement
// Close() error and Err() error as an exec: environment's do. Oracle
// returns nil.
func OpenServer(base string, o ServerOptions) (Env, error) {
	if err := remote.CheckURL(base); err != nil {
		return nil, fmt.Errorf("environment server: %v", err)
	}
	table.KnownURL(base)
	if o.Timeout <= 0 {
		o.Timeout = DefaultServerTimeout
	}
	if o.Retries < 0 {
		o.Retries = DefaultServerRetries
	}
	if o.Backoff <= 0 {
		o.Backoff = DefaultServerBackoff
	}
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultServerConcurrency
	}
	if o.MaxAnswer <= 0 {
		o.MaxAnswer = DefaultMaxLine
	}
	if o.Client == nil {
		// Keep a connection per request in flight between requests.
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = o.Concurrency
		o.Client = &http.Client{Transport: t}
	}
	parent := o.Context
	if parent == nil {
		parent = context.Background()
	}
	base = strings.TrimRight(base, "/")
	s := &serverEnv{base: base, shown: table.Scrub(base), opts: o, client: remote.Client(o.Client),
		budget: remote.NewBudget(max(DefaultServerBudget, o.MaxAnswer)), slots: make(chan struct{}, o.Concurrency),
		tasks: map[string][]string{}}
	s.ctx, s.cancel = context.WithCancel(parent)
	s.undo = cleanup.Add(s.cancel)
	var b [6]byte
	rand.Read(b[:])
	s.nonce = hex.EncodeToString(b[:])
	if err := s.call(http.MethodGet, "/metadata", nil, &s.info, "the metadata"); err != nil {
		s.Close()
		return nil, err
	}
	if s.info.Name == "" {
		// The name is stored in every trajectory's env column.
		s.info.Name = s.shown
	}
	if err := s.checkText(append(append(append([]string{s.info.Name}, s.info.TaskTypes...), s.info.Splits...), s.info.Vocabulary...)...); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// call sends one request (a JSON body unless body is nil) and decodes
// its answer into out, within a free slot, retrying what may pass on a
// later try. The error is a *BrokenError unless the server refused the
// request (an answer 4xx other than 429: an unknown split or task).
func (s *serverEnv) call(method, path string, body, out any, what string) error {
	if down := s.down.Load(); down != nil {
		return *down
	}
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return fmt.Errorf("environment server %s: encoding %s: %w", s.shown, what, err)
		}
	}
	select {
	case s.slots <- struct{}{}:
	case <-s.ctx.Done():
		return s.broken(fmt.Sprintf("%s %s: cancelled", method, path), s.ctx.Err())
	}
	defer func() { <-s.slots }()
	retried := false
	tries, err := remote.Retry(s.ctx, s.opts.Retries, s.opts.Backoff, func(ctx context.Context) (bool, error) {
		retry, err := s.once(ctx, method, path, payload, out, what)
		retried = retry
		return retry, err
	})
	var refused *refusedError
	switch {
	case err == nil:
		return nil
	case s.ctx.Err() != nil:
		return s.broken(fmt.Sprintf("%s %s: cancelled", method, path), s.ctx.Err())
	case errors.As(err, &refused):
		return fmt.Errorf("environment server %s: %s %s: %w", s.shown, method, path, err)
	case retried:
		down := s.broken(fmt.Sprintf("%s %s: no answer after %d tries (the server stayed down or kept failing); the last: %v", method, path, tries, err), err)
		s.down.CompareAndSwap(nil, &down)
		return *s.down.Load()
	}
	return s.broken(fmt.Sprintf("%s %s: %v", method, path, err), err)
}

// broken is the error of a server that can no longer be used.
func (s *serverEnv) broken(what string, cause error) error {
	return &BrokenError{msg: "environment server " + s.shown + ": " + what, err: cause}
}

// refusedError is an answer 4xx (not 429): the server's word on the
// request, not a failure of the server.
type refusedError struct {
	status int
	text   string
}

func (e *refusedError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.status, e.text) }

// errorAnswerBytes is how much of an error answer is read: its start is
// all a message shows.
const errorAnswerBytes = 64 << 10

// once sends one request, its answer's bound taken from the budget of
// the answers in flight first; retry says whether a failure may pass on a
// later try. Errors are scrubbed of credentials and keep their cause.
func (s *serverEnv) once(ctx context.Context, method, path string, payload []byte, out any, what string) (retry bool, err error) {
	give := s.budget.Take(s.opts.MaxAnswer)
	defer give()
	rctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	var rd *bytes.Reader
	if payload != nil {
		rd = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(rctx, method, s.base+path, readerOrNil(rd))
	if err != nil {
		return false, scrubbedError(err)
	}
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.client.Do(req)
	if r, ok := remote.AsRedirect(err); ok {
		return false, r
	}
	if err != nil {
		return true, s.transportError(ctx, rctx, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusOK:
	case remote.RetryStatus(resp.StatusCode):
		return true, fmt.Errorf("HTTP %d", resp.StatusCode)
	default:
		data, _ := remote.Read(resp.Body, errorAnswerBytes)
		text := clipFront(strings.Join(strings.Fields(string(data)), " "), MaxErrorBytes)
		if resp.StatusCode >= 400 && resp.StatusCode < 500 {
			return false, &refusedError{resp.StatusCode, table.Scrub(text)}
		}
		return false, fmt.Errorf("HTTP %d: %s", resp.StatusCode, table.Scrub(text))
	}
	err = remote.Decode(resp.Body, s.opts.MaxAnswer, out)
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case err == nil:
		return false, nil
	case errors.Is(err, remote.ErrTooLarge):
		return false, fmt.Errorf("an answer of more than %d bytes (docs/reference.md, Input limits): %w", s.opts.MaxAnswer, err)
	case errors.As(err, &syntax) || errors.As(err, &typ):
		return false, fmt.Errorf("an answer that is not %s: %w", what, err)
	}
	// The connection dropped while the answer was read.
	return true, s.transportError(ctx, rctx, err)
}

// readerOrNil keeps a nil *bytes.Reader from becoming a non-nil body.
func readerOrNil(r *bytes.Reader) interface{ Read([]byte) (int, error) } {
	if r == nil {
		return nil
	}
	return r
}

// transportError is err (a request that got no answer) without the URL
// and its credentials; a request past its timeout wraps
// os.ErrDeadlineExceeded.
func (s *serverEnv) transportError(ctx, rctx context.Context, err error) error {
	if ctx.Err() == nil && errors.Is(rctx.Err(), context.DeadlineExceeded) {
		return &scrubbed{msg: fmt.Sprintf("no answer within %s", s.opts.Timeout), err: os.ErrDeadlineExceeded}
	}
	return scrubbedError(err)
}

// scrubbedError is err without credentials (a *url.Error repeats the URL,
// which it leaves out) and wrapping err's cause.
func scrubbedError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return &scrubbed{msg: table.Scrub(err.Error()), err: err}
}

type scrubbed struct {
	msg string
	err error
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.err }

// checkText refuses an answer that holds a credential sent to the server:
// the rows would record it.
func (s *serverEnv) checkText(texts ...string) error {
	for _, t := range texts {
		if table.HoldsSecret(t) {
			return s.broken("an answer that holds a credential sent to the server: refused (the rows would record it)", nil)
		}
	}
	return nil
}

func (s *serverEnv) Name() string         { return s.info.Name }
func (s *serverEnv) TaskTypes() []string  { return append([]string(nil), s.info.TaskTypes...) }
func (s *serverEnv) Splits() []string     { return append([]string(nil), s.info.Splits...) }
func (s *serverEnv) Vocabulary() []string { return append([]string(nil), s.info.Vocabulary...) }

// Oracle returns nil: a server has no oracle.
func (s *serverEnv) Oracle() Agent { return nil }

// Close ends every request in flight and every later one.
func (s *serverEnv) Close() error {
	s.closeMu.Do(func() {
		s.cancel()
		s.undo()
	})
	return nil
}

// Tasks asks the server once per split (GET /tasks?split=S) and caches
// the answer.
func (s *serverEnv) Tasks(split string) ([]string, error) {
	s.mu.Lock()
	t, ok := s.tasks[split]
	s.mu.Unlock()
	if ok {
		return append([]string(nil), t...), nil
	}
	var r TasksResponse
	if err := s.call(http.MethodGet, "/tasks?split="+url.QueryEscape(split), nil, &r, "a task list"); err != nil {
		return nil, err
	}
	if err := s.checkText(r.Tasks...); err != nil {
		return nil, err
	}
	seen := make(map[string]int, len(r.Tasks))
	for i, id := range r.Tasks {
		if j, dup := seen[id]; dup {
			return nil, fmt.Errorf("environment server %s: split %s lists task id %q twice (entries %d and %d); task ids must be unique", s.shown, split, id, j, i)
		}
		seen[id] = i
	}
	s.mu.Lock()
	s.tasks[split] = r.Tasks
	s.mu.Unlock()
	return append([]string(nil), r.Tasks...), nil
}

// serverReset is POST /reset's body: OpenEnv's ResetRequest (seed,
// episode_id) with the task and a request id.
type serverReset struct {
	Seed      int64  `json:"seed"`
	EpisodeID string `json:"episode_id"`
	TaskID    string `json:"task_id"`
	RequestID string `json:"request_id"`
}

// serverStep is POST /step's body: OpenEnv's StepRequest (action,
// request_id) with the episode.
type serverStep struct {
	Action struct {
		Text string `json:"text"`
	} `json:"action"`
	EpisodeID string `json:"episode_id"`
	RequestID string `json:"request_id"`
}

// Reset starts an episode; its id is the client's nonce and a number.
func (s *serverEnv) Reset(id string, seed int64) (Episode, error) {
	epID := fmt.Sprintf("%s-%d", s.nonce, s.next.Add(1))
	var a serverAnswer
	req := serverReset{Seed: seed, EpisodeID: epID, TaskID: id, RequestID: epID + "/0"}
	if err := s.call(http.MethodPost, "/reset", req, &a, "a reset answer"); err != nil {
		return nil, err
	}
	if a.Observation == nil {
		return nil, s.broken("POST /reset: an answer without an observation", nil)
	}
	o := a.Observation
	if err := s.checkText(append(append([]string{o.Text, o.TaskID, o.TaskType, o.Goal}, o.Admissible...), o.Features...)...); err != nil {
		return nil, err
	}
	ep := &serverEpisode{s: s, id: epID, reset: *o, key: boundKey(o.Key)}
	ep.answered(o.Admissible, o.Features, false)
	return ep, nil
}

// serverEpisode mirrors one episode of the server.
type serverEpisode struct {
	mirror
	s     *serverEnv
	id    string
	reset serverObservation
	key   string
	steps int
}

func (p *serverEpisode) TaskID() string      { return p.reset.TaskID }
func (p *serverEpisode) TaskType() string    { return p.reset.TaskType }
func (p *serverEpisode) Goal() string        { return p.reset.Goal }
func (p *serverEpisode) Observation() string { return p.reset.Text }
func (p *serverEpisode) MaxSteps() int       { return p.reset.MaxSteps }
func (p *serverEpisode) InitialKey() string  { return p.key }

// Step sends the action with a request id of its own (the episode and
// the step's number), so that a server may answer a retried step from
// what it answered before instead of applying it twice. After done it
// answers locally (EpisodeOver).
func (p *serverEpisode) Step(action string) Step {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return Step{Observation: EpisodeOver, Done: true}
	}
	p.steps++
	var req serverStep
	req.Action.Text, req.EpisodeID, req.RequestID = action, p.id, fmt.Sprintf("%s/%d", p.id, p.steps)
	var a serverAnswer
	err := p.s.call(http.MethodPost, "/step", req, &a, "a step answer")
	if err == nil && a.Observation == nil {
		err = p.s.broken("POST /step: an answer without an observation", nil)
	}
	if err == nil {
		o := a.Observation
		err = p.s.checkText(append(append([]string{o.Text, o.Key}, o.Admissible...), o.Features...)...)
	}
	if err != nil {
		return p.fail(err)
	}
	o := a.Observation
	p.answered(o.Admissible, o.Features, a.Done)
	var reward float64
	if a.Reward != nil {
		reward = *a.Reward
	}
	return Step{Observation: o.Text, Reward: reward, Done: a.Done, Success: o.Success, Score: o.Score, Valid: o.Valid, Key: boundKey(o.Key)}
}

// Close tells the server to drop the episode when it is not done yet
// (POST /close).
func (p *serverEpisode) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return nil
	}
	p.end()
	var ok struct {
		Closed bool `json:"closed"`
	}
	return p.s.call(http.MethodPost, "/close", map[string]string{"episode_id": p.id}, &ok, "a close answer")
}

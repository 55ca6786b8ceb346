package env

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pats-rl/pats/lib/cleanup"
	"github.com/pats-rl/pats/lib/table"
)

// stderrTail keeps the last bytes a child wrote to stderr, for errors.
type stderrTail struct {
	mu  sync.Mutex
	buf []byte
}

const stderrKeep = 2048

func (t *stderrTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > stderrKeep {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-stderrKeep:]...)
	}
	return len(p), nil
}

func (t *stderrTail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}

// execEnv is the client side: one child process per Env, requests
// serialised by mu.
type execEnv struct {
	command string // scrubbed (table.Scrub): it reaches messages and outputs
	cmd     *exec.Cmd
	stdin   *os.File
	stdout  *bufio.Reader
	stdoutF *os.File
	stderr  *stderrTail
	exited  chan struct{} // closed when the child has exited
	waitErr error         // set before exited is closed

	opts   ExecOptions
	undo   func() // removes the child's entry from lib/cleanup
	marker string // SessionVar's value in the child's environment: what it started inherits it

	// dl guards the read deadline of stdoutF: the step timeout's, and
	// once the child has exited, exitWait after (so that a read held
	// open by a descendant that escaped still ends).
	dl       sync.Mutex
	exitAt   time.Time
	cancelAt time.Time // when ExecOptions.Context ended; zero while it runs
	stop     func() bool

	mu       sync.Mutex
	broken   error // set once the stream is unusable; every later call returns it
	info     InfoResponse
	tasks    map[string][]string
	nextEp   int64
	closed   bool
	lastLine int
}

// How long to wait for a child's exit status after its stdout ended, for
// a clean exit after Close closes its stdin, and for the end of a killed
// child or of its output pipes after it exited (the stderr copier, a read
// of stdout): every wait on a child is bounded by one of these.
const (
	exitWait  = 5 * time.Second
	closeWait = 5 * time.Second
	reapWait  = 5 * time.Second
)

// SessionVar is the variable every exec: child gets, with a value of its
// own (the pats process's id and the child's number): whatever the child
// starts inherits it, in a process group or session of its own too, and
// is ended with the child (endSession). A descendant that clears its
// environment is not found this way.
const SessionVar = "PATS_EXEC_SESSION"

var sessions atomic.Int64

// OpenExec starts command (split by SplitCommand; no shell is involved, so
// write "sh -c '...'" for shell syntax) as a child process speaking the
// JSON-lines protocol on its stdin and stdout (docs/env-protocol.md), asks
// it for info and returns it as an Env. The child's stderr is kept (its
// last 2 KiB) for error messages.
//
// Concurrency: the Env is safe for concurrent use; requests of all episodes
// go through one child, one request at a time (a mutex), so episodes run in
// parallel goroutines interleave but never overlap in the child.
//
// The returned Env also implements io.Closer: Close closes the child's
// stdin, waits briefly for it to exit and kills it otherwise. Episodes
// implement Close() error (tell the child to drop an unfinished episode)
// and Err() error (the transport error that ended the episode, if any):
// Step cannot return an error, so a failed step returns a Step with Done
// set, Valid unset and an observation starting "environment error:", and
// adds the feature "failure:env_error". After the child crashes or sends a
// malformed line the Env is broken: every later call returns that error.
//
// With no ExecOptions.StepTimeout a child that never answers blocks the
// caller until the command is interrupted: the child runs in a process
// group of its own, which is killed whenever the child ends (so that what
// it started, even a process that ignores SIGTERM, does not outlive it),
// when the Env breaks or closes, when the command gets SIGINT or SIGTERM
// (lib/cleanup), and, on Linux, the child is killed when the command
// itself dies (the parent-death signal; its own children then live on). An answer line longer
// than ExecOptions.MaxLine breaks the Env.
//
// Name is the name the child reports. Oracle returns nil: the protocol has
// no oracle, so exec environments cannot be used with the oracle policy.
func OpenExec(command string) (Env, error) {
	return OpenExecWith(command, ExecOptions{})
}

// ExecOptions are the limits of an exec: environment.
type ExecOptions struct {
	// StepTimeout bounds the wait for each answer (and each request's
	// write); 0: no bound. A child that misses it is killed and the Env
	// breaks.
	StepTimeout time.Duration
	// MaxLine bounds the length of one answer line in bytes; 0:
	// DefaultMaxLine.
	MaxLine int
	// Workers is how many children serve the environment (OpenWith): each
	// episode is played by one of them, so that episodes in flight do not
	// wait on one child; 0 or 1: one child.
	Workers int
	// Context, when it ends, ends every wait on the child at once: the
	// child is killed and the call in flight returns the context's error
	// (wrapped, so errors.Is finds context.Canceled); nil: never.
	Context context.Context
}

// DefaultMaxLine is the longest answer line read from an exec: child
// unless ExecOptions.MaxLine says otherwise.
const DefaultMaxLine = 16 << 20

// OpenExecWith is OpenExec with limits.
func OpenExecWith(command string, opts ExecOptions) (Env, error) {
	if opts.MaxLine <= 0 {
		opts.MaxLine = DefaultMaxLine
	}
	args, err := SplitCommand(command)
	command = table.Scrub(command) // from here on the command is only shown
	if err != nil {
		return nil, fmt.Errorf("exec env: %s", table.Scrub(err.Error()))
	}
	if len(args) == 0 {
		return nil, errors.New("exec env: empty command")
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("exec env %q: %w", command, err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("exec env %q: %w", command, err)
	}
	e := &execEnv{
		command: command, stdin: inW, stdoutF: outR, stdout: bufio.NewReader(outR),
		stderr: &stderrTail{}, exited: make(chan struct{}), tasks: map[string][]string{}, opts: opts,
	}
	e.cmd = exec.Command(args[0], args[1:]...)
	e.cmd.Stdin, e.cmd.Stdout, e.cmd.Stderr = inR, outW, e.stderr
	e.marker = fmt.Sprintf("%d.%d", os.Getpid(), sessions.Add(1))
	e.cmd.Env = append(ChildEnv(os.Environ()), SessionVar+"="+e.marker)
	e.cmd.SysProcAttr = childAttr()
	// The stderr copier ends at most reapWait after the child, even when
	// a descendant holds the pipe open.
	e.cmd.WaitDelay = reapWait
	err = e.cmd.Start()
	// The child holds its own copies of these ends.
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("exec env %q: cannot start: %w", command, err)
	}
	e.undo = cleanup.Add(e.kill)
	e.stop = func() bool { return false }
	if ctx := opts.Context; ctx != nil {
		e.stop = context.AfterFunc(ctx, e.cancel)
	}
	go func() {
		// Whenever the child ends (closed, broken, crashed or done), what
		// it started ends with it: its process group is killed before the
		// child is reaped.
		endGroupOnExit(e.cmd.Process)
		endSession(e.marker)
		e.waitErr = e.cmd.Wait()
		endGroupAfterReap(e.cmd.Process)
		endSession(e.marker)
		e.dl.Lock()
		e.exitAt = time.Now()
		e.stdoutF.SetReadDeadline(e.exitAt.Add(exitWait))
		e.dl.Unlock()
		e.undo()
		e.stop()
		close(e.exited)
	}()
	if err := e.call(Request{Op: OpInfo}, &e.info); err != nil {
		e.Close()
		return nil, err
	}
	if e.info.Protocol != 0 && e.info.Protocol != ProtocolVersion {
		e.Close()
		return nil, fmt.Errorf("exec env %q: child speaks protocol %d, want %d", command, e.info.Protocol, ProtocolVersion)
	}
	if e.info.Name == "" {
		// The name is stored in every trajectory's env column.
		e.info.Name = "exec:" + command
	}
	return e, nil
}

// call sends req and decodes the answer into resp.
func (e *execEnv) call(req Request, resp any) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.callLocked(req, resp)
}

func (e *execEnv) callLocked(req Request, resp any) error {
	if e.broken != nil {
		return e.broken
	}
	if e.closed {
		return fmt.Errorf("exec env %q: closed", e.command)
	}
	line, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("exec env %q: encoding %s request: %w", e.command, req.Op, err)
	}
	if t := e.opts.StepTimeout; t > 0 {
		e.stdin.SetWriteDeadline(time.Now().Add(t))
	}
	e.setReadDeadline()
	if _, err := e.stdin.Write(append(line, '\n')); err != nil {
		if cerr := e.cancelled(); cerr != nil {
			return e.breakUnder(fmt.Sprintf("%s request cancelled", req.Op), cerr, false)
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return e.breakUnder(fmt.Sprintf("the child took no %s request within the step timeout of %s", req.Op, e.opts.StepTimeout), err, false)
		}
		return e.breakWith(fmt.Sprintf("cannot send %s request", req.Op), err, true)
	}
	got, err := readLine(e.stdout, e.opts.MaxLine)
	if err != nil {
		if cerr := e.cancelled(); cerr != nil {
			return e.breakUnder(fmt.Sprintf("wait for the answer to %s cancelled", req.Op), cerr, false)
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			select {
			case <-e.exited:
				return e.breakUnder(fmt.Sprintf("child exited without answering %s (what it started kept its output open)", req.Op), err, true)
			default:
			}
			return e.breakUnder(fmt.Sprintf("no answer to %s within the step timeout of %s", req.Op, e.opts.StepTimeout), err, false)
		}
		if errors.Is(err, errLongLine) {
			return e.breakUnder(fmt.Sprintf("answer to %s longer than %d bytes", req.Op, e.opts.MaxLine), err, false)
		}
		if err == io.EOF {
			return e.breakUnder(fmt.Sprintf("child closed its output before answering %s", req.Op), err, true)
		}
		return e.breakWith(fmt.Sprintf("reading answer to %s", req.Op), err, true)
	}
	e.lastLine++
	var er errorResponse
	if err := json.Unmarshal(got, &er); err != nil {
		return e.breakWith(fmt.Sprintf("malformed answer to %s (output line %d %q)", req.Op, e.lastLine, clip(string(got), 120)), err, false)
	}
	if er.Error != "" {
		return fmt.Errorf("exec env %q: %s: %s", e.command, req.Op, clipFront(er.Error, MaxErrorBytes))
	}
	if err := json.Unmarshal(got, resp); err != nil {
		return e.breakWith(fmt.Sprintf("malformed answer to %s (output line %d %q)", req.Op, e.lastLine, clip(string(got), 120)), err, false)
	}
	return nil
}

// cancel ends the child and every wait on it at once (ExecOptions.Context
// ended): what is in flight returns the context's error (cancelled).
func (e *execEnv) cancel() {
	e.dl.Lock()
	e.cancelAt = time.Now()
	e.stdoutF.SetReadDeadline(e.cancelAt)
	e.stdin.SetWriteDeadline(e.cancelAt)
	e.dl.Unlock()
	e.kill()
}

// cancelled is the error of ExecOptions.Context once it ended, else nil.
func (e *execEnv) cancelled() error {
	if e.opts.Context == nil {
		return nil
	}
	return e.opts.Context.Err()
}

// setReadDeadline bounds the next read of the child's stdout: by the step
// timeout, after the child exited by exitWait from its exit, and at once
// once ExecOptions.Context ended.
func (e *execEnv) setReadDeadline() {
	e.dl.Lock()
	defer e.dl.Unlock()
	if !e.cancelAt.IsZero() {
		e.stdoutF.SetReadDeadline(e.cancelAt)
		return
	}
	var d time.Time
	if t := e.opts.StepTimeout; t > 0 {
		d = time.Now().Add(t)
	}
	if !e.exitAt.IsZero() {
		if x := e.exitAt.Add(exitWait); d.IsZero() || x.Before(d) {
			d = x
		}
	}
	e.stdoutF.SetReadDeadline(d)
}

// breakWith marks the Env unusable and returns the error that every later
// call will return: what went wrong, the child's exit status when known, and
// the tail of its stderr. gone says the child has probably ended (its output
// closed, or a write failed): breakWith waits up to exitWait for its status.
// Otherwise (a malformed answer) the child is killed at once. The error
// wraps cause (errors.Is and errors.As find it).
func (e *execEnv) breakWith(what string, cause error, gone bool) error {
	if cause != nil {
		what += ": " + table.Scrub(cause.Error())
	}
	return e.breakUnder(what, cause, gone)
}

// breakUnder is breakWith for a cause that what already says in words
// (a deadline, the end of the output): the message does not repeat it,
// the error still wraps it.
func (e *execEnv) breakUnder(what string, cause error, gone bool) error {
	msg := fmt.Sprintf("exec env %q: %s", e.command, what)
	if gone && e.cancelled() == nil {
		t := time.NewTimer(exitWait)
		select {
		case <-e.exited:
		case <-t.C:
		}
		t.Stop()
	}
	select {
	case <-e.exited:
		if e.waitErr != nil {
			msg += "; child " + e.waitErr.Error()
		} else {
			msg += "; child exited with status 0"
		}
	default:
		e.kill()
		select {
		case <-e.exited:
			msg += "; child killed"
		case <-time.After(reapWait):
			msg += fmt.Sprintf("; child killed, and not ended %s later", reapWait)
		}
	}
	if tail := e.stderr.String(); tail != "" {
		msg += "; stderr: " + clip(tail, 500)
	}
	e.broken = &BrokenError{msg: msg, err: cause}
	return e.broken
}

var errLongLine = errors.New("line too long")

// readLine reads one line of at most max bytes (newline included).
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		part, err := br.ReadSlice('\n')
		if len(line)+len(part) > max {
			return nil, errLongLine
		}
		line = append(line, part...)
		if err == bufio.ErrBufferFull {
			continue
		}
		return line, err
	}
}

// kill ends the child's whole process group, and what it started
// elsewhere (endSession).
func (e *execEnv) kill() {
	if p := e.cmd.Process; p != nil {
		killGroup(p)
	}
	endSession(e.marker)
}

func clip(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}

// Close ends the child: it closes its stdin, waits up to 5 s for it to exit
// and kills it otherwise. The error is the child's exit error, if any.
func (e *execEnv) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	e.stdin.Close()
	select {
	case <-e.exited:
	case <-time.After(closeWait):
		e.kill()
		select {
		case <-e.exited:
		case <-time.After(reapWait):
			e.stdoutF.Close()
			return fmt.Errorf("exec env %q: child killed, and not ended %s later", e.command, reapWait)
		}
	}
	e.stdoutF.Close()
	if e.broken != nil {
		return nil // already reported
	}
	if e.waitErr != nil {
		return fmt.Errorf("exec env %q: child %w", e.command, e.waitErr)
	}
	return nil
}

func (e *execEnv) Name() string         { return e.info.Name }
func (e *execEnv) TaskTypes() []string  { return append([]string(nil), e.info.TaskTypes...) }
func (e *execEnv) Splits() []string     { return append([]string(nil), e.info.Splits...) }
func (e *execEnv) Vocabulary() []string { return append([]string(nil), e.info.Vocabulary...) }

// Oracle returns nil: the exec protocol has no oracle.
func (e *execEnv) Oracle() Agent { return nil }

// Tasks asks the child once per split and caches the answer.
func (e *execEnv) Tasks(split string) ([]string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if t, ok := e.tasks[split]; ok {
		return append([]string(nil), t...), nil
	}
	var r TasksResponse
	if err := e.callLocked(Request{Op: OpTasks, Split: split}, &r); err != nil {
		return nil, err
	}
	// A task id names one group of episodes: listed twice it would give
	// rows with the same (group_id, sample).
	seen := make(map[string]int, len(r.Tasks))
	for i, id := range r.Tasks {
		if j, dup := seen[id]; dup {
			return nil, fmt.Errorf("exec env %q: split %s lists task id %q twice (entries %d and %d); task ids must be unique", e.command, split, id, j, i)
		}
		seen[id] = i
	}
	e.tasks[split] = r.Tasks
	return append([]string(nil), r.Tasks...), nil
}

func (e *execEnv) Reset(id string, seed int64) (Episode, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.nextEp++
	n := e.nextEp
	var r ResetResponse
	if err := e.callLocked(Request{Op: OpReset, ID: id, Seed: seed, Episode: n}, &r); err != nil {
		return nil, err
	}
	r.Key = boundKey(r.Key)
	ep := &execEpisode{env: e, n: n, reset: r}
	ep.answered(r.Admissible, r.Features, false)
	return ep, nil
}

// execEpisode mirrors one episode of the child. Its state (admissible
// actions, features) is what the last answer said.
type execEpisode struct {
	mirror
	env   *execEnv
	n     int64
	reset ResetResponse
}

func (p *execEpisode) TaskID() string      { return p.reset.TaskID }
func (p *execEpisode) TaskType() string    { return p.reset.TaskType }
func (p *execEpisode) Goal() string        { return p.reset.Goal }
func (p *execEpisode) Observation() string { return p.reset.Observation }
func (p *execEpisode) MaxSteps() int       { return p.reset.MaxSteps }

// InitialKey is the key the child sent with reset ("" when it sent none).
func (p *execEpisode) InitialKey() string { return p.reset.Key }

// EpisodeOver is the observation of a step sent after the episode ended
// (the child has already dropped it).
const EpisodeOver = "The episode is over."

// Step sends the action. After done it answers locally (EpisodeOver, Done,
// not Valid) without asking the child.
func (p *execEpisode) Step(action string) Step {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return Step{Observation: EpisodeOver, Done: true}
	}
	var r StepResponse
	if err := p.env.call(Request{Op: OpStep, Episode: p.n, Action: action}, &r); err != nil {
		return p.fail(err)
	}
	p.answered(r.Admissible, r.Features, r.Done)
	return Step{Observation: r.Observation, Reward: r.Reward, Done: r.Done, Success: r.Success, Score: r.Score, Valid: r.Valid, Key: boundKey(r.Key)}
}

// Close tells the child to drop the episode when it is not done yet.
func (p *execEpisode) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return nil
	}
	p.end()
	var ok okResponse
	return p.env.call(Request{Op: OpClose, Episode: p.n}, &ok)
}

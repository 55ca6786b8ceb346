package env_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/env/internal/counterenv"
	"github.com/pats-rl/pats/lib/remote"
	"github.com/pats-rl/pats/lib/remote/remotetest"
)

// fakeServer serves the counter environment in the HTTP shape of
// docs/env-protocol.md ("Environment servers"), answering a repeated
// request id from what it answered before. requests counts requests by
// path.
type fakeServer struct {
	mu       sync.Mutex
	e        env.Env
	eps      map[string]env.Episode
	last     map[string][]byte // episode -> last answer
	lastID   map[string]string // episode -> last request id
	requests map[string]int
	applied  atomic.Int64 // steps applied to an episode
}

func newFake() *fakeServer {
	return &fakeServer{e: counterenv.New(), eps: map[string]env.Episode{}, last: map[string][]byte{}, lastID: map[string]string{}, requests: map[string]int{}}
}

func (f *fakeServer) count(path string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests[path]
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests[r.URL.Path]++
	f.mu.Unlock()
	answer := func(v any) {
		b, _ := json.Marshal(v)
		w.Write(b)
	}
	var body struct {
		Seed      int64  `json:"seed"`
		EpisodeID string `json:"episode_id"`
		TaskID    string `json:"task_id"`
		RequestID string `json:"request_id"`
		Action    struct {
			Text string `json:"text"`
		} `json:"action"`
	}
	if r.Method == http.MethodPost {
		json.NewDecoder(r.Body).Decode(&body)
	}
	switch r.URL.Path {
	case "/metadata":
		answer(map[string]any{"name": f.e.Name(), "task_types": f.e.TaskTypes(), "splits": f.e.Splits(), "vocabulary": f.e.Vocabulary()})
	case "/tasks":
		ids, err := f.e.Tasks(r.URL.Query().Get("split"))
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			answer(map[string]string{"detail": err.Error()})
			return
		}
		answer(map[string]any{"tasks": ids})
	case "/reset":
		ep, err := f.e.Reset(body.TaskID, body.Seed)
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			answer(map[string]string{"detail": err.Error()})
			return
		}
		f.mu.Lock()
		f.eps[body.EpisodeID] = ep
		f.mu.Unlock()
		answer(map[string]any{"observation": map[string]any{"text": ep.Observation(), "task_id": ep.TaskID(), "task_type": ep.TaskType(),
			"goal": ep.Goal(), "admissible": ep.Admissible(), "max_steps": ep.MaxSteps(), "features": ep.Features()}, "reward": nil, "done": false})
	case "/step":
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.lastID[body.EpisodeID] == body.RequestID {
			w.Write(f.last[body.EpisodeID])
			return
		}
		ep := f.eps[body.EpisodeID]
		if ep == nil {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		st := ep.Step(body.Action.Text)
		f.applied.Add(1)
		b, _ := json.Marshal(map[string]any{"observation": map[string]any{"text": st.Observation, "admissible": ep.Admissible(),
			"features": ep.Features(), "success": st.Success, "score": st.Score, "valid": st.Valid}, "reward": st.Reward, "done": st.Done})
		f.last[body.EpisodeID], f.lastID[body.EpisodeID] = b, body.RequestID
		w.Write(b)
	case "/close":
		answer(map[string]bool{"closed": true})
	default:
		w.WriteHeader(http.StatusNotFound)
	}
}

// hold answers nothing until the client goes away (its body read, so
// that the server notices the connection close).
func hold(r *http.Request) {
	io.Copy(io.Discard, r.Body)
	<-r.Context().Done()
}

func openServer(t *testing.T, url string, o env.ServerOptions) env.Env {
	t.Helper()
	e, err := env.OpenServer(url, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.(io.Closer).Close() })
	return e
}

// TestServerMatchesInProcess: every episode played through a server, in
// parallel goroutines, shows what the environment shows in process; at
// most Concurrency requests are in flight at once.
func TestServerMatchesInProcess(t *testing.T) {
	fake := newFake()
	var inFlight, most atomic.Int64
	s := remotetest.Hostile(t, func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(2 * time.Millisecond)
		fake.ServeHTTP(w, r)
	})
	srv := openServer(t, s.URL, env.ServerOptions{Concurrency: 3})
	local := counterenv.New()
	if srv.Name() != local.Name() || !reflect.DeepEqual(srv.TaskTypes(), local.TaskTypes()) || !reflect.DeepEqual(srv.Vocabulary(), local.Vocabulary()) {
		t.Fatalf("metadata differs: %q %v", srv.Name(), srv.TaskTypes())
	}
	ids, err := srv.Tasks(env.SplitTrain)
	if want, _ := local.Tasks(env.SplitTrain); err != nil || !reflect.DeepEqual(ids, want) {
		t.Fatalf("tasks %v %v, want %v", ids, err, want)
	}
	var wg sync.WaitGroup
	var bad sync.Map
	for _, id := range ids {
		for seed := range int64(4) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if g, w := run(t, srv, id, seed, env.RandomAgent()), run(t, local, id, seed, env.RandomAgent()); !reflect.DeepEqual(g, w) {
					bad.Store(fmt.Sprintf("%s/%d", id, seed), fmt.Sprintf("\n got %+v\nwant %+v", g, w))
				}
			}()
		}
	}
	wg.Wait()
	bad.Range(func(k, v any) bool { t.Errorf("%s: differs%s", k, v); return true })
	if m := most.Load(); m > 3 || m < 2 {
		t.Errorf("%d requests in flight at most, want 3 at most (and more than 1)", m)
	}
}

// TestServerRetries: answers 503 and a dropped connection are retried
// (a step with the same request id, applied once); an answer 400 is the
// server's word (not retried, not a broken environment).
func TestServerRetries(t *testing.T) {
	fake := newFake()
	var fails atomic.Int64
	s := remotetest.Hostile(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/step" {
			switch fails.Add(1) {
			case 1:
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			case 2: // applied, then the answer is lost
				rec := httptest.NewRecorder()
				fake.ServeHTTP(rec, r)
				panic(http.ErrAbortHandler)
			}
		}
		fake.ServeHTTP(w, r)
	})
	srv := openServer(t, s.URL, env.ServerOptions{Retries: 2, Backoff: time.Millisecond})
	ep, err := srv.Reset("up-3", 1)
	if err != nil {
		t.Fatal(err)
	}
	st := ep.Step("inc")
	if ep.(interface{ Err() error }).Err() != nil || st.Observation == "" || !st.Valid {
		t.Fatalf("retried step: %+v %v", st, ep.(interface{ Err() error }).Err())
	}
	if n, want := fake.count("/step"), 2; n != want || fake.applied.Load() != 1 {
		t.Errorf("the fake saw %d steps (want %d: the 503 never reached it), applied %d (want 1)", n, want, fake.applied.Load())
	}
	_, err = srv.Tasks("holdout")
	var broken *env.BrokenError
	if err == nil || errors.As(err, &broken) || !strings.Contains(err.Error(), "HTTP 400") || fake.count("/tasks") != 1 {
		t.Errorf("unknown split: %v after %d requests: want one answer 400, not a broken environment", err, fake.count("/tasks"))
	}
}

// TestServerDownOrHanging: a server that is down, or answers nothing
// within the timeout, breaks the environment after its retries, with one
// line that never shows the URL's password; a timeout wraps
// os.ErrDeadlineExceeded.
func TestServerDownOrHanging(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := strings.Replace(down.URL, "http://", "http://alice:sekrit@", 1)
	down.Close()
	_, err := env.OpenServer(downURL, env.ServerOptions{Retries: 1, Backoff: time.Millisecond})
	var broken *env.BrokenError
	if !errors.As(err, &broken) || !strings.Contains(err.Error(), "after 2 tries") || strings.Contains(err.Error(), "sekrit") || strings.Contains(err.Error(), "\n") {
		t.Errorf("down: %v", err)
	}
	fake := newFake()
	hang := remotetest.Hostile(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/step" {
			hold(r)
			return
		}
		fake.ServeHTTP(w, r)
	})
	srv := openServer(t, hang.URL, env.ServerOptions{Timeout: 100 * time.Millisecond, Retries: 1, Backoff: time.Millisecond})
	ep, err := srv.Reset("up-3", 1)
	if err != nil {
		t.Fatal(err)
	}
	if st := ep.Step("inc"); !st.Done || st.Valid {
		t.Fatalf("a hanging step: %+v", st)
	}
	err = ep.(interface{ Err() error }).Err()
	if !errors.As(err, &broken) || !errors.Is(err, os.ErrDeadlineExceeded) || !strings.Contains(err.Error(), "no answer within 100ms") {
		t.Fatalf("hanging: %v", err)
	}
	// Once down, later requests fail at once with the same error.
	if _, err2 := srv.Reset("up-5", 1); err2 == nil || err2.Error() != err.Error() {
		t.Errorf("after the server went down: %v", err2)
	}
}

// TestServerCancelEndsWaits: cancelling the context ends a request in
// flight and a wait between retries at once.
func TestServerCancelEndsWaits(t *testing.T) {
	fake := newFake()
	for _, hangs := range []bool{true, false} {
		s := remotetest.Hostile(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/reset" {
				if hangs {
					hold(r)
				} else {
					w.WriteHeader(http.StatusServiceUnavailable)
				}
				return
			}
			fake.ServeHTTP(w, r)
		})
		ctx, cancel := context.WithCancel(context.Background())
		srv := openServer(t, s.URL, env.ServerOptions{Timeout: time.Hour, Backoff: time.Hour, Retries: 3, Context: ctx})
		time.AfterFunc(100*time.Millisecond, cancel)
		done := make(chan error)
		go func() {
			_, err := srv.Reset("up-3", 1)
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("hangs=%v: %v, want context.Canceled", hangs, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("hangs=%v: the request still waits 10s after the cancel", hangs)
		}
		cancel()
	}
}

// TestServerHostileAnswers: a redirect to another host, an endless answer
// and an answer that repeats the URL's password are refused; the answer
// is read no further than its bound.
func TestServerHostileAnswers(t *testing.T) {
	other := remotetest.Hostile(t, newFake().ServeHTTP)
	redirect := remotetest.Hostile(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, strings.Replace(other.URL, "127.0.0.1", "localhost", 1)+r.URL.Path, http.StatusFound)
	})
	if _, err := env.OpenServer(redirect.URL, env.ServerOptions{}); !remote.IsRedirect(err) {
		t.Errorf("redirect to another host: %v", err)
	}
	endless := remotetest.Hostile(t, func(w http.ResponseWriter, r *http.Request) {
		remotetest.Endless(w, `{"name":"`, "x")
	})
	var read atomic.Int64
	_, err := env.OpenServer(endless.URL, env.ServerOptions{MaxAnswer: 1000, Client: remotetest.CountingClient(&read)})
	if !errors.Is(err, remote.ErrTooLarge) || read.Load() > 64<<10 {
		t.Errorf("endless answer: %v after %d bytes read", err, read.Load())
	}
	echo := remotetest.Hostile(t, func(w http.ResponseWriter, r *http.Request) {
		user, pass, _ := r.BasicAuth()
		fmt.Fprintf(w, `{"name":"echo","task_types":["t"],"splits":["train"],"vocabulary":[%q]}`, user+":"+pass)
	})
	_, err = env.OpenServer(strings.Replace(echo.URL, "http://", "http://bob:pw-sekrit-2@", 1), env.ServerOptions{})
	if err == nil || !strings.Contains(err.Error(), "holds a credential") || strings.Contains(err.Error(), "pw-sekrit-2") {
		t.Errorf("an answer that repeats the password: %v", err)
	}
}

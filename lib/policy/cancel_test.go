package policy_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/pats-rl/pats/lib/policy"
)

// silent starts a server that takes each request and never answers it
// (until the request is given up or the test ends); arrived gets one
// value per request.
func silent(t *testing.T) (url string, arrived chan struct{}) {
	t.Helper()
	arrived = make(chan struct{}, 16)
	done := make(chan struct{})
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	t.Cleanup(func() { close(done); s.Close() })
	return s.URL, arrived
}

// waitErr waits for a request's error; the 30 s bound only keeps a broken
// build from hanging (the request's own timeout is an hour).
func waitErr(t *testing.T, errs chan error, what string) error {
	t.Helper()
	select {
	case err := <-errs:
		return err
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: the request still waits on the server after its context was cancelled", what)
		return nil
	}
}

// TestServedCancel: a cancelled context ends a request the server never
// answers, and the wait between retries, at once (the request's timeout
// and backoff are an hour), with an error that wraps context.Canceled.
func TestServedCancel(t *testing.T) {
	dir := tinyCheckpoint(t)
	for _, c := range []struct {
		name    string
		answer  bool // the server answers 503 at once: the wait is the backoff
		retries int
	}{{"in a request", false, 0}, {"between retries", true, 5}} {
		t.Run(c.name, func(t *testing.T) {
			url, arrived := silent(t)
			if c.answer {
				s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					arrived <- struct{}{}
					w.WriteHeader(http.StatusServiceUnavailable)
				}))
				t.Cleanup(s.Close)
				url = s.URL
			}
			p, err := policy.LoadServed(dir, policy.ServerOptions{URL: url, Kind: policy.ServerSGLang, Timeout: time.Hour,
				Retries: c.retries, Backoff: time.Hour}, policy.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			errs := make(chan error, 1)
			go func() {
				_, err := p.Generate(ctx, []int32{1, 2, 3}, []int32{0}, 4, 1)
				errs <- err
			}()
			<-arrived
			cancel()
			err = waitErr(t, errs, c.name)
			if !errors.Is(err, context.Canceled) {
				t.Errorf("%v: want an error that wraps context.Canceled", err)
			}
		})
	}
}

// TestServedTimeoutChain: a request that runs past its timeout is retried
// and at last refused with a message that says it timed out and an error
// chain that holds context.DeadlineExceeded (errors.Is, not the message).
func TestServedTimeoutChain(t *testing.T) {
	url, _ := silent(t)
	p, err := policy.LoadServed(tinyCheckpoint(t), policy.ServerOptions{URL: url, Kind: policy.ServerSGLang,
		Timeout: 20 * time.Millisecond, Retries: 1, Backoff: time.Millisecond}, policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Generate(context.Background(), []int32{1, 2, 3}, []int32{0}, 4, 1)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no answer after 2 tries: timed out") {
		t.Errorf("%v: want a timeout in the chain and in the message", err)
	}
}

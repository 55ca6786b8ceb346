package remote

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestRetry: a failure that may pass is tried again up to retries more
// times, one that may not is returned at once, a success ends the tries;
// a cancelled context ends a wait between tries at once.
func TestRetry(t *testing.T) {
	boom := errors.New("boom")
	for _, c := range []struct {
		name      string
		failFirst int  // tries that fail before a success
		retry     bool // whether a failure may pass
		retries   int
		tries     int
		ok        bool
	}{
		{"success at once", 0, true, 3, 1, true},
		{"success on the third try", 2, true, 3, 3, true},
		{"out of tries", 10, true, 2, 3, false},
		{"a failure that may not pass", 10, false, 5, 1, false},
		{"no retries", 10, true, 0, 1, false},
	} {
		calls := 0
		tries, err := Retry(context.Background(), c.retries, time.Microsecond, func(context.Context) (bool, error) {
			calls++
			if calls <= c.failFirst {
				return c.retry, boom
			}
			return false, nil
		})
		if tries != c.tries || calls != c.tries || (err == nil) != c.ok || (!c.ok && !errors.Is(err, boom)) {
			t.Errorf("%s: %d tries (%d calls), err %v; want %d tries, ok %v", c.name, tries, calls, err, c.tries, c.ok)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	done := make(chan error)
	go func() {
		_, err := Retry(ctx, 3, time.Hour, func(context.Context) (bool, error) { return true, boom })
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled wait: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a cancelled wait of an hour still waits 10s later")
	}
}

// TestRetryStatus: 429, 502, 503 and 504 may pass; other statuses do not.
func TestRetryStatus(t *testing.T) {
	for code, want := range map[int]bool{429: true, 502: true, 503: true, 504: true, 200: false, 400: false, 404: false, 500: false, 501: false} {
		if RetryStatus(code) != want {
			t.Errorf("HTTP %d (%s): retry %v, want %v", code, http.StatusText(code), !want, want)
		}
	}
}

// TestCheckURL: a base URL with a host and a port in range; no query,
// fragment, blanks or other scheme; credentials never in the message.
func TestCheckURL(t *testing.T) {
	for s, ok := range map[string]bool{"http://h:8000": true, "https://u:pw-zz@h/v1": true, "ftp://h": false,
		"http://h:0": false, "http://h?x=1": false, "http://": false, "http://h /v1": false, "file.txt": false} {
		err := CheckURL(s)
		if (err == nil) != ok {
			t.Errorf("%q: %v", s, err)
		}
	}
	if err := CheckURL("ftp://u:pw-zz-secret@h"); err == nil || strings.Contains(err.Error(), "pw-zz-secret") {
		t.Errorf("credentials in the message: %v", err)
	}
}

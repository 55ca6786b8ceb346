package main

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/remote/remotetest"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// wordCheckpoint is a one-layer checkpoint with the built-in word-level
// tokenizer.
func wordCheckpoint(t *testing.T) string {
	t.Helper()
	wl, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	js, err := wl.JSON()
	if err != nil {
		t.Fatal(err)
	}
	return checkpoint(t, js, wl.VocabSize(), false)
}

// failsCleanly runs rollout with args and wants exit code, one line on
// stderr holding each of want and none of never, and no output file.
func failsCleanly(t *testing.T, code int, want, never []string, args ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "t.parquet")
	got, stderr := run(t, append(args, "--tasks", "1", "--group", "1", "--max-context", "300", "-o", out)...)
	if got != code || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Fatalf("exit %d, stderr %q: want exit %d and one line", got, stderr, code)
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Fatalf("stderr %q lacks %q", stderr, w)
		}
	}
	for _, n := range never {
		if strings.Contains(stderr, n) {
			t.Fatalf("stderr %q shows %q", stderr, n)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("output written")
	}
	return stderr
}

// TestHostileServerCredentials: a server that echoes the credentials it
// got (a 401 body as hosted APIs write it, with the header) shows none of
// them on stderr, whether they came from --api-key, $OPENAI_API_KEY or a
// URL's user:password (sent as Basic auth).
func TestHostileServerCredentials(t *testing.T) {
	ck := wordCheckpoint(t)
	echo := remotetest.Hostile(t, func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error": {"message": "Incorrect API key provided: %s", "header": %q}}`, auth[strings.IndexByte(auth, ' ')+1:], auth)
	})
	withPassword := strings.Replace(echo.URL, "://", "://alice:pw-h0stile@", 1)
	for name, c := range map[string]struct {
		env, url string
		args     []string
		secrets  []string
	}{
		"--api-key":       {url: echo.URL, args: []string{"--api-key", "sk-flag-h0stile"}, secrets: []string{"sk-flag-h0stile"}},
		"$OPENAI_API_KEY": {url: echo.URL, env: "sk-env-h0stile", secrets: []string{"sk-env-h0stile"}},
		"user:password@":  {url: withPassword, secrets: []string{"pw-h0stile", base64.StdEncoding.EncodeToString([]byte("alice:pw-h0stile"))}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("OPENAI_API_KEY", c.env)
			args := append([]string{"--policy", c.url + "/v1", "--tokenizer", ck, "--model", "m"}, c.args...)
			failsCleanly(t, command.ExitFailure, []string{"HTTP 401", "REDACTED"}, c.secrets, args...)
		})
	}
}

// TestHostileServerRedirect: a 307 or 302 to another port is refused
// (exit 1, one line naming both URLs); the other server plays nothing and
// gets no key.
func TestHostileServerRedirect(t *testing.T) {
	ck := wordCheckpoint(t)
	var elsewhere atomic.Int32
	other := remotetest.Hostile(t, func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		fmt.Fprint(w, `{"choices":[{"token_ids":[1]}]}`)
	})
	for _, status := range []int{http.StatusTemporaryRedirect, http.StatusFound} {
		s := remotetest.Hostile(t, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+r.URL.Path, status)
		})
		failsCleanly(t, command.ExitFailure, []string{s.URL + "/v1/completions", other.URL + "/v1/completions", "refused"}, []string{"sk-redirect"},
			"--policy", s.URL+"/v1", "--tokenizer", ck, "--model", "m", "--api-key", "sk-redirect")
	}
	if elsewhere.Load() != 0 {
		t.Fatalf("the other server got %d requests", elsewhere.Load())
	}
}

// TestHostileServerLogprobs: an answer with an impossible log-probability
// (above 0, past float32, or not a number) fails the rollout; the rows
// never record it.
func TestHostileServerLogprobs(t *testing.T) {
	ck := wordCheckpoint(t)
	for _, lp := range []string{"3e38", "0.5", "1e39", "NaN"} {
		s := remotetest.Hostile(t, func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `{"choices":[{"token_ids":[5],"logprobs":{"tokens":["token_id:5"],"token_logprobs":[%s]}}]}`, lp)
		})
		failsCleanly(t, command.ExitFailure, []string{"policy server " + s.URL}, nil, "--policy", s.URL+"/v1", "--tokenizer", ck, "--model", "m")
	}
}

// TestServerUsage: a server URL on a port no server can listen on, and
// --batch beside a server policy, are usage errors at once.
func TestServerUsage(t *testing.T) {
	ck := wordCheckpoint(t)
	for _, port := range []string{"99999", "0", "65536"} {
		failsCleanly(t, command.ExitUsage, []string{"port " + port}, nil, "--policy", "http://127.0.0.1:"+port+"/v1", "--tokenizer", ck, "--model", "m")
	}
	failsCleanly(t, command.ExitUsage, []string{"--batch", "--concurrency"}, nil, "--policy", "http://127.0.0.1:9/v1", "--tokenizer", ck, "--model", "m", "--batch", "4")
}

// TestCommandKeepsNoKey: the recorded command line (pats.command) holds
// no part of an --api-key whatever it looks like: a leading dash, blanks,
// the = spelling.
func TestCommandKeepsNoKey(t *testing.T) {
	for _, args := range [][]string{{"--api-key", "-dashSECRET"}, {"--api-key", "a b SECRET"}, {"--api-key=c d SECRET"}, {"-api-key", "--SECRET"}} {
		out := filepath.Join(t.TempDir(), "t.parquet")
		args = append(args, "--tasks", "1", "--group", "1", "-o", out)
		saved := os.Args
		os.Args = append([]string{"rollout"}, args...) // what the command line is recorded from
		code, stderr := run(t, args...)
		os.Args = saved
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, stderr)
		}
		_, metas, err := table.ReadFiles[table.Trajectory](out)
		if err != nil {
			t.Fatal(err)
		}
		if m := metas[0]; strings.Contains(m.Command, "SECRET") || !strings.Contains(m.Command, "REDACTED") {
			t.Fatalf("%q recorded as %q", args, metas[0].Command)
		}
	}
}

package policy_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pats-rl/pats/lib/policy"
	"github.com/pats-rl/pats/lib/remote"
	"github.com/pats-rl/pats/lib/remote/remotetest"
	"github.com/pats-rl/pats/lib/table"
)

// credentials are what a request carried: the bearer key, or the user and
// password of a Basic header.
func credentials(r *http.Request) []string {
	auth := r.Header.Get("Authorization")
	if key, ok := strings.CutPrefix(auth, "Bearer "); ok {
		return []string{auth, key}
	}
	if b, ok := strings.CutPrefix(auth, "Basic "); ok {
		dec, _ := base64.StdEncoding.DecodeString(b)
		_, pass, _ := strings.Cut(string(dec), ":")
		return []string{auth, b, string(dec), pass}
	}
	return nil
}

// echoes are the ways a hostile server says back what it got: in an error
// body (401, 400, 500 after the retries), as it is, base64-encoded,
// JSON-escaped, or inside an answer's field that a message quotes.
var echoes = map[string]func(w http.ResponseWriter, creds []string){
	"401 as sent": func(w http.ResponseWriter, creds []string) {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error": "Incorrect API key provided: %s (header %s)"}`, creds[len(creds)-1], creds[0])
	},
	"400 base64": func(w http.ResponseWriter, creds []string) {
		w.WriteHeader(http.StatusBadRequest)
		for _, c := range creds[1:] {
			fmt.Fprintf(w, "got %s and %s; ", base64.StdEncoding.EncodeToString([]byte(c)), base64.RawURLEncoding.EncodeToString([]byte(c)))
		}
	},
	"403 json-escaped": func(w http.ResponseWriter, creds []string) {
		w.WriteHeader(http.StatusForbidden)
		js, _ := json.Marshal(map[string][]string{"seen": creds})
		w.Write(js)
	},
	"200 quoted field": func(w http.ResponseWriter, creds []string) {
		fmt.Fprintf(w, `{"choices":[{"logprobs":{"tokens":[%q],"token_logprobs":[-1]}}], "output_token_logprobs": 1, "meta_info": {"output_token_logprobs": [[%q]]}}`, creds[len(creds)-1], creds[len(creds)-1])
	},
}

// TestServedScrubsWhatServersSay: whatever a server says back about the
// credentials it got (the API key, $OPENAI_API_KEY as --api-key reads it,
// a URL's user and password sent as Basic auth), in an error body or a
// field of its answer, as it is, base64 or JSON-escaped, reaches no
// message (as the command prints it: table.Scrub) of either server kind.
func TestServedScrubsWhatServersSay(t *testing.T) {
	dir := tinyCheckpoint(t)
	n := 0
	for _, kind := range policy.ServerKinds {
		for _, cred := range []string{"api-key", "url"} {
			for name, echo := range echoes {
				if kind == policy.ServerSGLang && name == "200 quoted field" {
					continue // no message of a /generate answer quotes the server
				}
				n++
				t.Run(kind+"/"+cred+"/"+name, func(t *testing.T) {
					var got atomic.Value
					s := remotetest.Hostile(t, func(w http.ResponseWriter, r *http.Request) {
						creds := credentials(r)
						if creds == nil {
							w.WriteHeader(http.StatusUnauthorized)
							return
						}
						got.Store(creds)
						echo(w, creds)
					})
					key := fmt.Sprintf("sk-h0stile-key-%d-x", n)
					pass := fmt.Sprintf("pw%d", n)
					so := policy.ServerOptions{URL: s.URL, Kind: kind, Model: "m", Retries: 0}
					secrets := []string{key}
					if cred == "url" {
						so.URL = strings.Replace(s.URL, "://", "://alice:"+pass+"@", 1)
						secrets = []string{pass, "alice:" + pass}
					} else {
						so.APIKey = key
					}
					p, err := policy.LoadServed(dir, so, policy.Options{})
					if err != nil {
						t.Fatal(err)
					}
					_, err = p.Generate(context.Background(), []int32{1, 2, 3}, []int32{0}, 4, 1)
					if err == nil || got.Load() == nil {
						t.Fatalf("err = %v (credentials sent: %v), want a failure after the server saw them", err, got.Load())
					}
					msg := table.Scrub(err.Error())
					for _, sec := range secrets {
						for _, f := range remotetest.Forms(sec) {
							if strings.Contains(msg, f) {
								t.Fatalf("the message shows %q (a form of %q): %s", f, sec, msg)
							}
						}
					}
					if !strings.Contains(msg, "REDACTED") {
						t.Fatalf("message %q: the server's echo is not in it", msg)
					}
				})
			}
		}
	}
}

// TestServedRefusesRedirects: a redirect to another port, host or scheme
// (any of the redirect statuses) fails the request with one line naming
// both URLs, and the other server gets nothing; a redirect within the
// server is followed without the key or the URL's password.
func TestServedRefusesRedirects(t *testing.T) {
	dir := tinyCheckpoint(t)
	var elsewhere atomic.Int32
	other := remotetest.Hostile(t, func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		fmt.Fprint(w, `{"choices":[{"token_ids":[1]}]}`)
	})
	for _, status := range []int{301, 302, 303, 307, 308} {
		for _, to := range []string{"port", "scheme"} {
			t.Run(fmt.Sprintf("%d to another %s", status, to), func(t *testing.T) {
				var target string
				s := remotetest.Hostile(t, func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, target, status)
				})
				target = other.URL + "/v1/completions"
				if to == "scheme" {
					target = strings.Replace(s.URL, "http://", "https://", 1) + "/v1/completions"
				}
				p, err := policy.LoadServed(dir, policy.ServerOptions{URL: s.URL + "/v1", Model: "m", APIKey: "sk-redirected-key", Retries: 2}, policy.Options{})
				if err != nil {
					t.Fatal(err)
				}
				_, err = p.Generate(context.Background(), []int32{1, 2, 3}, []int32{0}, 4, 1)
				if err == nil || !strings.Contains(err.Error(), s.URL+"/v1/completions") || !strings.Contains(err.Error(), target) ||
					!strings.Contains(err.Error(), "refused") || strings.Contains(err.Error(), "\n") {
					t.Fatalf("err = %v, want one line refusing the redirect from %s to %s", err, s.URL, target)
				}
				if elsewhere.Load() != 0 {
					t.Fatalf("the other server got %d requests", elsewhere.Load())
				}
			})
		}
	}
	t.Run("within the server", func(t *testing.T) {
		var moved []string
		var mu sync.Mutex
		s := remotetest.Hostile(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/v1/completions" {
				http.Redirect(w, r, "/v1/moved", http.StatusTemporaryRedirect)
				return
			}
			mu.Lock()
			moved = append(moved, r.Header.Get("Authorization"))
			mu.Unlock()
			fmt.Fprint(w, `{"choices":[{"token_ids":[1]}]}`)
		})
		for u, key := range map[string]string{s.URL + "/v1": "sk-moved-key", strings.Replace(s.URL, "://", "://alice:pw-moved@", 1) + "/v1": ""} {
			p, err := policy.LoadServed(dir, policy.ServerOptions{URL: u, Model: "m", APIKey: key}, policy.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.Generate(context.Background(), []int32{1, 2, 3}, []int32{0}, 4, 1); err != nil {
				t.Fatal(err)
			}
		}
		if len(moved) != 2 || moved[0] != "" || moved[1] != "" {
			t.Fatalf("the redirected requests carried %q, want no credentials", moved)
		}
	})
}

// TestServedAnswerBounds: an answer that never ends (a well-formed start,
// then ids forever), of either kind and in an error answer too, fails with
// its bound named, and no more than the bound is read of it.
func TestServedAnswerBounds(t *testing.T) {
	dir := tinyCheckpoint(t)
	const prompt, maxTokens = 3, 4
	bound := policy.AnswerBound(prompt, maxTokens)
	for _, c := range []struct {
		name, kind, prefix string
		status             int
		want               string
		limit              int64
	}{
		{"vllm", policy.ServerVLLM, `{"choices":[{"token_ids":[`, 200, fmt.Sprintf("more than %d bytes", bound), bound + 1},
		{"sglang", policy.ServerSGLang, `{"output_ids":[`, 200, fmt.Sprintf("more than %d bytes", bound), bound + 1},
		{"error answer", policy.ServerVLLM, `{"error":"`, 400, "HTTP 400", 64 << 10},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := remotetest.Hostile(t, func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(c.status)
				remotetest.Endless(w, c.prefix, "1,")
			})
			var read atomic.Int64
			p, err := policy.LoadServed(dir, policy.ServerOptions{URL: s.URL, Kind: c.kind, Model: "m", Retries: 0,
				Client: remotetest.CountingClient(&read)}, policy.Options{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Generate(context.Background(), make([]int32, prompt), []int32{0}, maxTokens, 1)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
			if read.Load() > c.limit {
				t.Fatalf("%d bytes of the answer read, more than its bound %d", read.Load(), c.limit)
			}
		})
	}
}

// TestServedAnswerBudget: the answers in flight together never take more
// than the budget: with room for two answers, at most two requests reach
// the server at once, however many episodes ask, and all are answered.
func TestServedAnswerBudget(t *testing.T) {
	dir := tinyCheckpoint(t)
	var inFlight, most atomic.Int32
	s := remotetest.Hostile(t, func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(20 * time.Millisecond) // room for the others to arrive (not what is asserted)
		fmt.Fprint(w, `{"choices":[{"token_ids":[1]}]}`)
	})
	budget := remote.NewBudget(2 * policy.AnswerBound(3, 4))
	p, err := policy.LoadServed(dir, policy.ServerOptions{URL: s.URL + "/v1", Model: "m", Budget: budget}, policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := p.Generate(context.Background(), []int32{1, 2, 3}, []int32{0}, 4, 1)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if most.Load() > 2 || budget.Peak() > budget.Total() || budget.Peak() == 0 {
		t.Fatalf("%d requests in flight at once, %d of %d bytes taken: want at most 2 and the budget", most.Load(), budget.Peak(), budget.Total())
	}
}

// TestServedRefusesAnswerWithSecret: an answer whose text holds the key
// sent to the server is refused (the rows would record it). The key is a
// long vocabulary word four times over, which no other test's answer
// holds (the known secrets are the process's).
func TestServedRefusesAnswerWithSecret(t *testing.T) {
	dir := tinyCheckpoint(t)
	p0, err := policy.LoadServed(dir, policy.ServerOptions{URL: "http://127.0.0.1:1/v1", Model: "m"}, policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var key string
	var ids []int32
	for id := int32(0); int(id) < p0.Tok.VocabSize() && key == ""; id++ {
		w := p0.Tok.Decode([]int32{id})
		if len(w) >= 9 && strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") == "" && p0.Tok.Decode(p0.Tok.Encode(w)) == w {
			key = strings.Repeat(w+" ", 3) + w
			ids = p0.Tok.Encode("go " + key)
		}
	}
	if key == "" {
		t.Fatal("no long word in the vocabulary")
	}
	js, _ := json.Marshal(ids)
	s := remotetest.Hostile(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"choices":[{"token_ids":%s}]}`, js)
	})
	p, err := policy.LoadServed(dir, policy.ServerOptions{URL: s.URL + "/v1", Model: "m", APIKey: key}, policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Generate(context.Background(), []int32{1, 2, 3}, []int32{0}, 8, 1); err == nil || !strings.Contains(err.Error(), "holds a credential") {
		t.Fatalf("err = %v, want the answer refused", err)
	}
}

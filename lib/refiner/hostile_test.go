package refiner

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pats-rl/pats/lib/remote/remotetest"
)

// TestOpenAIScrubsWhatServersSay: what a chat endpoint says back about the
// credentials it got (the API key or a URL's user and password, as they
// are, base64 or JSON-escaped), in an error body or in the proposals it
// answers, reaches neither the reason (stored in the proposals' metadata)
// nor the proposals.
func TestOpenAIScrubsWhatServersSay(t *testing.T) {
	in, _ := openaiInput(t)
	n := 0
	for _, cred := range []string{"api-key", "url"} {
		for _, status := range []int{401, 400, 200} {
			n++
			t.Run(fmt.Sprintf("%s/%d", cred, status), func(t *testing.T) {
				key, pass := fmt.Sprintf("sk-refiner-h0stile-%d", n), fmt.Sprintf("pw%d", n)
				s := remotetest.Hostile(t, func(w http.ResponseWriter, r *http.Request) {
					auth := r.Header.Get("Authorization")
					said := []string{auth, strings.TrimPrefix(auth, "Bearer ")}
					if b, ok := strings.CutPrefix(auth, "Basic "); ok {
						dec, _ := base64.StdEncoding.DecodeString(b)
						_, p, _ := strings.Cut(string(dec), ":")
						said = append(said, string(dec), p, base64.StdEncoding.EncodeToString([]byte(p)))
					} else {
						said = append(said, base64.StdEncoding.EncodeToString([]byte(said[1])))
					}
					js, _ := json.Marshal(said)
					if status != 200 {
						w.WriteHeader(status)
						fmt.Fprintf(w, `{"error": "Incorrect API key provided: %s", "seen": %s}`, said[len(said)-2], js)
						return
					}
					text := strings.Join(said, " ")
					answer, _ := json.Marshal(map[string]any{"proposals": []any{map[string]any{"op": "add", "text": "Use " + text,
						"rationale": "the key was " + text, "support": said}}})
					io.WriteString(w, chat(string(answer)))
				})
				o := NewOpenAI(s.URL, "m")
				o.Retries = 0
				secrets := []string{key}
				if cred == "url" {
					o.Endpoint = strings.Replace(s.URL, "://", "://alice:"+pass+"@", 1)
					secrets = []string{pass, "alice:" + pass}
				} else {
					o.APIKey = key
				}
				res, err := o.Propose(context.Background(), in)
				if err != nil {
					t.Fatal(err)
				}
				stored := res.Reason
				for _, p := range res.Proposals {
					stored += "|" + p.Text + "|" + p.Rationale + "|" + strings.Join(p.Support, "|")
				}
				if status == 200 && len(res.Proposals) != 1 || status != 200 && res.Reason == "" {
					t.Fatalf("result %+v", res)
				}
				for _, sec := range secrets {
					for _, f := range remotetest.Forms(sec) {
						if strings.Contains(stored, f) {
							t.Fatalf("%q (a form of %q) is stored: %s", f, sec, stored)
						}
					}
				}
				if !strings.Contains(stored, "REDACTED") {
					t.Fatalf("nothing scrubbed in %q: the server's echo is not in it", stored)
				}
			})
		}
	}
}

// TestOpenAIRefusesRedirects: a redirect to another port is refused with
// a reason naming both URLs, and the other server gets nothing; one within
// the server is followed without the key.
func TestOpenAIRefusesRedirects(t *testing.T) {
	in, _ := openaiInput(t)
	var elsewhere atomic.Int32
	other := remotetest.Hostile(t, func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		io.WriteString(w, chat(`{"proposals": []}`))
	})
	s := remotetest.Hostile(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/v1/chat/completions", http.StatusTemporaryRedirect)
	})
	o := NewOpenAI(s.URL, "m")
	o.APIKey, o.Retries = "sk-refiner-redirected", 2
	res, err := o.Propose(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Failed || !strings.Contains(res.Reason, s.URL+"/v1/chat/completions") || !strings.Contains(res.Reason, other.URL+"/v1/chat/completions") ||
		!strings.Contains(res.Reason, "refused") || elsewhere.Load() != 0 {
		t.Fatalf("reason %q, %d requests elsewhere: want the redirect refused, naming both", res.Reason, elsewhere.Load())
	}
	var auth atomic.Value
	within := remotetest.Hostile(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/moved" {
			http.Redirect(w, r, "/moved", http.StatusPermanentRedirect)
			return
		}
		auth.Store(r.Header.Get("Authorization"))
		io.WriteString(w, chat(`{"proposals": []}`))
	})
	o = NewOpenAI(within.URL, "m")
	o.APIKey = "sk-refiner-moved"
	if res, err := o.Propose(context.Background(), in); err != nil || res.Failed || auth.Load() != "" {
		t.Fatalf("within the server: %+v %v, the moved request carried %q", res, err, auth.Load())
	}
}

// TestOpenAIAnswerBound: an answer that never ends (an error answer too)
// fails with its bound named, and no more than the bound is read of it.
func TestOpenAIAnswerBound(t *testing.T) {
	in, _ := openaiInput(t)
	for _, status := range []int{200, 400} {
		s := remotetest.Hostile(t, func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(status)
			remotetest.Endless(w, `{"choices":[{"message":{"role":"assistant","content":"`, "a")
		})
		var read atomic.Int64
		o := NewOpenAI(s.URL, "m")
		o.MaxTokens, o.Retries, o.Client = 16, 0, remotetest.CountingClient(&read)
		res, err := o.Propose(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		want, limit := fmt.Sprintf("more than %d bytes", o.AnswerBound()), o.AnswerBound()+1
		if status != 200 {
			want, limit = "HTTP 400", 64<<10
		}
		if !strings.Contains(res.Reason, want) || read.Load() > limit {
			t.Fatalf("HTTP %d: reason %q after %d bytes read, want %q and at most %d read", status, res.Reason, read.Load(), want, limit)
		}
	}
}

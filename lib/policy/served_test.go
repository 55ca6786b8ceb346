package policy_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/policy"
	"github.com/pats-rl/pats/lib/policy/servedtest"
	"github.com/pats-rl/pats/lib/rollout"
	"github.com/pats-rl/pats/lib/table"
)

// standIn starts a stand-in server driven by the checkpoint in dir.
func standIn(t testing.TB, dir string) *servedtest.Server {
	t.Helper()
	f, err := model.OpenFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := servedtest.New(f.Model)
	t.Cleanup(s.Close)
	return s
}

// served opens a served policy on the stand-in s with fast retries.
func served(t testing.TB, dir string, s *servedtest.Server, kind string, o policy.Options, mod func(*policy.ServerOptions)) *policy.Served {
	t.Helper()
	so := policy.ServerOptions{URL: s.URL + "/v1", Kind: kind, Model: "tiny-test", Retries: 3, Backoff: time.Millisecond, Timeout: 5 * time.Second}
	if kind == policy.ServerSGLang {
		so.URL = s.URL
	}
	if mod != nil {
		mod(&so)
	}
	p, err := policy.LoadServed(dir, so, o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func rollServed(p *policy.Served, seed int64, workers int) ([]table.Trajectory, error) {
	e, err := env.Open("household")
	if err != nil {
		return nil, err
	}
	return rollout.Run(context.Background(), rollout.Options{Env: e, Split: "train", Tasks: 2, Group: 3, Seed: seed,
		Policy: rollout.ServedPolicy{Served: p}, Tok: p.Tok, MaxContext: 300, Workers: workers,
		Sampling: p.Rule(), PolicyHash: p.Hash})
}

// rollLocal plays what rollServed plays with a local checkpoint.
func rollLocal(t *testing.T, ck *policy.Checkpoint, seed int64) []table.Trajectory {
	t.Helper()
	e, err := env.Open("household")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := rollout.Run(context.Background(), rollout.Options{Env: e, Split: "train", Tasks: 2, Group: 3, Seed: seed,
		Policy: rollout.CheckpointPolicy{Checkpoint: ck}, Tok: ck.Tok, MaxContext: 300, Sampling: ck.Rule(), PolicyHash: ck.Hash})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// answers splits the policy-written tokens of a row into its answers:
// each with the tokens before it (the prompt it saw, no window).
func answers(r table.Trajectory) (prompts, ids [][]int32) {
	for i := 0; i < len(r.Tokens); {
		if !table.PolicyWritten(r.Roles[i]) {
			i++
			continue
		}
		j := i
		for j < len(r.Tokens) && table.PolicyWritten(r.Roles[j]) {
			j++
		}
		prompts, ids = append(prompts, r.Tokens[:i]), append(ids, r.Tokens[i:j])
		i = j
	}
	return prompts, ids
}

// TestServedRecordsServerIDs: the token ids and log-probabilities a
// rollout through the stand-in records are exactly those the server's log
// says it answered to each prompt, for both request shapes; the row names
// the server and model and carries the checkpoint's hash and sampling.
func TestServedRecordsServerIDs(t *testing.T) {
	dir := tinyCheckpoint(t)
	for _, kind := range policy.ServerKinds {
		t.Run(kind, func(t *testing.T) {
			s := standIn(t, dir)
			p := served(t, dir, s, kind, policy.Options{Temperature: 1, TopP: 1}, func(so *policy.ServerOptions) { so.APIKey = "sk-test-123" })
			rows, err := rollServed(p, 11, 4)
			if err != nil {
				t.Fatal(err)
			}
			log := s.Log()
			byPrompt := map[string][]servedtest.Logged{}
			for _, l := range log {
				byPrompt[fmt.Sprint(l.Prompt)] = append(byPrompt[fmt.Sprint(l.Prompt)], l)
				if l.Kind != kind || l.Auth != "Bearer sk-test-123" {
					t.Fatalf("logged %s with auth %q", l.Kind, l.Auth)
				}
			}
			n := 0
			for _, r := range rows {
				prompts, ids := answers(r)
				for i := range ids {
					key := fmt.Sprint(prompts[i])
					k := slices.IndexFunc(byPrompt[key], func(l servedtest.Logged) bool { return slices.Equal(l.IDs, ids[i]) })
					if k < 0 {
						t.Fatalf("%s sample %d answer %d: %v is no answer the server logged for its prompt (%d logged)", r.TaskID, r.Sample, i, ids[i], len(byPrompt[key]))
					}
					l := byPrompt[key][k]
					byPrompt[key] = slices.Delete(byPrompt[key], k, k+1) // each logged answer is recorded once
					start := len(prompts[i])
					if diff := cmp.Diff(l.Logp, r.Logprobs[start:start+len(ids[i])]); diff != "" {
						t.Fatalf("logprobs differ from the server's:\n%s", diff)
					}
					n++
				}
				if r.PolicyHash != p.Hash || r.Temperature == nil || *r.Temperature != 1 {
					t.Fatalf("row records hash %q temperature %v, want %q and 1", r.PolicyHash, r.Temperature, p.Hash)
				}
				if want := s.URL + map[string]string{policy.ServerVLLM: "/v1", policy.ServerSGLang: ""}[kind] + "#tiny-test"; r.Policy != want {
					t.Fatalf("policy column %q, want %q", r.Policy, want)
				}
			}
			if n != len(log) || n == 0 {
				t.Fatalf("%d answers recorded, %d logged by the server", n, len(log))
			}
		})
	}
}

// TestServedMatchesLocalGreedy: greedy decoding through the stand-in
// plays the same episodes as the same checkpoint played locally. Sampled
// decoding does not match: the server draws each answer from its request's
// seed, a local checkpoint from one stream per episode.
func TestServedMatchesLocalGreedy(t *testing.T) {
	dir := tinyCheckpoint(t)
	ck, err := policy.Load(dir, policy.Options{Greedy: true, TopP: 1})
	if err != nil {
		t.Fatal(err)
	}
	local := rollLocal(t, ck, 5)
	s := standIn(t, dir)
	for _, kind := range policy.ServerKinds {
		p := served(t, dir, s, kind, policy.Options{Greedy: true, TopP: 1}, nil)
		rows, err := rollServed(p, 5, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != len(local) {
			t.Fatalf("%s: %d rows, local %d", kind, len(rows), len(local))
		}
		for i := range rows {
			a, b := rows[i], local[i]
			if diff := cmp.Diff(b.Tokens, a.Tokens); diff != "" {
				t.Fatalf("%s row %d: tokens differ from the local run:\n%s", kind, i, diff)
			}
			for j := range a.Logprobs {
				if d := math.Abs(float64(a.Logprobs[j] - b.Logprobs[j])); d > 1e-4 {
					t.Fatalf("%s row %d token %d: logprob %v, local %v", kind, i, j, a.Logprobs[j], b.Logprobs[j])
				}
			}
			a.Logprobs, b.Logprobs, a.Policy, b.Policy = nil, nil, "", ""
			if diff := cmp.Diff(b, a); diff != "" {
				t.Fatalf("%s row %d differs from the local run (-local +served):\n%s", kind, i, diff)
			}
		}
	}
}

// TestServedFaults: answers 429 and 503, a dropped connection and an
// answer slower than the timeout are retried and the rollout equals a
// fault-free one; a server that goes away mid-batch fails the rollout
// with one message naming the server; a status other than the retried
// ones fails at once.
func TestServedFaults(t *testing.T) {
	dir := tinyCheckpoint(t)
	o := policy.Options{Temperature: 1, TopP: 1}
	clean := standIn(t, dir)
	want, err := rollServed(served(t, dir, clean, policy.ServerVLLM, o, nil), 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range policy.ServerKinds {
		retried := map[string][]servedtest.Fault{
			"429 then 503": {{Status: 429}, {Status: 503}, {}, {Status: 503}},
			"dropped":      {{Drop: true}, {}, {Drop: true}},
			"slow":         {{Delay: 1500 * time.Millisecond}},
		}
		for name, faults := range retried {
			t.Run(kind+"/"+name, func(t *testing.T) {
				s := standIn(t, dir)
				s.Faults = faults
				p := served(t, dir, s, kind, o, func(so *policy.ServerOptions) { so.Timeout = 500 * time.Millisecond })
				if name != "slow" {
					p = served(t, dir, s, kind, o, nil)
				}
				got, err := rollServed(p, 3, 1)
				if err != nil {
					t.Fatal(err)
				}
				n := 0
				for _, r := range got {
					_, ids := answers(r)
					n += len(ids)
				}
				if name == "slow" && s.Requests() < n+1 || name != "slow" && s.Requests() != n+len(faults)-countOK(faults) {
					t.Fatalf("%d requests for %d answers and %d faults", s.Requests(), n, len(faults)-countOK(faults))
				}
				for i := range got {
					if !cmp.Equal(got[i].Tokens, want[i].Tokens) || !cmp.Equal(got[i].Actions, want[i].Actions) {
						t.Fatalf("row %d differs from the fault-free rollout", i)
					}
				}
			})
		}
		t.Run(kind+"/gone", func(t *testing.T) {
			s := standIn(t, dir)
			s.DownAfter = 5
			_, err := rollServed(served(t, dir, s, kind, o, nil), 3, 4)
			if err == nil || !strings.Contains(err.Error(), "policy server "+s.URL) || !strings.Contains(err.Error(), "no answer after 4 tries") {
				t.Fatalf("err = %v, want one naming the server after 4 tries", err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("message on more than one line: %q", err)
			}
		})
		t.Run(kind+"/400", func(t *testing.T) {
			s := standIn(t, dir)
			s.Faults = []servedtest.Fault{{Status: 400}}
			_, err := rollServed(served(t, dir, s, kind, o, nil), 3, 1)
			if err == nil || !strings.Contains(err.Error(), "HTTP 400") || s.Requests() != len(s.Log())+1 {
				t.Fatalf("err = %v after %d requests for %d answers, want HTTP 400 not retried", err, s.Requests(), len(s.Log()))
			}
		})
	}
}

func countOK(fs []servedtest.Fault) int {
	n := 0
	for _, f := range fs {
		if f == (servedtest.Fault{}) {
			n++
		}
	}
	return n
}

// TestServedBadAnswers: answers that carry no usable token ids fail with
// a message naming the server; ids outside the vocabulary are refused.
func TestServedBadAnswers(t *testing.T) {
	dir := tinyCheckpoint(t)
	cases := []struct{ name, kind, body, want string }{
		{"not json", policy.ServerVLLM, `<html>oops</html>`, "not a completions response"},
		{"text tokens", policy.ServerVLLM, `{"choices":[{"logprobs":{"tokens":["hello"],"token_logprobs":[-1]}}]}`, "not token_id:N"},
		{"no ids", policy.ServerVLLM, `{"choices":[{"text":"go north"}]}`, "without token ids"},
		{"two choices", policy.ServerVLLM, `{"choices":[{"token_ids":[1]},{"token_ids":[2]}]}`, "want one choice"},
		{"out of vocabulary", policy.ServerVLLM, `{"choices":[{"token_ids":[99999999]}]}`, "outside the vocabulary"},
		{"disagree", policy.ServerSGLang, `{"output_ids":[1,2],"meta_info":{"output_token_logprobs":[[-1,1,null],[-1,3,null]]}}`, "differ"},
		{"sglang no ids", policy.ServerSGLang, `{"text":"go north","meta_info":{}}`, "without token ids"},
		{"empty", policy.ServerSGLang, `{"output_ids":[],"meta_info":{}}`, "no tokens"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, c.body) }))
			defer srv.Close()
			u := srv.URL + "/v1"
			if c.kind == policy.ServerSGLang {
				u = srv.URL
			}
			p, err := policy.LoadServed(dir, policy.ServerOptions{URL: u, Model: "m", Retries: 0}, policy.Options{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Generate(context.Background(), []int32{1, 2, 3}, []int32{0}, 4, 1)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), srv.URL) {
				t.Fatalf("err = %v, want one with %q naming the server", err, c.want)
			}
		})
	}
}

// TestServedURL: the kind follows the URL's path unless given, a URL with
// credentials never shows them, and bad URLs are refused.
func TestServedURL(t *testing.T) {
	dir := tinyCheckpoint(t)
	cases := []struct{ url, kind, wantKind, wantEndpoint, wantName string }{
		{"http://h:8000/v1", "", "vllm", "http://h:8000/v1/completions", "http://h:8000/v1#m"},
		{"http://h:8000/v1/", "", "vllm", "http://h:8000/v1/completions", "http://h:8000/v1#m"},
		{"http://h:30000", "", "sglang", "http://h:30000/generate", "http://h:30000#m"},
		{"http://h:30000/v1", "sglang", "sglang", "http://h:30000/generate", "http://h:30000/v1#m"},
		{"https://h", "vllm", "vllm", "https://h/v1/completions", "https://h#m"},
		{"http://user:pw@h:8000/v1", "", "vllm", "http://user:pw@h:8000/v1/completions", "http://REDACTED@h:8000/v1#m"},
	}
	for _, c := range cases {
		p, err := policy.LoadServed(dir, policy.ServerOptions{URL: c.url, Kind: c.kind, Model: "m"}, policy.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.url, err)
		}
		if p.Kind != c.wantKind || p.Endpoint() != c.wantEndpoint || p.Name() != c.wantName {
			t.Errorf("%s: kind %s endpoint %s name %s, want %s %s %s", c.url, p.Kind, p.Endpoint(), p.Name(), c.wantKind, c.wantEndpoint, c.wantName)
		}
	}
	for _, bad := range []string{"ftp://h/v1", "http://", "http://h/v1?x=1", "http://h /v1"} {
		if _, err := policy.LoadServed(dir, policy.ServerOptions{URL: bad, Model: "m"}, policy.Options{}); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	// The policy speaks of the value; the play stage names the flag (--model).
	if _, err := policy.LoadServed(dir, policy.ServerOptions{URL: "http://h/v1"}, policy.Options{}); err == nil || !strings.Contains(err.Error(), "served model's name") || strings.Contains(err.Error(), "--") {
		t.Errorf("vLLM without a model: %v", err)
	}
	if _, err := policy.LoadServed(dir, policy.ServerOptions{URL: "http://h/v1", Model: "m", Kind: "tgi"}, policy.Options{}); err == nil {
		t.Errorf("unknown kind accepted")
	}
}

// TestServedSameRowsAnyConcurrency: the rows of a served rollout do not
// depend on how many episodes are in flight (each request's seed comes
// from its episode and turn).
func TestServedSameRowsAnyConcurrency(t *testing.T) {
	dir := tinyCheckpoint(t)
	s := standIn(t, dir)
	p := served(t, dir, s, policy.ServerVLLM, policy.Options{Temperature: 1, TopP: 1}, nil)
	one, err := rollServed(p, 8, 1)
	if err != nil {
		t.Fatal(err)
	}
	many, err := rollServed(p, 8, 6)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(one, many); diff != "" {
		t.Fatalf("concurrency 1 and 6 differ:\n%s", diff)
	}
	other, err := rollServed(p, 9, 6)
	if err != nil {
		t.Fatal(err)
	}
	if cmp.Equal(one[0].Tokens, other[0].Tokens) {
		t.Fatal("another seed played the same tokens: the seed does not reach the server")
	}
}

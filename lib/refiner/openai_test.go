package refiner

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pats-rl/pats/lib/card"
	"github.com/pats-rl/pats/lib/card/cardtest"
	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/validate"
)

func chat(content string) string {
	b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"message": map[string]string{"role": "assistant", "content": content}}}})
	return string(b)
}

func openaiInput(t *testing.T) (Input, []table.Card) {
	r := rand.New(rand.NewSource(9))
	cards, ev := build(t, cardtest.Episodes(r, heat, "heat", 3, 0.3))
	e, _ := card.EvidenceFor(ev, heat, 3)
	items := []table.ScaffoldItem{it("t-h-1", "task", heat, "Take the object first.", 1)}
	return Input{Iteration: 3, TaskType: heat, Primitive: scaffold.Expand, Evidence: e, Cards: cards, Items: items}, cards
}

func TestOpenAIGoodAnswer(t *testing.T) {
	in, cards := openaiInput(t)
	var got struct {
		path, auth string
		req        chatRequest
	}
	answer := fmt.Sprintf("Here you go:\n```json\n{\"proposals\": [{\"op\": \"add\", \"layer\": \"task\", \"text\": \"Heat the apple in the microwave.\", \"support\": [%q, %q], \"rationale\": \"successes heat\"}, {\"op\": \"add\", \"text\": \"Do not loop.\", \"layer\": \"mistake\", \"support\": [%q]}]}\n```\n",
		cards[0].CardID, cards[1].CardID, cards[0].CardID)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.path, got.auth = r.URL.Path, r.Header.Get("Authorization")
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &got.req); err != nil {
			http.Error(w, "bad request", 400)
			return
		}
		io.WriteString(w, chat(answer))
	}))
	defer srv.Close()
	o := NewOpenAI(srv.URL, "tiny")
	o.APIKey = "secret"
	res, err := o.Propose(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if got.path != "/v1/chat/completions" || got.auth != "Bearer secret" || got.req.Model != "tiny" || len(got.req.Messages) != 2 {
		t.Fatalf("request: %+v", got)
	}
	user := got.req.Messages[1].Content
	for _, w := range []string{"Primitive: EXPAND", "action:heat", "loop=", "t-h-1", cards[0].CardID} {
		if !strings.Contains(user, w) {
			t.Errorf("prompt lacks %q:\n%s", w, user)
		}
	}
	if len(res.Proposals) != 2 || res.Reason != "" {
		t.Fatalf("result %+v", res)
	}
	p := res.Proposals[0]
	if p.ProposalID != "p-3-"+heat+"-01" || p.Primitive != scaffold.Expand || p.TaskType != heat || p.Refiner != "openai:tiny" || p.Op != "add" {
		t.Fatalf("proposal %+v", p)
	}
	// A proposal whose text no file may hold is dropped, the others kept.
	long := strings.Repeat("x", table.MaxItemTextBytes+1)
	srv2 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, chat(`{"proposals": [{"op": "add", "text": "`+long+`"}, {"op": "add", "text": "Heat it."}]}`))
	}))
	defer srv2.Close()
	if r2, err := NewOpenAI(srv2.URL, "tiny").Propose(context.Background(), in); err != nil || len(r2.Proposals) != 1 || r2.Proposals[0].Text != "Heat it." {
		t.Fatalf("a long text among others: %+v %v", r2, err)
	}
	// The validator takes the first and rejects the second (one card).
	_, dec := validate.Apply(in.Items, res.Proposals, cards, validate.DefaultOptions())
	if !dec[0].Accepted || dec[1].Reason != validate.SupportCount {
		t.Fatalf("decisions %+v", dec)
	}
}

func TestOpenAIUnusable(t *testing.T) {
	in, _ := openaiInput(t)
	cases := []struct {
		name    string
		handler func(w http.ResponseWriter, r *http.Request)
		want    string
	}{
		{"garbage", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, chat("I think you should heat things."))
		}, "no JSON"},
		{"wrong shape", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, chat(`{"edits": []}`)) }, `no "proposals" list`},
		{"bad op", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, chat(`{"proposals": [{"op": "rewrite", "text": "x"}]}`))
		}, `op "rewrite"`},
		{"broken json", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, chat(`{"proposals": [{"op": "add",`)) }, "bad JSON"},
		{"not a completion", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "<html>") }, "not a chat completion"},
		{"empty", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, chat(`{"proposals": []}`)) }, "proposed nothing"},
		{"text over the item limit", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, chat(`{"proposals": [{"op": "add", "text": "`+strings.Repeat("x", table.MaxItemTextBytes+1)+`"}]}`))
		}, "longer than the 8192 bytes an item text may hold"},
		{"client error", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no such model", 404) }, "HTTP 404"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(c.handler))
			defer srv.Close()
			o := NewOpenAI(srv.URL+"/v1", "m")
			o.Backoff = time.Millisecond
			res, err := o.Propose(context.Background(), in)
			if err != nil {
				t.Fatalf("error %v: an unusable answer must not fail the pipeline", err)
			}
			if len(res.Proposals) != 0 || !strings.Contains(res.Reason, c.want) {
				t.Fatalf("result %+v, want reason with %q", res, c.want)
			}
		})
	}
}

func TestOpenAITimeoutAndRetry(t *testing.T) {
	in, _ := openaiInput(t)
	var calls atomic.Int32
	block := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(block)
	o := NewOpenAI(slow.URL, "m")
	o.Timeout, o.Retries, o.Backoff = 400*time.Millisecond, 1, time.Millisecond // long enough for a request to reach the handler on a loaded machine
	res, err := o.Propose(context.Background(), in)
	if err != nil || len(res.Proposals) != 0 || !strings.Contains(res.Reason, "timeout") || !strings.Contains(res.Reason, "2 attempt") {
		t.Fatalf("timeout: %+v %v", res, err)
	}
	if calls.Load() != 2 {
		t.Fatalf("%d calls, want 2 (one retry)", calls.Load())
	}
	// A 503 is retried and the second answer used.
	var n atomic.Int32
	flaky := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			http.Error(w, "busy", 503)
			return
		}
		io.WriteString(w, chat(`[{"op": "delete", "targets": ["t-h-1"]}]`))
	}))
	defer flaky.Close()
	o = NewOpenAI(flaky.URL+"/v1/chat/completions", "m")
	o.Backoff = time.Millisecond
	res, err = o.Propose(context.Background(), in)
	if err != nil || len(res.Proposals) != 1 || res.Proposals[0].Op != "delete" || n.Load() != 2 {
		t.Fatalf("retry: %+v %v (%d calls)", res, err, n.Load())
	}
	// Setup errors are errors.
	if _, err := (&OpenAI{}).Propose(context.Background(), in); err == nil {
		t.Fatal("missing endpoint accepted")
	}
}

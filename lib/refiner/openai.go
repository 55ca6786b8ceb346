package refiner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/pats-rl/pats/lib/remote"
	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/table"
)

// OpenAI asks an OpenAI-compatible chat-completions endpoint for proposals.
type OpenAI struct {
	Endpoint    string        // base URL ("http://127.0.0.1:8000"); "/v1/chat/completions" is appended unless the URL already ends in "/chat/completions" (a URL ending in "/v1" gets "/chat/completions")
	Model       string        // model name sent in the request
	APIKey      string        // bearer token; NewOpenAI reads OPENAI_API_KEY; empty sends none
	Timeout     time.Duration // per attempt; default 60s
	Retries     int           // extra attempts after a transport error, timeout, 429 or 5xx; default 2
	Backoff     time.Duration // wait before retry n is n*Backoff; default 1s
	Temperature float64       // default 0
	MaxTokens   int           // answer length limit; default 1024
	Seed        int64         // sent as "seed" (servers that honour it answer reproducibly)
	MaxCards    int           // cards shown in the prompt (lowest success rate first); default 6
	Client      *http.Client  // default: a plain client (timeouts come from Timeout); its redirects are remote.Client's whatever it sets
}

// How much of an answer is read: AnswerBaseBytes plus AnswerTokenBytes per
// token of MaxTokens (a chat completion's text runs a few bytes a token,
// JSON-escaped at most six times that), or NoMaxAnswerBytes when no
// MaxTokens is sent. A longer answer is a failed exchange.
const (
	AnswerBaseBytes  = 1 << 20
	AnswerTokenBytes = 1 << 10
	NoMaxAnswerBytes = 8 << 20
	errorAnswerBytes = 64 << 10
)

// AnswerBound is the most bytes read of one answer.
func (o *OpenAI) AnswerBound() int64 {
	if o.MaxTokens <= 0 {
		return NoMaxAnswerBytes
	}
	return AnswerBaseBytes + AnswerTokenBytes*int64(o.MaxTokens)
}

// NewOpenAI returns a client for endpoint and model with the defaults and
// the API key from the environment variable OPENAI_API_KEY.
func NewOpenAI(endpoint, model string) *OpenAI {
	return &OpenAI{Endpoint: endpoint, Model: model, APIKey: os.Getenv("OPENAI_API_KEY"),
		Timeout: 60 * time.Second, Retries: 2, Backoff: time.Second, MaxTokens: 1024, MaxCards: 6}
}

// Name implements Refiner: "openai:<model>".
func (o *OpenAI) Name() string { return "openai:" + o.Model }

// URL is the chat-completions URL requests go to.
func (o *OpenAI) URL() string {
	u := strings.TrimRight(o.Endpoint, "/")
	switch {
	case strings.HasSuffix(u, "/chat/completions"):
		return u
	case strings.HasSuffix(u, "/v1"):
		return u + "/chat/completions"
	}
	return u + "/v1/chat/completions"
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model       string        `json:"model"`
	Messages    []chatMessage `json:"messages"`
	Temperature float64       `json:"temperature"`
	MaxTokens   int           `json:"max_tokens,omitempty"`
	Seed        int64         `json:"seed,omitempty"`
}

type chatResponse struct {
	Choices []struct {
		Message chatMessage `json:"message"`
	} `json:"choices"`
}

// Propose implements Refiner. Only a missing endpoint or model is an error;
// every failure of the exchange is a Result with a Reason.
func (o *OpenAI) Propose(ctx context.Context, in Input) (Result, error) {
	if o.Endpoint == "" || o.Model == "" {
		return Result{}, errors.New("refiner openai: need an endpoint and a model")
	}
	in = in.withDefaults()
	// Whatever the server says is scrubbed of what is sent to it.
	table.KnownSecret(o.APIKey)
	table.KnownURL(o.Endpoint)
	if in.Primitive == "" || in.Primitive == "NONE" {
		return Result{Reason: "primitive NONE: nothing to propose"}, nil
	}
	maxCards := o.MaxCards
	if maxCards <= 0 {
		maxCards = 6
	}
	sys, user := Prompt(in, maxCards)
	body, _ := json.Marshal(chatRequest{Model: o.Model, Temperature: o.Temperature, MaxTokens: o.MaxTokens, Seed: o.Seed,
		Messages: []chatMessage{{Role: "system", Content: sys}, {Role: "user", Content: user}}})
	answer, reason := o.exchange(ctx, body)
	if reason != "" {
		return Result{Reason: o.clean(reason), Failed: true}, nil
	}
	raw, err := ParseAnswer(answer)
	if err != nil {
		return Result{Reason: o.clean("unusable answer: " + err.Error())}, nil
	}
	if len(raw) == 0 {
		return Result{Reason: "the model proposed nothing"}, nil
	}
	const maxProps = 20
	if len(raw) > maxProps {
		raw = raw[:maxProps]
	}
	props := make([]table.Proposal, 0, len(raw))
	long := 0
	for i, r := range raw {
		r.Text = table.ScrubKnown(r.Text)
		if len(strings.TrimSpace(r.Text)) > table.MaxItemTextBytes {
			long++ // no file may hold it (table.MaxItemTextBytes)
			continue
		}
		layer := r.Layer
		if layer == "" && r.Op == table.OpAdd {
			layer = scaffold.LayerTask
			if in.TaskType == "" {
				layer = scaffold.LayerGeneral
			}
		}
		props = append(props, table.Proposal{
			ProposalID: ProposalID(in.Iteration, in.TaskType, i+1), Iteration: in.Iteration,
			TaskType: in.TaskType, Primitive: in.Primitive, Op: r.Op, Targets: scrubAll(nonNil(r.Targets)),
			Layer: table.ScrubKnown(layer), Text: strings.TrimSpace(r.Text), Support: scrubAll(nonNil(r.Support)),
			Refiner: o.Name(), Rationale: table.ScrubKnown(r.Rationale),
		})
	}
	if len(props) == 0 {
		return Result{Reason: fmt.Sprintf("every proposal's text (%d) is longer than the %d bytes an item text may hold", long, table.MaxItemTextBytes)}, nil
	}
	return Result{Proposals: props}, nil
}

// scrubAll takes the known secrets out of every string of x, in place
// (what a server wrote goes into the proposals file).
func scrubAll(x []string) []string {
	for i := range x {
		x[i] = table.ScrubKnown(x[i])
	}
	return x
}

func nonNil(x []string) []string {
	if x == nil {
		return []string{}
	}
	return x
}

// clean removes credentials from a reason, which is stored in the
// proposals' metadata: a server's error body may echo the request's
// headers or the key itself (Scrub knows the key and the URL's password:
// Propose records them).
func (o *OpenAI) clean(reason string) string {
	return table.Scrub(reason)
}

// exchange posts body with retries; it returns the answer text or a reason.
func (o *OpenAI) exchange(ctx context.Context, body []byte) (string, string) {
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	backoff := o.Backoff
	if backoff <= 0 {
		backoff = time.Second
	}
	client := remote.Client(o.Client)
	retries := o.Retries
	if retries < 0 {
		retries = 0
	}
	var last string
	attempts := 0
	for attempt := 0; attempt <= retries; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return "", "cancelled: " + ctx.Err().Error()
			case <-time.After(time.Duration(attempt) * backoff):
			}
		}
		attempts++
		text, reason, retry := o.once(ctx, client, body, timeout)
		if reason == "" {
			return text, ""
		}
		last = reason
		if !retry {
			break
		}
	}
	return "", fmt.Sprintf("%s (%d attempt(s))", last, attempts)
}

// once is one attempt: answer text, or a reason and whether to retry.
func (o *OpenAI) once(ctx context.Context, client *http.Client, body []byte, timeout time.Duration) (string, string, bool) {
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, o.URL(), bytes.NewReader(body))
	if err != nil {
		return "", "bad endpoint: " + err.Error(), false
	}
	req.Header.Set("Content-Type", "application/json")
	if o.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+o.APIKey)
	}
	resp, err := client.Do(req)
	if r, ok := remote.AsRedirect(err); ok {
		return "", r.Error(), false
	}
	if err != nil {
		if actx.Err() == context.DeadlineExceeded {
			return "", fmt.Sprintf("timeout after %s", timeout), true
		}
		if ctx.Err() != nil {
			return "", "cancelled: " + ctx.Err().Error(), false
		}
		return "", "request failed: " + err.Error(), true
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		data, _ := remote.Read(resp.Body, errorAnswerBytes)
		retry := resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
		snippet := strings.TrimSpace(string(data))
		if len(snippet) > 200 {
			snippet = snippet[:200]
		}
		return "", fmt.Sprintf("HTTP %d: %s", resp.StatusCode, snippet), retry
	}
	var cr chatResponse
	err = remote.Decode(resp.Body, o.AnswerBound(), &cr)
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, remote.ErrTooLarge):
		return "", fmt.Sprintf("an answer of more than %d bytes, past the bound for an answer of %d tokens (AnswerBound)", o.AnswerBound(), o.MaxTokens), false
	case errors.As(err, &syntax) || errors.As(err, &typ):
		return "", "the endpoint's reply is not a chat completion: " + err.Error(), false
	case err != nil && actx.Err() == context.DeadlineExceeded:
		return "", fmt.Sprintf("timeout after %s", timeout), true
	case err != nil:
		return "", "reading the answer: " + err.Error(), true
	}
	if len(cr.Choices) == 0 {
		return "", "the chat completion has no choices", false
	}
	return cr.Choices[0].Message.Content, "", false
}

// RawProposal is one proposal as a model writes it.
type RawProposal struct {
	Op        string   `json:"op"`
	Targets   []string `json:"targets"`
	Layer     string   `json:"layer"`
	Text      string   `json:"text"`
	Support   []string `json:"support"`
	Rationale string   `json:"rationale"`
}

// ParseAnswer extracts proposals from a model's answer: a JSON object
// {"proposals": [...]} or a JSON list of proposals, possibly inside a
// ``` fence or surrounded by prose. Each proposal needs an op; every op must
// be add, edit, merge or delete.
func ParseAnswer(answer string) ([]RawProposal, error) {
	s := strings.TrimSpace(answer)
	if i := strings.Index(s, "```"); i >= 0 {
		rest := s[i+3:]
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			rest = rest[nl+1:]
		}
		if j := strings.Index(rest, "```"); j >= 0 {
			s = strings.TrimSpace(rest[:j])
		}
	}
	start := strings.IndexAny(s, "{[")
	if start < 0 {
		return nil, errors.New("no JSON in the answer")
	}
	dec := json.NewDecoder(strings.NewReader(s[start:]))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("bad JSON: %v", err)
	}
	var list []RawProposal
	if s[start] == '{' {
		var obj struct {
			Proposals *[]RawProposal `json:"proposals"`
		}
		if err := json.Unmarshal(v, &obj); err != nil {
			return nil, fmt.Errorf("bad proposals: %v", err)
		}
		if obj.Proposals == nil {
			return nil, errors.New(`the JSON object has no "proposals" list`)
		}
		list = *obj.Proposals
	} else if err := json.Unmarshal(v, &list); err != nil {
		return nil, fmt.Errorf("bad proposals: %v", err)
	}
	for i, p := range list {
		if !slices.Contains(table.Ops, p.Op) {
			return nil, fmt.Errorf("proposal %d: op %q is not add, edit, merge or delete", i+1, p.Op)
		}
	}
	return list, nil
}

// Package servedtest is a stand-in inference server for the tests of
// served policies (policy.Served): it speaks the request and answer shapes
// of vLLM's OpenAI-compatible completions endpoint (a token-id prompt,
// token ids back in token_ids and as "token_id:N" logprobs tokens) and of
// SGLang's native /generate (input_ids and sampling_params in, output_ids
// and meta_info.output_token_logprobs out), and answers with real samples
// of the toolkit's own model. It logs every answer it gave, and can be
// told to fail: answer a status, answer slowly, or drop connections. Only
// tests import it.
package servedtest

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"time"

	"github.com/pats-rl/pats/lib/model"
)

// Fault is what the server does to one request instead of answering it.
type Fault struct {
	Status int           // answer this HTTP status (429, 503...) with an error body
	Delay  time.Duration // wait this long first (then answer, or fail as Status or Drop say)
	Drop   bool          // close the connection without an answer
}

// Logged is one answer the server gave.
type Logged struct {
	Kind   string  // "vllm" or "sglang"
	Prompt []int32 // the prompt's token ids as received
	IDs    []int32 // the token ids answered
	Logp   []float32
	Seed   int64
	Model  string // the model name a vLLM request named (an SGLang request's lora_path)
	Auth   string // the Authorization header received
}

// Server is a running stand-in.
type Server struct {
	*httptest.Server
	M *model.Model
	// ModelName is the name vLLM requests must give ("" accepts any).
	ModelName string
	// Faults[i] is applied to the i-th request (0-based, in arrival
	// order); requests past the list are answered. DownAfter > 0 drops
	// every request after the first DownAfter answered ones (a server that
	// went away).
	Faults    []Fault
	DownAfter int
	// LogprobShift is added to every log-probability answered (not to
	// the log's): an engine that computes them in another precision or
	// at another temperature.
	LogprobShift float32
	// Latency is added to every answer (a network and an engine's queue,
	// for the benchmarks).
	Latency time.Duration

	mu       sync.Mutex
	requests int
	answered int
	log      []Logged
	adapters map[string]*model.Model // loaded LoRA adapters by name (lora.go)
	loads    []AdapterEvent
}

// New starts a stand-in that answers with m's samples. Close it when done.
func New(m *model.Model) *Server {
	s := &Server{M: m}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/completions", s.completions)
	mux.HandleFunc("/generate", s.generate)
	s.loraRoutes(mux) // issue 60: runtime LoRA adapters (lora.go)
	s.Server = httptest.NewServer(mux)
	return s
}

// Log returns the answers given so far, in the order they were given.
func (s *Server) Log() []Logged {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

// Requests is how many requests arrived.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

// admit applies the fault planned for this request; it reports whether the
// request is still to be answered.
func (s *Server) admit(w http.ResponseWriter) bool {
	s.mu.Lock()
	i := s.requests
	s.requests++
	var f Fault
	if i < len(s.Faults) {
		f = s.Faults[i]
	}
	down := s.DownAfter > 0 && s.answered >= s.DownAfter
	s.mu.Unlock()
	if d := f.Delay + s.Latency; d > 0 {
		time.Sleep(d)
	}
	switch {
	case down || f.Drop:
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
				return false
			}
		}
		panic(http.ErrAbortHandler)
	case f.Status != 0:
		http.Error(w, `{"error": "stand-in fault"}`, f.Status)
		return false
	}
	return true
}

// sample is one generation: what both endpoints share.
type sample struct {
	prompt, stop []int32
	max          int
	rule         model.Rule
	seed         int64
	m            *model.Model // the model that answers: nil is M (an adapter's: lora.go)
}

// run draws the answer with the model: the prompt in one forward, then
// token by token as a local checkpoint draws (model.Rule.Draw), the
// uniforms from the request's seed.
func (s *Server) run(q sample) ([]int32, []float32, error) {
	if len(q.prompt) == 0 || q.max < 1 {
		return nil, nil, fmt.Errorf("empty prompt or max tokens < 1")
	}
	for _, id := range q.prompt {
		if id < 0 || int(id) >= s.M.Cfg.VocabSize {
			return nil, nil, fmt.Errorf("prompt token %d out of range", id)
		}
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "standin|%d", q.seed)
	rng := rand.New(rand.NewPCG(uint64(q.seed), h.Sum64()))
	m := q.m
	if m == nil {
		m = s.M
	}
	dec := m.NewDecoder()
	logits, err := dec.Append(q.prompt)
	if err != nil {
		return nil, nil, err
	}
	seen := slices.Clone(q.prompt)
	var ids []int32
	var lps []float32
	for {
		tok, lp := q.rule.Draw(logits, seen, model.SampleDraw(q.rule.Temperature, rng))
		ids, lps = append(ids, tok), append(lps, lp)
		seen = append(seen, tok)
		if slices.Contains(q.stop, tok) || len(ids) >= q.max || dec.Len()+1 >= m.ContextLimit() {
			return ids, lps, nil
		}
		if logits, err = dec.Append([]int32{tok}); err != nil {
			return nil, nil, err
		}
	}
}

func rule(temp, topP float32, topK int, rep float32) model.Rule {
	if topK < 0 {
		topK = 0
	}
	return model.Rule{Temperature: temp, TopP: topP, TopK: topK, RepetitionPenalty: rep}
}

func (s *Server) record(l Logged) {
	s.mu.Lock()
	s.answered++
	s.log = append(s.log, l)
	s.mu.Unlock()
}

// shifted is lps as answered (LogprobShift added).
func (s *Server) shifted(lps []float32) []float32 {
	out := make([]float32, len(lps))
	for i, v := range lps {
		out[i] = v + s.LogprobShift
	}
	return out
}

func (s *Server) completions(w http.ResponseWriter, r *http.Request) {
	if !s.admit(w) {
		return
	}
	var q struct {
		Model                  string   `json:"model"`
		Prompt                 []int32  `json:"prompt"`
		MaxTokens              int      `json:"max_tokens"`
		Temperature            *float32 `json:"temperature"`
		TopP                   float32  `json:"top_p"`
		TopK                   int      `json:"top_k"`
		RepetitionPenalty      float32  `json:"repetition_penalty"`
		StopTokenIDs           []int32  `json:"stop_token_ids"`
		Seed                   int64    `json:"seed"`
		ReturnTokensAsTokenIDs bool     `json:"return_tokens_as_token_ids"`
	}
	if err := json.NewDecoder(r.Body).Decode(&q); err != nil || q.Temperature == nil {
		http.Error(w, `{"error": "bad request"}`, http.StatusBadRequest)
		return
	}
	am, isAdapter := s.adapter(q.Model)
	if s.ModelName != "" && q.Model != s.ModelName && !isAdapter {
		http.Error(w, `{"error": "The model does not exist."}`, http.StatusNotFound)
		return
	}
	ids, lps, err := s.run(sample{prompt: q.Prompt, stop: q.StopTokenIDs, max: q.MaxTokens,
		rule: rule(*q.Temperature, q.TopP, q.TopK, q.RepetitionPenalty), seed: q.Seed, m: am})
	if err != nil {
		http.Error(w, fmt.Sprintf(`{"error": %q}`, err.Error()), http.StatusBadRequest)
		return
	}
	tokens := make([]string, len(ids))
	for i, id := range ids {
		tokens[i] = fmt.Sprintf("token_id:%d", id)
	}
	finish := "length"
	var stop any
	if slices.Contains(q.StopTokenIDs, ids[len(ids)-1]) {
		finish, stop = "stop", ids[len(ids)-1]
	}
	s.record(Logged{Kind: "vllm", Prompt: q.Prompt, IDs: ids, Logp: lps, Seed: q.Seed, Model: q.Model, Auth: r.Header.Get("Authorization")})
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"object": "text_completion", "model": q.Model,
		"choices": []any{map[string]any{"index": 0, "text": "", "token_ids": ids, "finish_reason": finish, "stop_reason": stop,
			"logprobs": map[string]any{"tokens": tokens, "token_logprobs": s.shifted(lps)}}},
	})
}

func (s *Server) generate(w http.ResponseWriter, r *http.Request) {
	if !s.admit(w) {
		return
	}
	var q struct {
		InputIDs       []int32 `json:"input_ids"`
		SamplingParams struct {
			MaxNewTokens      int      `json:"max_new_tokens"`
			Temperature       *float32 `json:"temperature"`
			TopP              float32  `json:"top_p"`
			TopK              int      `json:"top_k"`
			RepetitionPenalty float32  `json:"repetition_penalty"`
			StopTokenIDs      []int32  `json:"stop_token_ids"`
			SamplingSeed      int64    `json:"sampling_seed"`
		} `json:"sampling_params"`
		ReturnLogprob bool   `json:"return_logprob"`
		LoraPath      string `json:"lora_path"` // an adapter's name (its /load_lora_adapter lora_name)
	}
	if err := json.NewDecoder(r.Body).Decode(&q); err != nil || q.SamplingParams.Temperature == nil {
		http.Error(w, `{"error": "bad request"}`, http.StatusBadRequest)
		return
	}
	am, isAdapter := s.adapter(q.LoraPath)
	if q.LoraPath != "" && !isAdapter {
		http.Error(w, `{"error": "unknown lora_path"}`, http.StatusBadRequest)
		return
	}
	p := q.SamplingParams
	ids, lps, err := s.run(sample{prompt: q.InputIDs, stop: p.StopTokenIDs, max: p.MaxNewTokens,
		rule: rule(*p.Temperature, p.TopP, p.TopK, p.RepetitionPenalty), seed: p.SamplingSeed, m: am})
	if err != nil {
		http.Error(w, fmt.Sprintf(`{"error": %q}`, err.Error()), http.StatusBadRequest)
		return
	}
	finish := map[string]any{"type": "length", "length": len(ids)}
	if last := ids[len(ids)-1]; slices.Contains(p.StopTokenIDs, last) {
		finish = map[string]any{"type": "stop", "matched": last}
	}
	meta := map[string]any{"finish_reason": finish, "prompt_tokens": len(q.InputIDs), "completion_tokens": len(ids)}
	if q.ReturnLogprob {
		entries := make([]any, len(ids))
		for i, lp := range s.shifted(lps) {
			entries[i] = []any{lp, ids[i], nil}
		}
		meta["output_token_logprobs"] = entries
	}
	s.record(Logged{Kind: "sglang", Prompt: q.InputIDs, IDs: ids, Logp: lps, Seed: p.SamplingSeed, Model: q.LoraPath, Auth: r.Header.Get("Authorization")})
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"text": "", "output_ids": ids, "meta_info": meta})
}

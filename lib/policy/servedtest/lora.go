package servedtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/pats-rl/pats/lib/model"
)

// AdapterEvent is one runtime LoRA request the server took: a load (of
// Path under Name) or an unload (of Name), on vLLM's or SGLang's route.
type AdapterEvent struct {
	Kind   string // "vllm" or "sglang"
	Unload bool
	Name   string
	Path   string
}

// loraRoutes adds the runtime adapter endpoints: vLLM's POST
// /v1/load_lora_adapter and /v1/unload_lora_adapter, SGLang's POST
// /load_lora_adapter and /unload_lora_adapter, each with a JSON body of
// lora_name (and lora_path to load). A loaded adapter folder is opened
// with lib/model (its base found from it) and answers the requests that
// name it: vLLM's "model", SGLang's "lora_path".
func (s *Server) loraRoutes(mux *http.ServeMux) {
	for _, r := range []struct {
		path, kind string
		unload     bool
	}{{"/v1/load_lora_adapter", "vllm", false}, {"/v1/unload_lora_adapter", "vllm", true},
		{"/load_lora_adapter", "sglang", false}, {"/unload_lora_adapter", "sglang", true}} {
		mux.HandleFunc(r.path, func(w http.ResponseWriter, q *http.Request) { s.loraRequest(w, q, r.kind, r.unload) })
	}
}

func (s *Server) loraRequest(w http.ResponseWriter, r *http.Request, kind string, unload bool) {
	if r.Method != http.MethodPost {
		http.Error(w, `{"error": "method not allowed"}`, http.StatusMethodNotAllowed)
		return
	}
	var q struct {
		Name string `json:"lora_name"`
		Path string `json:"lora_path"`
	}
	if err := json.NewDecoder(r.Body).Decode(&q); err != nil || q.Name == "" || (!unload && q.Path == "") {
		http.Error(w, `{"error": "bad request"}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.adapters == nil {
		s.adapters = map[string]*model.Model{}
	}
	if unload {
		if _, ok := s.adapters[q.Name]; !ok {
			http.Error(w, fmt.Sprintf(`{"error": "adapter %s not loaded"}`, q.Name), http.StatusNotFound)
			return
		}
		delete(s.adapters, q.Name)
	} else {
		if _, ok := s.adapters[q.Name]; ok {
			http.Error(w, fmt.Sprintf(`{"error": "adapter %s already loaded"}`, q.Name), http.StatusBadRequest)
			return
		}
		m, err := model.Load(q.Path)
		if err != nil || m.Adapter() == nil {
			http.Error(w, fmt.Sprintf(`{"error": "cannot load %s as an adapter: %v"}`, q.Path, err), http.StatusBadRequest)
			return
		}
		s.adapters[q.Name] = m
	}
	s.loads = append(s.loads, AdapterEvent{Kind: kind, Unload: unload, Name: q.Name, Path: q.Path})
	fmt.Fprintf(w, "Success: LoRA adapter '%s' %s.", q.Name, map[bool]string{false: "added", true: "removed"}[unload])
}

// adapter is the loaded adapter named name, if any.
func (s *Server) adapter(name string) (*model.Model, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.adapters[name]
	return m, ok
}

// AdapterEvents returns the adapter loads and unloads taken so far, in
// order.
func (s *Server) AdapterEvents() []AdapterEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.loads)
}

// Adapters lists the names of the adapters loaded now.
func (s *Server) Adapters() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for n := range s.adapters {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

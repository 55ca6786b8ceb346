package policy

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// The runtime LoRA endpoints followed (issue 60): vLLM's POST
// /v1/load_lora_adapter {"lora_name", "lora_path"} and POST
// /v1/unload_lora_adapter {"lora_name"} (vLLM 0.6.2 and later, up to the
// 0.15 documentation; the server needs VLLM_ALLOW_RUNTIME_LORA_UPDATING=True
// and --enable-lora), after which a completions request names the adapter
// as its "model"; SGLang's POST /load_lora_adapter and /unload_lora_adapter
// with the same bodies (SGLang 0.4.9 and later; the server needs
// --enable-lora and a --max-lora-rank that covers the adapter), after
// which a /generate request names it in "lora_path".

// adapterURL is the URL of the server's adapter route op ("load" or
// "unload").
func (s *Served) adapterURL(op string) string {
	if s.Kind == ServerVLLM {
		return strings.TrimSuffix(s.endpoint, "/completions") + "/" + op + "_lora_adapter"
	}
	return strings.TrimSuffix(s.endpoint, "/generate") + "/" + op + "_lora_adapter"
}

// LoadAdapter asks the running server to load the LoRA adapter folder dir
// (PEFT's files, as learn writes them) under name, and makes the policy's
// requests name it from then on. The folder's absolute path is sent: the
// server must see the same file system.
func (s *Served) LoadAdapter(ctx context.Context, name, dir string) error {
	if name == "" {
		return fmt.Errorf("an adapter needs a name")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	body, err := json.Marshal(map[string]string{"lora_name": name, "lora_path": abs})
	if err != nil {
		return err
	}
	if err := s.postTo(ctx, s.adapterURL("load"), body, adapterAnswerBytes, nil, "an adapter answer"); err != nil {
		return fmt.Errorf("loading adapter %s as %s: %w", dir, name, err)
	}
	s.LoRA = name
	if s.Kind == ServerVLLM {
		s.Model = name
	}
	return nil
}

// UnloadAdapter asks the running server to drop the adapter loaded under
// name.
func (s *Served) UnloadAdapter(ctx context.Context, name string) error {
	body, err := json.Marshal(map[string]string{"lora_name": name})
	if err != nil {
		return err
	}
	if err := s.postTo(ctx, s.adapterURL("unload"), body, adapterAnswerBytes, nil, "an adapter answer"); err != nil {
		return fmt.Errorf("unloading adapter %s: %w", name, err)
	}
	return nil
}

// adapterAnswerBytes bounds an adapter route's answer (a line of text).
const adapterAnswerBytes = 64 << 10

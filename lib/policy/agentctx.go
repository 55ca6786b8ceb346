package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/pats-rl/pats/lib/agent"
	"github.com/pats-rl/pats/lib/output"
	"os"
	"path/filepath"
	"slices"
)

// AgentContextFile is the file of a checkpoint folder, beside config.json,
// that says in which agent context the policy was trained: rollout,
// evaluate and audit take its settings where no flag gives them, and learn
// carries it into every checkpoint it writes from the folder.
const AgentContextFile = "agent.json"

// AgentContext is agent.json: the settings a policy was trained to expect.
// A nil or empty field is not part of the context (the command's default
// applies).
type AgentContext struct {
	PromptFormat    string `json:"prompt_format,omitempty"`     // builtin or chatml
	ActionFormat    string `json:"action_format,omitempty"`     // tags or tools (chatml only)
	History         *int   `json:"history,omitempty"`           // turns an answer sees in full (rollout --history); 0: the whole episode
	Admissible      string `json:"admissible,omitempty"`        // none, here or all (rollout --admissible)
	MaxActionTokens *int   `json:"max_action_tokens,omitempty"` // tokens per answer (rollout --max-action-tokens)
	// EnableThinking is the enable_thinking of Qwen3's chat template
	// (chatml only): false makes each assistant cue close an empty
	// thinking block, so the policy answers without thinking; absent or
	// true, the cue is the plain one and the policy may think first.
	EnableThinking *bool `json:"enable_thinking,omitempty"`
}

// ReadAgentContext reads dir/agent.json; a folder without one gives the
// zero value. Unknown keys and values out of range are errors naming the
// file.
func ReadAgentContext(dir string) (AgentContext, error) {
	var c AgentContext
	path := filepath.Join(dir, AgentContextFile)
	b, err := output.ReadFile(path, output.MaxTextBytes)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, err
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&c); err != nil {
		return c, fmt.Errorf("%s: %v", path, err)
	}
	switch {
	case c.PromptFormat != "" && c.PromptFormat != "builtin" && c.PromptFormat != "chatml":
		return c, fmt.Errorf("%s: prompt_format %q: want builtin or chatml", path, c.PromptFormat)
	case c.ActionFormat != "" && !slices.Contains(agent.ActionFormatNames, c.ActionFormat):
		return c, fmt.Errorf("%s: action_format %q: want tags or tools", path, c.ActionFormat)
	case c.ActionFormat == "tools" && c.PromptFormat == "builtin":
		return c, fmt.Errorf("%s: action_format tools needs the chatml prompt format, not builtin", path)
	case c.History != nil && *c.History < 0:
		return c, fmt.Errorf("%s: history %d is negative", path, *c.History)
	case c.Admissible != "" && !slices.Contains([]string{"none", "here", "all"}, c.Admissible):
		return c, fmt.Errorf("%s: admissible %q: want none, here or all", path, c.Admissible)
	case c.MaxActionTokens != nil && *c.MaxActionTokens < 1:
		return c, fmt.Errorf("%s: max_action_tokens %d is not positive", path, *c.MaxActionTokens)
	case c.EnableThinking != nil && c.PromptFormat == "builtin":
		return c, fmt.Errorf("%s: enable_thinking applies to the chatml format, not builtin", path)
	}
	return c, nil
}

package play

import (
	"fmt"
	"strings"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/policy"
)

// WithContext returns the options with the agent context of a checkpoint
// policy's agent.json (a server policy's: the --tokenizer folder's) (policy.AgentContext) filled in where the user gave
// no flag, and the metadata that records it: agent_context, the settings
// taken from the file, and agent_context_overrides, the flags that
// overrode a setting of the file with another value. Without a checkpoint
// or without the file it returns f and no metadata. Resolve calls it once
// and hands the metadata on (Episodes.Context).
func (f Options) WithContext() (Options, map[string]string, error) {
	dir, flag := f.Policy, "--policy"
	if policy.IsServerURL(f.Policy) {
		dir, flag = f.Tokenizer, "--tokenizer" // the folder the server was started from
	}
	if dir == "" || dir == "oracle" || dir == "random" || !policy.IsCheckpoint(dir) {
		return f, nil, nil
	}
	c, err := policy.ReadAgentContext(dir)
	if err != nil {
		return f, nil, command.Usagef("%s %s: %v", flag, dir, err)
	}
	var took, over []string
	if c.PromptFormat != "" {
		if f.PromptFormat == "" {
			f.PromptFormat = c.PromptFormat
			took = append(took, "prompt_format="+c.PromptFormat)
		} else if f.PromptFormat != c.PromptFormat {
			over = append(over, "--prompt-format "+f.PromptFormat+" (agent.json: "+c.PromptFormat+")")
		}
	}
	if c.ActionFormat != "" {
		if f.ActionFormat == "" {
			f.ActionFormat = c.ActionFormat
			took = append(took, "action_format="+c.ActionFormat)
		} else if f.ActionFormat != c.ActionFormat {
			over = append(over, "--action-format "+f.ActionFormat+" (agent.json: "+c.ActionFormat+")")
		}
	}
	if c.History != nil {
		if !f.HistorySet {
			f.History = *c.History
			took = append(took, fmt.Sprintf("history=%d", *c.History))
		} else if f.History != *c.History {
			over = append(over, fmt.Sprintf("--history %d (agent.json: %d)", f.History, *c.History))
		}
	}
	if c.Admissible != "" {
		have := f.Admissible
		if have == "" {
			have = "none"
		}
		if !f.AdmissibleSet {
			f.Admissible = c.Admissible
			took = append(took, "admissible="+c.Admissible)
		} else if have != c.Admissible {
			over = append(over, "--admissible "+have+" (agent.json: "+c.Admissible+")")
		}
	}
	if c.MaxActionTokens != nil {
		if !f.MaxActionTokensSet {
			f.MaxActionTokens = *c.MaxActionTokens
			took = append(took, fmt.Sprintf("max_action_tokens=%d", *c.MaxActionTokens))
		} else if f.MaxActionTokens != *c.MaxActionTokens {
			over = append(over, fmt.Sprintf("--max-action-tokens %d (agent.json: %d)", f.MaxActionTokens, *c.MaxActionTokens))
		}
	}
	if c.EnableThinking != nil { // no flag sets it: the file's value holds
		f.EnableThinking = c.EnableThinking
		took = append(took, fmt.Sprintf("enable_thinking=%v", *c.EnableThinking))
	}
	if len(took) == 0 && len(over) == 0 {
		return f, nil, nil
	}
	meta := map[string]string{}
	if len(took) > 0 {
		meta["agent_context"] = strings.Join(took, " ")
	}
	if len(over) > 0 {
		meta["agent_context_overrides"] = strings.Join(over, "; ")
	}
	return f, meta, nil
}

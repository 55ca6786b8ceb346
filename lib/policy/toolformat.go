package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pats-rl/pats/lib/agent"
	"github.com/pats-rl/pats/lib/output"
	"github.com/pats-rl/pats/lib/toolcall"
)

// ReadChatTemplate reads the chat template of the checkpoint in dir:
// chat_template.jinja, else tokenizer_config.json's chat_template (a
// string, or a list of named templates: the one named tool_use, else
// default, else the first). A folder without one is an error.
func ReadChatTemplate(dir string) (string, error) {
	if b, err := output.ReadFile(filepath.Join(dir, ChatTemplateFile), output.MaxTextBytes); err == nil {
		return string(b), nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	path := filepath.Join(dir, TokenizerConfigFile)
	b, err := output.ReadFile(path, output.MaxTextBytes)
	if errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("%s: no chat template (neither %s nor %s)", dir, ChatTemplateFile, TokenizerConfigFile)
	}
	if err != nil {
		return "", err
	}
	var cfg struct {
		ChatTemplate json.RawMessage `json:"chat_template"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		return "", fmt.Errorf("%s: %v", path, err)
	}
	var one string
	if json.Unmarshal(cfg.ChatTemplate, &one) == nil && one != "" {
		return one, nil
	}
	var named []struct {
		Name     string `json:"name"`
		Template string `json:"template"`
	}
	if json.Unmarshal(cfg.ChatTemplate, &named) == nil && len(named) > 0 {
		for _, want := range []string{"tool_use", "default"} {
			for _, t := range named {
				if t.Name == want {
					return t.Template, nil
				}
			}
		}
		return named[0].Template, nil
	}
	return "", fmt.Errorf("%s: no chat_template", path)
}

// ToolFormat is the tools action format (agent.ToolChat) over chat: the
// chat template of the checkpoint in dir renders envTools, and
// agent.ReadSkillTool after them when the run shows a slate (skills).
func ToolFormat(chat *agent.ChatML, dir string, envTools []toolcall.Tool, skills bool) (*agent.ToolChat, error) {
	tools := append([]toolcall.Tool(nil), envTools...)
	if skills {
		tools = append(tools, agent.ReadSkillTool)
	}
	set, err := toolcall.NewSet(tools)
	if err != nil {
		return nil, err
	}
	tpl, err := ReadChatTemplate(dir)
	if err != nil {
		return nil, err
	}
	f, err := agent.NewToolChat(chat, tpl, set)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", dir, err)
	}
	return f, nil
}

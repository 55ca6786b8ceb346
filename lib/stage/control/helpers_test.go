package control

import "encoding/json"

// chat is an OpenAI chat-completions answer with content.
func chat(content string) string {
	b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"message": map[string]string{"role": "assistant", "content": content}}}})
	return string(b)
}

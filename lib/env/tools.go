package env

import "github.com/pats-rl/pats/lib/toolcall"

// ToolDeclarer is an environment that offers its actions as tools, for
// the tools action format (rollout --action-format tools): each tool's
// call stands for an action text the environment takes. The built-in
// environments declare theirs; an exec: child declares its own in its
// info answer ("tools", docs/env-protocol.md).
type ToolDeclarer interface {
	Tools() []toolcall.Tool
}

// Tools are the tools e declares; nil when it declares none.
func Tools(e Env) []toolcall.Tool {
	if d, ok := e.(ToolDeclarer); ok {
		return d.Tools()
	}
	return nil
}

// Tools implements ToolDeclarer: the tools of the child's info answer.
func (e *execEnv) Tools() []toolcall.Tool { return append([]toolcall.Tool(nil), e.info.Tools...) }

// Param is the JSON schema of tool arguments that are all strings, each
// with a description, the names in order (name, description pairs), all
// required.
func Param(pairs ...string) []byte {
	var props, req []byte
	for i := 0; i+1 < len(pairs); i += 2 {
		if i > 0 {
			props, req = append(props, ", "...), append(req, ", "...)
		}
		props = append(props, quote(pairs[i])+`: {"type": "string", "description": `+quote(pairs[i+1])+`}`...)
		req = append(req, quote(pairs[i])...)
	}
	return []byte(`{"type": "object", "properties": {` + string(props) + `}, "required": [` + string(req) + `]}`)
}

func quote(s string) string {
	b := []byte{'"'}
	for _, r := range s {
		switch r {
		case '"', '\\':
			b = append(b, '\\', byte(r))
		default:
			b = append(b, string(r)...)
		}
	}
	return string(append(b, '"'))
}

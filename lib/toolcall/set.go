package toolcall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/pats-rl/pats/lib/chattemplate"
)

// Tags of a tool call in an answer.
const (
	CallOpen  = "<tool_call>"
	CallClose = "</tool_call>"
)

// Set is the tools one episode offers, in the order the prompt shows
// them.
type Set struct {
	tools   []Tool
	schemas []schema
}

// NewSet checks the declarations; two tools of one name are an error.
func NewSet(tools []Tool) (*Set, error) {
	s := &Set{}
	seen := map[string]bool{}
	for _, t := range tools {
		if seen[t.Name] {
			return nil, fmt.Errorf("tool %s is declared twice", t.Name)
		}
		seen[t.Name] = true
		sc, err := t.compile()
		if err != nil {
			return nil, err
		}
		s.tools, s.schemas = append(s.tools, t), append(s.schemas, sc)
	}
	if len(s.tools) == 0 {
		return nil, errors.New("no tools declared")
	}
	return s, nil
}

// With is s and more tools after its own (a new set).
func (s *Set) With(more ...Tool) (*Set, error) {
	return NewSet(append(append([]Tool(nil), s.tools...), more...))
}

// Tools are the declarations in order.
func (s *Set) Tools() []Tool { return append([]Tool(nil), s.tools...) }

// Value is the tools as a chat template's tools variable takes them: a
// list of {"type": "function", "function": {"name", "description",
// "parameters"}}, the schema's keys in their declared order.
func (s *Set) Value() ([]any, error) {
	out := make([]any, len(s.tools))
	for i, t := range s.tools {
		p, err := chattemplate.Decode(t.params())
		if err != nil {
			return nil, fmt.Errorf("tool %s: %v", t.Name, err)
		}
		out[i] = chattemplate.NewMap("type", "function", "function",
			chattemplate.NewMap("name", t.Name, "description", t.Description, "parameters", p))
	}
	return out, nil
}

// Call is an answer read as a tool call.
type Call struct {
	Name   string
	Action string // the action text the call stands for
	// Spans are the byte spans, in the answer, of the text of each string
	// argument (between its quotes), by argument name.
	Spans map[string][2]int
}

// Parse reads answer: optional white space and <think>...</think>, then
// one <tool_call>{"name": NAME, "arguments": {...}}</tool_call> (text
// before it is allowed, after it ignored unless it is a second call). The
// error says why an answer holds no valid call.
func (s *Set) Parse(answer string) (Call, error) {
	var c Call
	from := 0
	lead := len(answer) - len(strings.TrimLeft(answer, " \t\r\n"))
	if strings.HasPrefix(answer[lead:], "<think>") {
		k := strings.Index(answer[lead:], "</think>")
		if k < 0 {
			return c, errors.New("unclosed <think>")
		}
		from = lead + k + len("</think>")
	}
	a := strings.Index(answer[from:], CallOpen)
	if a < 0 {
		return c, errors.New("no " + CallOpen)
	}
	a += from + len(CallOpen)
	n := strings.Index(answer[a:], CallClose)
	if n < 0 {
		return c, errors.New("no " + CallClose)
	}
	if strings.Contains(answer[a:], CallOpen) {
		return c, errors.New("more than one tool call (one action per answer)")
	}
	return s.read(answer, a, a+n)
}

// read reads the call JSON in answer[at:end].
func (s *Set) read(answer string, at, end int) (Call, error) {
	c := Call{Spans: map[string][2]int{}}
	body := answer[at:end]
	v, err := chattemplate.Decode([]byte(body))
	if err != nil {
		return c, fmt.Errorf("the call is not JSON: %v", err)
	}
	obj, ok := v.(*chattemplate.Map)
	if !ok {
		return c, errors.New("the call is not a JSON object")
	}
	for _, k := range obj.Keys() {
		if k != "name" && k != "arguments" {
			return c, fmt.Errorf("the call has a key %q (want name and arguments)", k)
		}
	}
	nv, _ := obj.Get("name")
	name, ok := nv.(string)
	if !ok {
		return c, errors.New("the call's name is not a string")
	}
	i := s.index(name)
	if i < 0 {
		return c, fmt.Errorf("no tool is called %q", name)
	}
	av, has := obj.Get("arguments")
	if !has {
		av = chattemplate.NewMap()
	}
	args, ok := av.(*chattemplate.Map)
	if !ok {
		return c, errors.New("the call's arguments are not a JSON object")
	}
	sc := s.schemas[i]
	for _, k := range args.Keys() {
		p, ok := sc.prop(k)
		if !ok {
			return c, fmt.Errorf("tool %s has no argument %s", name, k)
		}
		x, _ := args.Get(k)
		if err := p.fits(x); err != nil {
			return c, fmt.Errorf("tool %s: %v", name, err)
		}
	}
	for _, r := range sc.required {
		if _, ok := args.Get(r); !ok {
			return c, fmt.Errorf("tool %s: argument %s is missing", name, r)
		}
	}
	c.Name = name
	if t := s.tools[i]; t.Action != "" {
		c.Action = hole.ReplaceAllStringFunc(t.Action, func(h string) string {
			x, _ := args.Get(h[1 : len(h)-1])
			return text(x)
		})
		c.Action = strings.TrimSpace(c.Action)
	} else {
		a, _ := chattemplate.ToJSON(args)
		var compact bytes.Buffer
		_ = json.Compact(&compact, []byte(a))
		nb, _ := json.Marshal(name)
		c.Action = `{"name":` + string(nb) + `,"arguments":` + compact.String() + `}`
	}
	if err := stringSpans(body, at, c.Spans); err != nil {
		return c, err
	}
	return c, nil
}

func (s *Set) index(name string) int {
	for i, t := range s.tools {
		if t.Name == name {
			return i
		}
	}
	return -1
}

func (sc schema) prop(name string) (property, bool) {
	for _, p := range sc.props {
		if p.name == name {
			return p, true
		}
	}
	return property{}, false
}

// stringSpans notes the byte span (offset by at) of each string argument
// of the call object body.
func stringSpans(body string, at int, spans map[string][2]int) error {
	d := json.NewDecoder(strings.NewReader(body))
	if _, err := d.Token(); err != nil { // {
		return err
	}
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return err
		}
		if k != "arguments" {
			var skip json.RawMessage
			if err := d.Decode(&skip); err != nil {
				return err
			}
			continue
		}
		if _, err := d.Token(); err != nil { // {
			return err
		}
		for d.More() {
			ak, err := d.Token()
			if err != nil {
				return err
			}
			var raw json.RawMessage
			if err := d.Decode(&raw); err != nil {
				return err
			}
			if len(raw) > 1 && raw[0] == '"' {
				end := int(d.InputOffset()) // just after the closing quote
				spans[ak.(string)] = [2]int{at + end - len(raw) + 1, at + end - 1}
			}
		}
		return nil
	}
	return nil
}

// Answer is the text of the call that stands for action (what the oracle
// and random policies write): the first tool whose Action matches it, its
// arguments filled from the match, written as the Qwen chat templates
// write a call. An action no tool stands for is written as a call of a
// tool called invalid_action (which no set holds) with the action as its
// text, so that it reads back as an invalid answer.
func (s *Set) Answer(action string) string {
	for i, t := range s.tools {
		sc := s.schemas[i]
		if sc.action == nil {
			if c, err := s.read(action, 0, len(action)); err == nil && c.Name == t.Name {
				return callText(t.Name, argsOf(action))
			}
			continue
		}
		m := sc.action.FindStringSubmatch(action)
		if m == nil {
			continue
		}
		args := chattemplate.NewMap()
		ok := true
		for _, p := range sc.props { // declared order
			for h, name := range sc.holes {
				if name != p.name {
					continue
				}
				v := typed(m[h+1], p.typ)
				if p.fits(v) != nil {
					ok = false
				}
				args.Set(name, v)
				break
			}
		}
		if ok {
			return callText(t.Name, args)
		}
	}
	return callText("invalid_action", chattemplate.NewMap("text", action))
}

// typed reads an action's hole text as the argument's type.
func typed(s, typ string) any {
	switch typ {
	case "integer", "number", "boolean":
		if v, err := chattemplate.Decode([]byte(s)); err == nil {
			return v
		}
	}
	return s
}

func argsOf(call string) any {
	v, _ := chattemplate.Decode([]byte(call))
	if m, ok := v.(*chattemplate.Map); ok {
		a, _ := m.Get("arguments")
		return a
	}
	return nil
}

// callText writes a call as the Qwen templates render an assistant's
// tool call.
func callText(name string, args any) string {
	a, _ := chattemplate.ToJSON(args)
	n, _ := chattemplate.ToJSON(name)
	return CallOpen + "\n{\"name\": " + n + ", \"arguments\": " + a + "}\n" + CallClose
}

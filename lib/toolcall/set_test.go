package toolcall

import (
	"encoding/json"
	"strings"
	"testing"
)

func testSet(t *testing.T) *Set {
	t.Helper()
	s, err := NewSet([]Tool{
		{Name: "go_to", Description: "Go to a place.", Action: "go to {place}",
			Parameters: json.RawMessage(`{"type": "object", "properties": {"place": {"type": "string"}}, "required": ["place"]}`)},
		{Name: "put", Description: "Put an object.", Action: "put {object} in/on {place}",
			Parameters: json.RawMessage(`{"type": "object", "properties": {"object": {"type": "string"}, "place": {"type": "string"}}, "required": ["object", "place"]}`)},
		{Name: "look", Description: "Look around.", Action: "look"},
		{Name: "wait", Description: "Wait (an exec: child's null parameters).", Action: "wait", Parameters: json.RawMessage("null")},
		{Name: "pick", Description: "Pick by number.", Action: "pick {n} {fast}",
			Parameters: json.RawMessage(`{"type": "object", "properties": {"n": {"type": "integer", "enum": [1, 2]}, "fast": {"type": "boolean"}}, "required": ["n"]}`)},
		{Name: "raw", Description: "An exec child's own.",
			Parameters: json.RawMessage(`{"type": "object", "properties": {"q": {"type": "string"}}}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestParse: valid calls give their action; an answer that holds no
// call, more than one, or a call that does not fit its tool's schema is
// refused with the reason.
func TestParse(t *testing.T) {
	s := testSet(t)
	cases := []struct{ in, action, err string }{
		{"<tool_call>\n{\"name\": \"go_to\", \"arguments\": {\"place\": \"fridge 1\"}}\n</tool_call>", "go to fridge 1", ""},
		{"<think>\nhm\n</think>\nI go.\n<tool_call>{\"name\":\"put\",\"arguments\":{\"place\":\"sink 1\",\"object\":\"apple 1\"}}</tool_call> bye", "put apple 1 in/on sink 1", ""},
		{"<tool_call>{\"name\": \"look\"}</tool_call>", "look", ""},
		{"<tool_call>{\"name\": \"look\", \"arguments\": {}}</tool_call>", "look", ""},
		{"<tool_call>{\"name\": \"wait\"}</tool_call>", "wait", ""},
		{"<tool_call>{\"name\": \"pick\", \"arguments\": {\"n\": 2, \"fast\": true}}</tool_call>", "pick 2 true", ""},
		{"<tool_call>{\"name\": \"pick\", \"arguments\": {\"n\": 2.0}}</tool_call>", "pick 2", ""},
		{"<tool_call>{\"name\": \"raw\", \"arguments\": {\"q\": \"a \\\"b\\\"\"}}</tool_call>", `{"name":"raw","arguments":{"q":"a \"b\""}}`, ""},
		{"go to fridge 1", "", "no <tool_call>"},
		{"<think>never closed <tool_call>{}</tool_call>", "", "unclosed <think>"},
		{"<tool_call>{\"name\": \"look\"}", "", "no </tool_call>"},
		{"<tool_call>{\"name\": \"look\"}</tool_call><tool_call>{\"name\": \"look\"}</tool_call>", "", "more than one"},
		{"<tool_call>{name: look}</tool_call>", "", "not JSON"},
		{"<tool_call>[1]</tool_call>", "", "not a JSON object"},
		{"<tool_call>{\"name\": \"fly\", \"arguments\": {}}</tool_call>", "", `no tool is called "fly"`},
		{"<tool_call>{\"name\": \"go_to\", \"arguments\": {}}</tool_call>", "", "argument place is missing"},
		{"<tool_call>{\"name\": \"go_to\", \"arguments\": {\"place\": 1}}</tool_call>", "", "must be a string"},
		{"<tool_call>{\"name\": \"go_to\", \"arguments\": {\"place\": \"a\", \"speed\": \"x\"}}</tool_call>", "", "no argument speed"},
		{"<tool_call>{\"name\": \"pick\", \"arguments\": {\"n\": 3}}</tool_call>", "", "not one of its enum"},
		{"<tool_call>{\"name\": \"pick\", \"arguments\": {\"n\": 1.5}}</tool_call>", "", "must be a integer"},
		{"<tool_call>{\"name\": \"go_to\", \"arguments\": \"{\\\"place\\\": \\\"a\\\"}\"}</tool_call>", "", "arguments are not a JSON object"},
		{"<tool_call>{\"name\": \"look\", \"id\": 1}</tool_call>", "", `key "id"`},
	}
	for _, c := range cases {
		got, err := s.Parse(c.in)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("Parse(%q): %v", c.in, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("Parse(%q): error %v, want one with %q", c.in, err, c.err)
		case c.err == "" && got.Action != c.action:
			t.Errorf("Parse(%q) = %q, want %q", c.in, got.Action, c.action)
		}
	}
}

// TestSpans: the span of a string argument is its text between the
// quotes, escapes and all, in the answer's bytes.
func TestSpans(t *testing.T) {
	s := testSet(t)
	in := "<think>x</think>\n<tool_call>\n{\"name\": \"put\", \"arguments\": {\"object\": \"café \\\"1\\\"\", \"place\": \"sink 1\"}}\n</tool_call>"
	c, err := s.Parse(in)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"object": `café \"1\"`, "place": "sink 1"} {
		sp, ok := c.Spans[name]
		if !ok || in[sp[0]:sp[1]] != want {
			t.Errorf("span of %s: %v (%q), want %q", name, sp, in[sp[0]:min(sp[1], len(in))], want)
		}
	}
}

// TestAnswerRoundTrip: the call Answer writes for an action parses back
// to that action; an action no tool stands for reads back as invalid.
func TestAnswerRoundTrip(t *testing.T) {
	s := testSet(t)
	for _, a := range []string{"go to fridge 1", "put apple 1 in/on sink 1", "look", "pick 2 false", `{"name":"raw","arguments":{"q":"x"}}`} {
		text := s.Answer(a)
		c, err := s.Parse(text)
		if err != nil || c.Action != a {
			t.Errorf("Answer(%q) = %q reads back as %q, %v", a, text, c.Action, err)
		}
	}
	if want := "<tool_call>\n{\"name\": \"go_to\", \"arguments\": {\"place\": \"fridge 1\"}}\n</tool_call>"; s.Answer("go to fridge 1") != want {
		t.Errorf("Answer = %q, want %q", s.Answer("go to fridge 1"), want)
	}
	for _, a := range []string{"fly away", "pick 3 true"} {
		if _, err := s.Parse(s.Answer(a)); err == nil {
			t.Errorf("Answer(%q) = %q parses", a, s.Answer(a))
		}
	}
}

// TestDeclarations: bad declarations are refused with the tool's name.
func TestDeclarations(t *testing.T) {
	cases := []struct {
		tool Tool
		want string
	}{
		{Tool{Name: "a b"}, "tool name"},
		{Tool{Name: "x", Parameters: json.RawMessage(`{"type": "array"}`)}, "type object"},
		{Tool{Name: "x", Parameters: json.RawMessage(`{"type": "object", "properties": {"l": {"type": "array"}}}`)}, "argument l has type"},
		{Tool{Name: "x", Parameters: json.RawMessage(`{"type": "object", "properties": {}, "required": ["q"]}`)}, "required argument q"},
		{Tool{Name: "x", Action: "go {where}", Parameters: json.RawMessage(`{"type": "object", "properties": {}}`)}, "names {where}"},
		{Tool{Name: "x", Parameters: json.RawMessage(`{`)}, "parameters"},
	}
	for _, c := range cases {
		if _, err := NewSet([]Tool{c.tool}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.tool, err, c.want)
		}
	}
	if _, err := NewSet([]Tool{{Name: "x"}, {Name: "x"}}); err == nil {
		t.Error("a tool declared twice was taken")
	}
	if _, err := NewSet(nil); err == nil {
		t.Error("an empty set was taken")
	}
}

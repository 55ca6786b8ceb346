package toolcall

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/pats-rl/pats/lib/chattemplate"
)

// Tool is one action of an environment, offered to the policy as a
// function.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters,omitempty"` // absent or null: no arguments
	// Action is the action text a call stands for, {NAME} where argument
	// NAME goes; "" is the call as compact JSON.
	Action string `json:"action,omitempty"`
}

// noParams is the schema of a tool without arguments.
const noParams = `{"type": "object", "properties": {}}`

// params is the tool's schema, noParams when it declares none.
func (t Tool) params() json.RawMessage {
	if p := bytes.TrimSpace(t.Parameters); len(p) == 0 || string(p) == "null" {
		return json.RawMessage(noParams)
	}
	return t.Parameters
}

// property is one argument of a tool's schema.
type property struct {
	name string
	typ  string // string, integer, number or boolean
	enum []any
}

// schema is a tool's parameters as this package checks them.
type schema struct {
	props    []property
	required []string
	action   *regexp.Regexp // Action's inverse; nil without Action
	holes    []string       // the argument names of Action's holes, in order
}

var toolName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

var hole = regexp.MustCompile(`\{([A-Za-z0-9_]+)\}`)

// compile checks the declaration and makes its schema.
func (t Tool) compile() (schema, error) {
	var s schema
	if !toolName.MatchString(t.Name) {
		return s, fmt.Errorf("tool name %q: want 1 to 64 letters, digits, _ or -", t.Name)
	}
	var raw struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	params := t.params()
	if err := json.Unmarshal(params, &raw); err != nil {
		return s, fmt.Errorf("tool %s: parameters: %v", t.Name, err)
	}
	if raw.Type != "object" {
		return s, fmt.Errorf("tool %s: parameters must be a schema of type object, not %q", t.Name, raw.Type)
	}
	order, err := keyOrder(params, "properties")
	if err != nil {
		return s, fmt.Errorf("tool %s: parameters: %v", t.Name, err)
	}
	for _, name := range order {
		var p struct {
			Type string `json:"type"`
			Enum []any  `json:"enum"`
		}
		if err := json.Unmarshal(raw.Properties[name], &p); err != nil {
			return s, fmt.Errorf("tool %s: argument %s: %v", t.Name, name, err)
		}
		if !slices.Contains([]string{"string", "integer", "number", "boolean"}, p.Type) {
			return s, fmt.Errorf("tool %s: argument %s has type %q: want string, integer, number or boolean", t.Name, name, p.Type)
		}
		s.props = append(s.props, property{name: name, typ: p.Type, enum: p.Enum})
	}
	for _, r := range raw.Required {
		if _, ok := raw.Properties[r]; !ok {
			return s, fmt.Errorf("tool %s: required argument %s is not among its properties", t.Name, r)
		}
	}
	s.required = raw.Required
	if t.Action == "" {
		return s, nil
	}
	var re strings.Builder
	re.WriteString("^")
	last := 0
	for _, m := range hole.FindAllStringSubmatchIndex(t.Action, -1) {
		name := t.Action[m[2]:m[3]]
		if _, ok := raw.Properties[name]; !ok {
			return s, fmt.Errorf("tool %s: action %q names {%s}, which is not an argument", t.Name, t.Action, name)
		}
		re.WriteString(regexp.QuoteMeta(t.Action[last:m[0]]))
		re.WriteString("(.+?)")
		s.holes = append(s.holes, name)
		last = m[1]
	}
	re.WriteString(regexp.QuoteMeta(t.Action[last:]) + "$")
	s.action = regexp.MustCompile(re.String())
	return s, nil
}

// keyOrder lists the keys of the object under key in raw, in order.
func keyOrder(raw []byte, key string) ([]string, error) {
	v, err := chattemplate.Decode(raw)
	if err != nil {
		return nil, err
	}
	m, ok := v.(*chattemplate.Map)
	if !ok {
		return nil, fmt.Errorf("not an object")
	}
	p, ok := m.Get(key)
	if !ok {
		return nil, nil
	}
	pm, ok := p.(*chattemplate.Map)
	if !ok {
		return nil, fmt.Errorf("%s is not an object", key)
	}
	return pm.Keys(), nil
}

// fits checks one argument's value against its property.
func (p property) fits(v any) error {
	ok := false
	switch p.typ {
	case "string":
		_, ok = v.(string)
	case "integer":
		switch x := v.(type) {
		case int64:
			ok = true
		case float64:
			ok = x == float64(int64(x))
		}
	case "number":
		switch v.(type) {
		case int64, float64:
			ok = true
		}
	case "boolean":
		_, ok = v.(bool)
	}
	if !ok {
		return fmt.Errorf("argument %s must be a %s", p.name, p.typ)
	}
	if len(p.enum) > 0 {
		for _, e := range p.enum {
			if sameValue(e, v) {
				return nil
			}
		}
		return fmt.Errorf("argument %s is not one of its enum", p.name)
	}
	return nil
}

// sameValue compares an enum entry (encoding/json's) with an argument
// (chattemplate's).
func sameValue(e, v any) bool {
	switch x := e.(type) {
	case float64:
		switch y := v.(type) {
		case int64:
			return x == float64(y)
		case float64:
			return x == y
		}
		return false
	}
	return e == v
}

// text is an argument's value as the action text shows it.
func text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		if x == float64(int64(x)) {
			return strconv.FormatInt(int64(x), 10)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}

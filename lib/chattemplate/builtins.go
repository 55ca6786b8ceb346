package chattemplate

import (
	"fmt"
	"strings"
	"unicode"
)

// filter applies the filter name to v.
func filter(name string, v any, args []any) (any, error) {
	switch name {
	case "tojson":
		s, err := ToJSON(v)
		return s, err
	case "length", "count":
		switch x := v.(type) {
		case string:
			return int64(len([]rune(x))), nil
		case []any:
			return int64(len(x)), nil
		case *Map:
			return int64(x.Len()), nil
		case undefined:
			return int64(0), nil
		}
		return nil, fmt.Errorf("length of %s", typeName(v))
	case "trim":
		return strings.TrimSpace(str(v)), nil
	case "lower":
		return strings.ToLower(str(v)), nil
	case "upper":
		return strings.ToUpper(str(v)), nil
	case "string":
		return str(v), nil
	case "join":
		items, err := iterate(v)
		if err != nil {
			return nil, err
		}
		sep := ""
		if len(args) > 0 {
			sep = str(args[0])
		}
		parts := make([]string, len(items))
		for i, e := range items {
			parts[i] = str(e)
		}
		return strings.Join(parts, sep), nil
	case "first", "last":
		items, err := iterate(v)
		if err != nil {
			return nil, err
		}
		if len(items) == 0 {
			return undefined{name}, nil
		}
		if name == "first" {
			return items[0], nil
		}
		return items[len(items)-1], nil
	case "default", "d":
		if _, u := v.(undefined); u {
			if len(args) > 0 {
				return args[0], nil
			}
			return "", nil
		}
		return v, nil
	case "items":
		return items(v)
	case "list":
		return iterate(v)
	}
	return nil, fmt.Errorf("filter %q is not supported", name)
}

func items(v any) (any, error) {
	m, ok := v.(*Map)
	if !ok {
		return nil, fmt.Errorf("items of %s", typeName(v))
	}
	out := make([]any, len(m.keys))
	for i, k := range m.keys {
		out[i] = []any{k, m.vals[k]}
	}
	return out, nil
}

// test is "v is name(args)".
func test(name string, v any, args []any) (bool, error) {
	switch name {
	case "defined":
		_, u := v.(undefined)
		return !u, nil
	case "undefined":
		_, u := v.(undefined)
		return u, nil
	case "none":
		return v == nil, nil
	case "string":
		_, ok := v.(string)
		return ok, nil
	case "number":
		_, ok := num(v)
		return ok, nil
	case "integer":
		_, ok := v.(int64)
		return ok, nil
	case "float":
		_, ok := v.(float64)
		return ok, nil
	case "boolean":
		_, ok := v.(bool)
		return ok, nil
	case "true":
		b, ok := v.(bool)
		return ok && b, nil
	case "false":
		b, ok := v.(bool)
		return ok && !b, nil
	case "mapping":
		_, ok := v.(*Map)
		return ok, nil
	case "sequence", "iterable":
		switch v.(type) {
		case []any, string, *Map:
			return true, nil
		}
		return false, nil
	case "equalto", "eq", "sameas":
		if len(args) != 1 {
			return false, fmt.Errorf("test %s takes one argument", name)
		}
		return equal(v, args[0]), nil
	}
	return false, fmt.Errorf("test %q is not supported", name)
}

// stringMethod is the method name of s, or nil.
func stringMethod(s, name string) fn {
	chars := func(args []any) (string, bool) {
		if len(args) == 0 || args[0] == nil {
			return "", false
		}
		return str(args[0]), true
	}
	switch name {
	case "startswith", "endswith":
		return func(args []any, _ *Map) (any, error) {
			if len(args) != 1 {
				return nil, fmt.Errorf("%s takes one argument", name)
			}
			var cands []any
			if l, ok := args[0].([]any); ok {
				cands = l
			} else {
				cands = []any{args[0]}
			}
			for _, c := range cands {
				p, ok := c.(string)
				if !ok {
					return nil, fmt.Errorf("%s needs a string, not %s", name, typeName(c))
				}
				if name == "startswith" && strings.HasPrefix(s, p) || name == "endswith" && strings.HasSuffix(s, p) {
					return true, nil
				}
			}
			return false, nil
		}
	case "strip", "lstrip", "rstrip":
		return func(args []any, _ *Map) (any, error) {
			cs, given := chars(args)
			cut := unicode.IsSpace
			if given {
				cut = func(r rune) bool { return strings.ContainsRune(cs, r) }
			}
			switch name {
			case "lstrip":
				return strings.TrimLeftFunc(s, cut), nil
			case "rstrip":
				return strings.TrimRightFunc(s, cut), nil
			}
			return strings.TrimFunc(s, cut), nil
		}
	case "split":
		return func(args []any, _ *Map) (any, error) {
			var parts []string
			if sep, given := chars(args); given {
				if sep == "" {
					return nil, fmt.Errorf("split: empty separator")
				}
				parts = strings.Split(s, sep)
			} else {
				parts = strings.Fields(s)
			}
			out := make([]any, len(parts))
			for i, p := range parts {
				out[i] = p
			}
			return out, nil
		}
	case "lower", "upper", "title":
		return func([]any, *Map) (any, error) {
			switch name {
			case "lower":
				return strings.ToLower(s), nil
			case "upper":
				return strings.ToUpper(s), nil
			}
			return titleCase(s), nil
		}
	case "replace":
		return func(args []any, _ *Map) (any, error) {
			if len(args) != 2 {
				return nil, fmt.Errorf("replace takes two arguments")
			}
			return strings.ReplaceAll(s, str(args[0]), str(args[1])), nil
		}
	}
	return nil
}

func titleCase(s string) string {
	rs := []rune(s)
	up := true
	for i, r := range rs {
		if unicode.IsLetter(r) {
			if up {
				rs[i] = unicode.ToUpper(r)
			} else {
				rs[i] = unicode.ToLower(r)
			}
			up = false
		} else {
			up = true
		}
	}
	return string(rs)
}

// mapMethod is the method name of m, or nil.
func mapMethod(m *Map, name string) fn {
	switch name {
	case "get":
		return func(args []any, _ *Map) (any, error) {
			if len(args) == 0 {
				return nil, fmt.Errorf("get takes a key")
			}
			k, _ := args[0].(string)
			if v, ok := m.vals[k]; ok {
				return v, nil
			}
			if len(args) > 1 {
				return args[1], nil
			}
			return nil, nil
		}
	case "items":
		return func([]any, *Map) (any, error) { return items(m) }
	case "keys", "values":
		return func([]any, *Map) (any, error) {
			out := make([]any, len(m.keys))
			for i, k := range m.keys {
				if name == "keys" {
					out[i] = k
				} else {
					out[i] = m.vals[k]
				}
			}
			return out, nil
		}
	}
	return nil
}

package chattemplate

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Template is a parsed chat template.
type Template struct{ body []node }

// Parse parses a template; what the package does not support is an
// error naming its offset.
func Parse(src string) (*Template, error) {
	segs, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{segs: segs}
	body, _, err := p.parseBody()
	if err != nil {
		return nil, err
	}
	return &Template{body: body}, nil
}

// ErrRaised is wrapped by the error of a template that called
// raise_exception.
var ErrRaised = errors.New("the template raised an exception")

// scope is the variables of one render: for loops and set write into the
// innermost frame, as Jinja's scoping does for the templates this package
// serves (a set inside a loop is the loop's own).
type scope struct {
	frames []map[string]any
	out    strings.Builder
}

func (s *scope) lookup(name string) any {
	for i := len(s.frames) - 1; i >= 0; i-- {
		if v, ok := s.frames[i][name]; ok {
			return v
		}
	}
	if g, ok := globals[name]; ok {
		return g
	}
	return undefined{name}
}

// Render renders the template with vars (messages, tools,
// add_generation_prompt, ...).
func (t *Template) Render(vars map[string]any) (string, error) {
	s := &scope{frames: []map[string]any{{}}}
	for k, v := range vars {
		s.frames[0][k] = v
	}
	if err := s.run(t.body); err != nil {
		return "", err
	}
	return s.out.String(), nil
}

func (s *scope) run(body []node) error {
	for _, n := range body {
		if err := s.exec(n); err != nil {
			return err
		}
	}
	return nil
}

func (s *scope) exec(n node) error {
	switch x := n.(type) {
	case textNode:
		s.out.WriteString(x.s)
	case outNode:
		v, err := s.eval(x.e)
		if err != nil {
			return err
		}
		s.out.WriteString(str(v))
	case *ifNode:
		for i, c := range x.conds {
			v, err := s.eval(c)
			if err != nil {
				return err
			}
			if truth(v) {
				return s.run(x.bodies[i])
			}
		}
		return s.run(x.els)
	case *forNode:
		return s.loop(x)
	case *setNode:
		v, err := s.eval(x.e)
		if err != nil {
			return err
		}
		if x.attr == "" {
			s.frames[len(s.frames)-1][x.name] = v
			return nil
		}
		ns, ok := s.lookup(x.name).(*namespace)
		if !ok {
			return fmt.Errorf("set %s.%s: %s is not a namespace", x.name, x.attr, x.name)
		}
		ns.m.Set(x.attr, v)
	}
	return nil
}

func (s *scope) loop(x *forNode) error {
	it, err := s.eval(x.iter)
	if err != nil {
		return err
	}
	items, err := iterate(it)
	if err != nil {
		return fmt.Errorf("for %s: %v", strings.Join(x.vars, ", "), err)
	}
	if len(items) == 0 {
		return s.run(x.els)
	}
	frame := map[string]any{}
	s.frames = append(s.frames, frame)
	defer func() { s.frames = s.frames[:len(s.frames)-1] }()
	n := int64(len(items))
	for i, item := range items {
		clear(frame)
		frame["loop"] = NewMap("index", int64(i)+1, "index0", int64(i), "first", i == 0, "last", int64(i) == n-1,
			"length", n, "revindex", n-int64(i), "revindex0", n-int64(i)-1)
		if len(x.vars) == 1 {
			frame[x.vars[0]] = item
		} else {
			parts, ok := item.([]any)
			if !ok || len(parts) != len(x.vars) {
				return fmt.Errorf("for %s: cannot unpack %s", strings.Join(x.vars, ", "), typeName(item))
			}
			for k, v := range x.vars {
				frame[v] = parts[k]
			}
		}
		if err := s.run(x.body); err != nil {
			return err
		}
	}
	return nil
}

// iterate lists what a for loop walks: a list's items, a map's keys, a
// string's characters; none and undefined walk nothing.
func iterate(v any) ([]any, error) {
	switch x := v.(type) {
	case []any:
		return x, nil
	case *Map:
		out := make([]any, len(x.keys))
		for i, k := range x.keys {
			out[i] = k
		}
		return out, nil
	case string:
		var out []any
		for _, r := range x {
			out = append(out, string(r))
		}
		return out, nil
	case nil, undefined:
		return nil, nil
	}
	return nil, fmt.Errorf("%s is not iterable", typeName(v))
}

func (s *scope) eval(e expr) (any, error) {
	switch x := e.(type) {
	case literal:
		return x.v, nil
	case nameRef:
		return s.lookup(x.name), nil
	case listExpr:
		out := make([]any, len(x.items))
		for i, it := range x.items {
			v, err := s.eval(it)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case dictExpr:
		m := NewMap()
		for i := range x.keys {
			k, err := s.eval(x.keys[i])
			if err != nil {
				return nil, err
			}
			v, err := s.eval(x.vals[i])
			if err != nil {
				return nil, err
			}
			ks, ok := k.(string)
			if !ok {
				return nil, fmt.Errorf("dict key %s is not a string", typeName(k))
			}
			m.Set(ks, v)
		}
		return m, nil
	case attrExpr:
		v, err := s.eval(x.x)
		if err != nil {
			return nil, err
		}
		return attr(v, x.name), nil
	case indexExpr:
		v, err := s.eval(x.x)
		if err != nil {
			return nil, err
		}
		i, err := s.eval(x.i)
		if err != nil {
			return nil, err
		}
		return index(v, i)
	case sliceExpr:
		return s.slice(x)
	case callExpr:
		return s.call(x)
	case filterExpr:
		v, err := s.eval(x.x)
		if err != nil {
			return nil, err
		}
		args, err := s.evalAll(x.args)
		if err != nil {
			return nil, err
		}
		return filter(x.name, v, args)
	case testExpr:
		v, err := s.eval(x.x)
		if err != nil {
			return nil, err
		}
		args, err := s.evalAll(x.args)
		if err != nil {
			return nil, err
		}
		ok, err := test(x.name, v, args)
		return ok != x.not, err
	case notExpr:
		v, err := s.eval(x.x)
		return !truth(v), err
	case negExpr:
		v, err := s.eval(x.x)
		if err != nil {
			return nil, err
		}
		return arith("-", int64(0), v)
	case condExpr:
		c, err := s.eval(x.cond)
		if err != nil {
			return nil, err
		}
		if truth(c) {
			return s.eval(x.yes)
		}
		return s.eval(x.no)
	case binExpr:
		return s.binary(x)
	}
	return nil, fmt.Errorf("cannot evaluate %T", e)
}

func (s *scope) evalAll(es []expr) ([]any, error) {
	out := make([]any, len(es))
	for i, e := range es {
		v, err := s.eval(e)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func (s *scope) binary(x binExpr) (any, error) {
	l, err := s.eval(x.l)
	if err != nil {
		return nil, err
	}
	switch x.op {
	case "and":
		if !truth(l) {
			return l, nil
		}
		return s.eval(x.r)
	case "or":
		if truth(l) {
			return l, nil
		}
		return s.eval(x.r)
	}
	r, err := s.eval(x.r)
	if err != nil {
		return nil, err
	}
	switch x.op {
	case "==":
		return equal(l, r), nil
	case "!=":
		return !equal(l, r), nil
	case "<", ">", "<=", ">=":
		return compare(x.op, l, r)
	case "in":
		return contains(r, l)
	case "~":
		return str(l) + str(r), nil
	}
	return arith(x.op, l, r)
}

func compare(op string, l, r any) (bool, error) {
	var c int
	if a, ok := num(l); ok {
		b, ok := num(r)
		if !ok {
			return false, fmt.Errorf("cannot compare %s with %s", typeName(l), typeName(r))
		}
		c = cmpF(a, b)
	} else if a, ok := l.(string); ok {
		b, ok := r.(string)
		if !ok {
			return false, fmt.Errorf("cannot compare %s with %s", typeName(l), typeName(r))
		}
		c = strings.Compare(a, b)
	} else {
		return false, fmt.Errorf("cannot compare %s with %s", typeName(l), typeName(r))
	}
	switch op {
	case "<":
		return c < 0, nil
	case ">":
		return c > 0, nil
	case "<=":
		return c <= 0, nil
	}
	return c >= 0, nil
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func contains(in, x any) (bool, error) {
	switch c := in.(type) {
	case string:
		xs, ok := x.(string)
		if !ok {
			return false, fmt.Errorf("'in <string>' needs a string, not %s", typeName(x))
		}
		return strings.Contains(c, xs), nil
	case []any:
		for _, e := range c {
			if equal(e, x) {
				return true, nil
			}
		}
		return false, nil
	case *Map:
		xs, ok := x.(string)
		_, has := c.vals[xs]
		return ok && has, nil
	case undefined, nil:
		return false, nil
	}
	return false, fmt.Errorf("'in' needs a string, list or mapping, not %s", typeName(in))
}

func arith(op string, l, r any) (any, error) {
	if op == "+" {
		if a, ok := l.(string); ok {
			if b, ok := r.(string); ok {
				return a + b, nil
			}
		}
		if a, ok := l.([]any); ok {
			if b, ok := r.([]any); ok {
				return append(append([]any{}, a...), b...), nil
			}
		}
	}
	ai, aInt := l.(int64)
	bi, bInt := r.(int64)
	if aInt && bInt {
		switch op {
		case "+":
			return ai + bi, nil
		case "-":
			return ai - bi, nil
		case "*":
			return ai * bi, nil
		case "//", "%":
			if bi == 0 {
				return nil, fmt.Errorf("division by zero")
			}
			q, m := ai/bi, ai%bi
			if m != 0 && (m < 0) != (bi < 0) { // Python floors
				q, m = q-1, m+bi
			}
			if op == "//" {
				return q, nil
			}
			return m, nil
		}
	}
	a, okA := num(l)
	b, okB := num(r)
	if !okA || !okB {
		return nil, fmt.Errorf("unsupported operand types for %s: %s and %s", op, typeName(l), typeName(r))
	}
	switch op {
	case "+":
		return a + b, nil
	case "-":
		return a - b, nil
	case "*":
		return a * b, nil
	case "/":
		if b == 0 {
			return nil, fmt.Errorf("division by zero")
		}
		return a / b, nil
	case "//":
		if b == 0 {
			return nil, fmt.Errorf("division by zero")
		}
		return math.Floor(a / b), nil
	case "%":
		if b == 0 {
			return nil, fmt.Errorf("division by zero")
		}
		return a - b*math.Floor(a/b), nil
	}
	return nil, fmt.Errorf("unknown operator %s", op)
}

// attr is x.name: a map's key, a namespace's attribute, or a method.
func attr(v any, name string) any {
	switch x := v.(type) {
	case *Map:
		if e, ok := x.vals[name]; ok {
			return e
		}
		if m := mapMethod(x, name); m != nil {
			return m
		}
	case *namespace:
		if e, ok := x.m.vals[name]; ok {
			return e
		}
	case string:
		if m := stringMethod(x, name); m != nil {
			return m
		}
	}
	return undefined{name}
}

// index is x[i]: a list's or string's item (negative from the end), a
// map's key; missing is undefined.
func index(v, i any) (any, error) {
	switch x := v.(type) {
	case []any:
		k, ok := i.(int64)
		if !ok {
			return nil, fmt.Errorf("list index is %s, not an integer", typeName(i))
		}
		if k < 0 {
			k += int64(len(x))
		}
		if k < 0 || k >= int64(len(x)) {
			return undefined{"index"}, nil
		}
		return x[k], nil
	case string:
		k, ok := i.(int64)
		if !ok {
			return nil, fmt.Errorf("string index is %s, not an integer", typeName(i))
		}
		rs := []rune(x)
		if k < 0 {
			k += int64(len(rs))
		}
		if k < 0 || k >= int64(len(rs)) {
			return undefined{"index"}, nil
		}
		return string(rs[k]), nil
	case *Map, *namespace:
		k, ok := i.(string)
		if !ok {
			return undefined{"key"}, nil
		}
		return attr(v, k), nil
	}
	return undefined{"index"}, nil
}

func (s *scope) slice(x sliceExpr) (any, error) {
	v, err := s.eval(x.x)
	if err != nil {
		return nil, err
	}
	var items []any
	_, isStr := v.(string)
	switch y := v.(type) {
	case []any:
		items = y
	case string:
		for _, r := range y {
			items = append(items, string(r))
		}
	default:
		return nil, fmt.Errorf("cannot slice %s", typeName(v))
	}
	bound := func(e expr) (*int64, error) {
		if e == nil {
			return nil, nil
		}
		b, err := s.eval(e)
		if err != nil {
			return nil, err
		}
		if b == nil {
			return nil, nil
		}
		k, ok := b.(int64)
		if !ok {
			return nil, fmt.Errorf("slice bound is %s, not an integer", typeName(b))
		}
		return &k, nil
	}
	start, err := bound(x.start)
	if err != nil {
		return nil, err
	}
	stop, err := bound(x.stop)
	if err != nil {
		return nil, err
	}
	stepP, err := bound(x.step)
	if err != nil {
		return nil, err
	}
	out := sliceItems(items, start, stop, stepP)
	if out == nil && stepP != nil && *stepP == 0 {
		return nil, fmt.Errorf("slice step cannot be zero")
	}
	if isStr {
		var b strings.Builder
		for _, e := range out {
			b.WriteString(e.(string))
		}
		return b.String(), nil
	}
	return out, nil
}

// sliceItems is Python's items[start:stop:step].
func sliceItems(items []any, start, stop, stepP *int64) []any {
	n := int64(len(items))
	step := int64(1)
	if stepP != nil {
		step = *stepP
	}
	if step == 0 {
		return nil
	}
	norm := func(p *int64, def int64, lo, hi int64) int64 {
		if p == nil {
			return def
		}
		k := *p
		if k < 0 {
			k += n
		}
		return min(max(k, lo), hi)
	}
	out := []any{}
	if step > 0 {
		a, b := norm(start, 0, 0, n), norm(stop, n, 0, n)
		for i := a; i < b; i += step {
			out = append(out, items[i])
		}
		return out
	}
	a, b := norm(start, n-1, -1, n-1), norm(stop, -1, -1, n-1)
	if stop != nil && *stop < 0 && *stop+n < 0 {
		b = -1
	}
	for i := a; i > b; i += step {
		out = append(out, items[i])
	}
	return out
}

func (s *scope) call(x callExpr) (any, error) {
	f, err := s.eval(x.f)
	if err != nil {
		return nil, err
	}
	args, err := s.evalAll(x.args)
	if err != nil {
		return nil, err
	}
	kw := NewMap()
	for i, k := range x.kwargs {
		v, err := s.eval(x.kwvals[i])
		if err != nil {
			return nil, err
		}
		kw.Set(k, v)
	}
	call, ok := f.(fn)
	if !ok {
		if u, isU := f.(undefined); isU {
			return nil, fmt.Errorf("%s is not defined (not a function this package knows)", u.name)
		}
		return nil, fmt.Errorf("%s is not callable", typeName(f))
	}
	return call(args, kw)
}

// globals are the functions a template may call by name.
var globals = map[string]any{
	"namespace": fn(func(args []any, kw *Map) (any, error) {
		ns := &namespace{m: NewMap()}
		for _, k := range kw.keys {
			ns.m.Set(k, kw.vals[k])
		}
		return ns, nil
	}),
	"raise_exception": fn(func(args []any, kw *Map) (any, error) {
		msg := ""
		if len(args) > 0 {
			msg = str(args[0])
		}
		return nil, fmt.Errorf("%w: %s", ErrRaised, msg)
	}),
}

package chattemplate

import (
	"fmt"
	"strconv"
)

// Statement nodes.
type (
	textNode struct{ s string }
	outNode  struct{ e expr }
	ifNode   struct {
		conds  []expr
		bodies [][]node
		els    []node
	}
	forNode struct {
		vars      []string
		iter      expr
		body, els []node
	}
	setNode struct {
		name, attr string // attr set: ns.attr = e
		e          expr
	}
)

type node interface{}

// Expression nodes.
type (
	literal  struct{ v any }
	nameRef  struct{ name string }
	listExpr struct{ items []expr }
	dictExpr struct{ keys, vals []expr }
	attrExpr struct {
		x    expr
		name string
	}
	indexExpr struct{ x, i expr }
	sliceExpr struct {
		x                 expr
		start, stop, step expr // nil: absent
	}
	callExpr struct {
		f      expr
		args   []expr
		kwargs []string
		kwvals []expr
	}
	filterExpr struct {
		x    expr
		name string
		args []expr
	}
	testExpr struct {
		x    expr
		name string
		not  bool
		args []expr
	}
	binExpr struct {
		op   string
		l, r expr
	}
	notExpr  struct{ x expr }
	negExpr  struct{ x expr }
	condExpr struct{ cond, yes, no expr }
)

type expr interface{}

// parser walks the segments of a template.
type parser struct {
	segs []segment
	i    int
}

// parseBody parses nodes up to a statement whose keyword is one of stops
// (returned, not consumed) or the end (stop "").
func (p *parser) parseBody(stops ...string) ([]node, string, error) {
	var out []node
	for p.i < len(p.segs) {
		s := p.segs[p.i]
		switch s.kind {
		case segText:
			if s.text != "" {
				out = append(out, textNode{s.text})
			}
			p.i++
		case segComment:
			p.i++
		case segOutput:
			e, err := parseExprAll(s.toks, s.pos)
			if err != nil {
				return nil, "", err
			}
			out = append(out, outNode{e})
			p.i++
		case segStmt:
			if len(s.toks) == 0 || s.toks[0].kind != tName {
				return nil, "", fmt.Errorf("offset %d: empty or unknown statement", s.pos)
			}
			kw := s.toks[0].s
			for _, st := range stops {
				if kw == st {
					return out, kw, nil
				}
			}
			n, err := p.parseStmt(kw, s)
			if err != nil {
				return nil, "", err
			}
			if n != nil {
				out = append(out, n)
			}
		}
	}
	if len(stops) > 0 {
		return nil, "", fmt.Errorf("end of template: missing {%% %s %%}", stops[len(stops)-1])
	}
	return out, "", nil
}

func (p *parser) parseStmt(kw string, s segment) (node, error) {
	ts := &tokens{toks: s.toks[1:], pos: s.pos}
	switch kw {
	case "if":
		n := &ifNode{}
		cond, err := ts.exprAll()
		if err != nil {
			return nil, err
		}
		p.i++
		for {
			body, stop, err := p.parseBody("elif", "else", "endif")
			if err != nil {
				return nil, err
			}
			n.conds, n.bodies = append(n.conds, cond), append(n.bodies, body)
			st := p.segs[p.i]
			p.i++
			switch stop {
			case "elif":
				if cond, err = (&tokens{toks: st.toks[1:], pos: st.pos}).exprAll(); err != nil {
					return nil, err
				}
				continue
			case "else":
				if n.els, _, err = p.parseBody("endif"); err != nil {
					return nil, err
				}
				p.i++
			}
			return n, nil
		}
	case "for":
		n := &forNode{}
		for {
			t := ts.next()
			if t == nil || t.kind != tName {
				return nil, fmt.Errorf("offset %d: for needs a name", s.pos)
			}
			n.vars = append(n.vars, t.s)
			if !ts.acceptOp(",") {
				break
			}
		}
		if t := ts.next(); t == nil || t.kind != tName || t.s != "in" {
			return nil, fmt.Errorf("offset %d: for without in", s.pos)
		}
		var err error
		if n.iter, err = ts.exprAll(); err != nil {
			return nil, err
		}
		p.i++
		body, stop, err := p.parseBody("else", "endfor")
		if err != nil {
			return nil, err
		}
		n.body = body
		p.i++
		if stop == "else" {
			if n.els, _, err = p.parseBody("endfor"); err != nil {
				return nil, err
			}
			p.i++
		}
		return n, nil
	case "set":
		t := ts.next()
		if t == nil || t.kind != tName {
			return nil, fmt.Errorf("offset %d: set needs a name", s.pos)
		}
		n := &setNode{name: t.s}
		if ts.acceptOp(".") {
			a := ts.next()
			if a == nil || a.kind != tName {
				return nil, fmt.Errorf("offset %d: set %s. needs an attribute", s.pos, t.s)
			}
			n.attr = a.s
		}
		if !ts.acceptOp("=") {
			return nil, fmt.Errorf("offset %d: set without = (block set is not supported)", s.pos)
		}
		var err error
		if n.e, err = ts.exprAll(); err != nil {
			return nil, err
		}
		p.i++
		return n, nil
	}
	return nil, fmt.Errorf("offset %d: statement %q is not supported", s.pos, kw)
}

// tokens is an expression's token stream.
type tokens struct {
	toks []token
	k    int
	pos  int
}

func (ts *tokens) peek() *token {
	if ts.k < len(ts.toks) {
		return &ts.toks[ts.k]
	}
	return nil
}

func (ts *tokens) next() *token {
	t := ts.peek()
	if t != nil {
		ts.k++
	}
	return t
}

func (ts *tokens) isOp(op string) bool {
	t := ts.peek()
	return t != nil && t.kind == tOp && t.s == op
}

func (ts *tokens) isName(n string) bool {
	t := ts.peek()
	return t != nil && t.kind == tName && t.s == n
}

func (ts *tokens) acceptOp(op string) bool {
	if ts.isOp(op) {
		ts.k++
		return true
	}
	return false
}

func (ts *tokens) acceptName(n string) bool {
	if ts.isName(n) {
		ts.k++
		return true
	}
	return false
}

func (ts *tokens) errf(format string, a ...any) error {
	at := ts.pos
	if t := ts.peek(); t != nil {
		at = t.pos
	}
	return fmt.Errorf("offset %d: "+format, append([]any{at}, a...)...)
}

func parseExprAll(toks []token, pos int) (expr, error) {
	return (&tokens{toks: toks, pos: pos}).exprAll()
}

// exprAll parses one expression that takes every token.
func (ts *tokens) exprAll() (expr, error) {
	e, err := ts.expr()
	if err != nil {
		return nil, err
	}
	if t := ts.peek(); t != nil {
		return nil, ts.errf("unexpected %q", t.s)
	}
	return e, nil
}

// expr: or-expression, optionally "if cond else other".
func (ts *tokens) expr() (expr, error) {
	e, err := ts.or()
	if err != nil {
		return nil, err
	}
	if ts.acceptName("if") {
		cond, err := ts.or()
		if err != nil {
			return nil, err
		}
		var no expr = literal{undefined{"else"}}
		if ts.acceptName("else") {
			if no, err = ts.expr(); err != nil {
				return nil, err
			}
		}
		return condExpr{cond, e, no}, nil
	}
	return e, nil
}

func (ts *tokens) or() (expr, error) {
	l, err := ts.and()
	for err == nil && ts.acceptName("or") {
		var r expr
		r, err = ts.and()
		l = binExpr{"or", l, r}
	}
	return l, err
}

func (ts *tokens) and() (expr, error) {
	l, err := ts.not()
	for err == nil && ts.acceptName("and") {
		var r expr
		r, err = ts.not()
		l = binExpr{"and", l, r}
	}
	return l, err
}

func (ts *tokens) not() (expr, error) {
	if ts.acceptName("not") {
		x, err := ts.not()
		return notExpr{x}, err
	}
	return ts.compare()
}

func (ts *tokens) compare() (expr, error) {
	l, err := ts.concat()
	if err != nil {
		return nil, err
	}
	for {
		switch {
		case ts.isOp("==") || ts.isOp("!=") || ts.isOp("<") || ts.isOp(">") || ts.isOp("<=") || ts.isOp(">="):
			op := ts.next().s
			r, err := ts.concat()
			if err != nil {
				return nil, err
			}
			l = binExpr{op, l, r}
		case ts.isName("in"):
			ts.next()
			r, err := ts.concat()
			if err != nil {
				return nil, err
			}
			l = binExpr{"in", l, r}
		case ts.isName("not") && ts.k+1 < len(ts.toks) && ts.toks[ts.k+1].kind == tName && ts.toks[ts.k+1].s == "in":
			ts.k += 2
			r, err := ts.concat()
			if err != nil {
				return nil, err
			}
			l = notExpr{binExpr{"in", l, r}}
		default:
			return l, nil
		}
	}
}

func (ts *tokens) concat() (expr, error) {
	l, err := ts.additive()
	for err == nil && ts.acceptOp("~") {
		var r expr
		r, err = ts.additive()
		l = binExpr{"~", l, r}
	}
	return l, err
}

func (ts *tokens) additive() (expr, error) {
	l, err := ts.term()
	for err == nil && (ts.isOp("+") || ts.isOp("-")) {
		op := ts.next().s
		var r expr
		r, err = ts.term()
		l = binExpr{op, l, r}
	}
	return l, err
}

func (ts *tokens) term() (expr, error) {
	l, err := ts.unary()
	for err == nil && (ts.isOp("*") || ts.isOp("/") || ts.isOp("//") || ts.isOp("%")) {
		op := ts.next().s
		var r expr
		r, err = ts.unary()
		l = binExpr{op, l, r}
	}
	return l, err
}

func (ts *tokens) unary() (expr, error) {
	if ts.acceptOp("-") {
		x, err := ts.unary()
		return negExpr{x}, err
	}
	if ts.acceptOp("+") {
		return ts.unary()
	}
	return ts.postfix()
}

// postfix: a primary with attributes, subscripts, calls, filters and tests.
func (ts *tokens) postfix() (expr, error) {
	x, err := ts.primary()
	if err != nil {
		return nil, err
	}
	for {
		switch {
		case ts.acceptOp("."):
			t := ts.next()
			if t == nil || (t.kind != tName && t.kind != tInt) {
				return nil, ts.errf("attribute name expected")
			}
			x = attrExpr{x, t.s}
		case ts.acceptOp("["):
			if x, err = ts.subscript(x); err != nil {
				return nil, err
			}
		case ts.isOp("("):
			ts.next()
			c := callExpr{f: x}
			if err := ts.args(&c); err != nil {
				return nil, err
			}
			x = c
		case ts.acceptOp("|"):
			t := ts.next()
			if t == nil || t.kind != tName {
				return nil, ts.errf("filter name expected")
			}
			f := filterExpr{x: x, name: t.s}
			if ts.acceptOp("(") {
				c := callExpr{}
				if err := ts.args(&c); err != nil {
					return nil, err
				}
				f.args = c.args
			}
			x = f
		case ts.isName("is"):
			ts.next()
			te := testExpr{x: x, not: ts.acceptName("not")}
			t := ts.next()
			if t == nil || t.kind != tName {
				return nil, ts.errf("test name expected")
			}
			te.name = t.s
			if ts.acceptOp("(") {
				c := callExpr{}
				if err := ts.args(&c); err != nil {
					return nil, err
				}
				te.args = c.args
			}
			x = te
		default:
			return x, nil
		}
	}
}

// subscript parses what follows [ up to ]: an index or a slice.
func (ts *tokens) subscript(x expr) (expr, error) {
	var parts [3]expr
	n := 0
	for {
		if !ts.isOp(":") && !ts.isOp("]") {
			e, err := ts.expr()
			if err != nil {
				return nil, err
			}
			parts[n] = e
		}
		if ts.acceptOp("]") {
			break
		}
		if !ts.acceptOp(":") || n == 2 {
			return nil, ts.errf("] expected")
		}
		n++
	}
	if n == 0 {
		if parts[0] == nil {
			return nil, ts.errf("empty subscript")
		}
		return indexExpr{x, parts[0]}, nil
	}
	return sliceExpr{x, parts[0], parts[1], parts[2]}, nil
}

// args parses call arguments after "(" up to ")".
func (ts *tokens) args(c *callExpr) error {
	for !ts.acceptOp(")") {
		if len(c.args)+len(c.kwargs) > 0 && !ts.acceptOp(",") {
			return ts.errf(", or ) expected")
		}
		if ts.acceptOp(")") {
			return nil
		}
		if t := ts.peek(); t != nil && t.kind == tName && ts.k+1 < len(ts.toks) && ts.toks[ts.k+1].kind == tOp && ts.toks[ts.k+1].s == "=" {
			ts.k += 2
			v, err := ts.expr()
			if err != nil {
				return err
			}
			c.kwargs, c.kwvals = append(c.kwargs, t.s), append(c.kwvals, v)
			continue
		}
		v, err := ts.expr()
		if err != nil {
			return err
		}
		c.args = append(c.args, v)
	}
	return nil
}

func (ts *tokens) primary() (expr, error) {
	t := ts.next()
	if t == nil {
		return nil, ts.errf("expression expected")
	}
	switch t.kind {
	case tString:
		s := t.s
		for ts.peek() != nil && ts.peek().kind == tString { // adjacent literals join
			s += ts.next().s
		}
		return literal{s}, nil
	case tInt:
		i, err := strconv.ParseInt(t.s, 10, 64)
		if err != nil {
			return nil, ts.errf("bad integer %s", t.s)
		}
		return literal{i}, nil
	case tFloat:
		f, err := strconv.ParseFloat(t.s, 64)
		if err != nil {
			return nil, ts.errf("bad number %s", t.s)
		}
		return literal{f}, nil
	case tName:
		switch t.s {
		case "true", "True":
			return literal{true}, nil
		case "false", "False":
			return literal{false}, nil
		case "none", "None":
			return literal{nil}, nil
		}
		return nameRef{t.s}, nil
	}
	switch t.s {
	case "(":
		e, err := ts.expr()
		if err != nil {
			return nil, err
		}
		if ts.isOp(",") { // a tuple: a list here
			items := []expr{e}
			for ts.acceptOp(",") && !ts.isOp(")") {
				x, err := ts.expr()
				if err != nil {
					return nil, err
				}
				items = append(items, x)
			}
			e = listExpr{items}
		}
		if !ts.acceptOp(")") {
			return nil, ts.errf(") expected")
		}
		return e, nil
	case "[":
		l := listExpr{}
		for !ts.acceptOp("]") {
			if len(l.items) > 0 && !ts.acceptOp(",") {
				return nil, ts.errf(", or ] expected")
			}
			if ts.acceptOp("]") {
				break
			}
			x, err := ts.expr()
			if err != nil {
				return nil, err
			}
			l.items = append(l.items, x)
		}
		return l, nil
	case "{":
		d := dictExpr{}
		for !ts.acceptOp("}") {
			if len(d.keys) > 0 && !ts.acceptOp(",") {
				return nil, ts.errf(", or } expected")
			}
			if ts.acceptOp("}") {
				break
			}
			k, err := ts.expr()
			if err != nil {
				return nil, err
			}
			if !ts.acceptOp(":") {
				return nil, ts.errf(": expected")
			}
			v, err := ts.expr()
			if err != nil {
				return nil, err
			}
			d.keys, d.vals = append(d.keys, k), append(d.vals, v)
		}
		return d, nil
	}
	return nil, fmt.Errorf("offset %d: unexpected %q", t.pos, t.s)
}

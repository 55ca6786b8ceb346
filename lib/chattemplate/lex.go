package chattemplate

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Token kinds of an expression.
const (
	tName = iota
	tString
	tInt
	tFloat
	tOp
)

type token struct {
	kind int
	s    string
	pos  int // byte offset in the template
}

// Segment kinds.
const (
	segText = iota
	segOutput
	segStmt
	segComment
)

// segment is a run of text or one tag with its expression tokens; trimL
// and trimR are the tag's - markers.
type segment struct {
	kind         int
	text         string
	toks         []token
	trimL, trimR bool
	pos          int
}

// lex splits src into text and tags, then applies the white-space rules:
// the - markers, trim_blocks (the newline after a block or comment tag
// goes) and lstrip_blocks (blanks from a line's start up to a block or
// comment tag go).
func lex(src string) ([]segment, error) {
	var segs []segment
	i := 0
	for i < len(src) {
		j := nextTag(src, i)
		if j < 0 {
			segs = append(segs, segment{kind: segText, text: src[i:], pos: i})
			break
		}
		if j > i {
			segs = append(segs, segment{kind: segText, text: src[i:j], pos: i})
		}
		seg, end, err := lexTag(src, j)
		if err != nil {
			return nil, err
		}
		segs = append(segs, seg)
		i = end
	}
	if n := len(segs); n > 0 && segs[n-1].kind == segText { // Jinja drops one trailing newline
		segs[n-1].text = strings.TrimSuffix(segs[n-1].text, "\n")
	}
	for k := range segs {
		if segs[k].kind != segText {
			continue
		}
		t := segs[k].text
		from, to := 0, len(t)
		if k > 0 {
			p := segs[k-1]
			switch {
			case p.trimR:
				from = len(t) - len(strings.TrimLeftFunc(t, unicode.IsSpace))
			case p.kind == segStmt || p.kind == segComment:
				if strings.HasPrefix(t, "\r\n") {
					from = 2
				} else if strings.HasPrefix(t, "\n") {
					from = 1
				}
			}
		}
		if k+1 < len(segs) {
			n := segs[k+1]
			switch {
			case n.trimL:
				to = len(strings.TrimRightFunc(t, unicode.IsSpace))
			case n.kind == segStmt || n.kind == segComment:
				nl := strings.LastIndexByte(t, '\n')
				if strings.Trim(t[nl+1:], " \t") == "" && (nl >= 0 || segs[k].pos == 0) {
					to = nl + 1
				}
			}
		}
		if from > to {
			from = to
		}
		segs[k].text = t[from:to]
	}
	return segs, nil
}

// nextTag is the offset of the next {{, {% or {# at or after i, or -1.
func nextTag(src string, i int) int {
	for {
		j := strings.IndexByte(src[i:], '{')
		if j < 0 || i+j+1 >= len(src) {
			return -1
		}
		if c := src[i+j+1]; c == '{' || c == '%' || c == '#' {
			return i + j
		}
		i += j + 1
	}
}

// lexTag reads the tag at src[at:] and returns it and where it ends.
func lexTag(src string, at int) (segment, int, error) {
	open := src[at+1]
	seg := segment{pos: at}
	i := at + 2
	if i < len(src) && src[i] == '-' {
		seg.trimL = true
		i++
	} else if i < len(src) && src[i] == '+' {
		i++
	}
	if open == '#' {
		seg.kind = segComment
		k := strings.Index(src[i:], "#}")
		if k < 0 {
			return seg, 0, fmt.Errorf("offset %d: comment never closed", at)
		}
		seg.trimR = k > 0 && src[i+k-1] == '-'
		return seg, i + k + 2, nil
	}
	closer := "}}"
	seg.kind = segOutput
	if open == '%' {
		closer, seg.kind = "%}", segStmt
	}
	for {
		for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
			i++
		}
		if i >= len(src) {
			return seg, 0, fmt.Errorf("offset %d: tag never closed (want %s)", at, closer)
		}
		if strings.HasPrefix(src[i:], closer) {
			return seg, i + 2, nil
		}
		if (src[i] == '-' || src[i] == '+') && strings.HasPrefix(src[i+1:], closer) {
			seg.trimR = src[i] == '-'
			return seg, i + 3, nil
		}
		t, n, err := lexToken(src, i)
		if err != nil {
			return seg, 0, err
		}
		seg.toks = append(seg.toks, t)
		i = n
	}
}

// ops are the operators, longest first.
var ops = []string{"//", "**", "==", "!=", "<=", ">=", "+", "-", "*", "/", "%", "~", "<", ">", "=", "(", ")", "[", "]", "{", "}", ".", ",", ":", "|"}

func lexToken(src string, i int) (token, int, error) {
	c := src[i]
	switch {
	case c == '\'' || c == '"':
		return lexString(src, i)
	case c >= '0' && c <= '9':
		j := i
		for j < len(src) && (src[j] >= '0' && src[j] <= '9' || src[j] == '_') {
			j++
		}
		if j+1 < len(src) && src[j] == '.' && src[j+1] >= '0' && src[j+1] <= '9' {
			j++
			for j < len(src) && src[j] >= '0' && src[j] <= '9' {
				j++
			}
			return token{tFloat, src[i:j], i}, j, nil
		}
		return token{tInt, src[i:j], i}, j, nil
	case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		j := i
		for j < len(src) && (src[j] == '_' || src[j] >= 'a' && src[j] <= 'z' || src[j] >= 'A' && src[j] <= 'Z' || src[j] >= '0' && src[j] <= '9') {
			j++
		}
		return token{tName, src[i:j], i}, j, nil
	}
	for _, op := range ops {
		if strings.HasPrefix(src[i:], op) {
			return token{tOp, op, i}, i + len(op), nil
		}
	}
	return token{}, 0, fmt.Errorf("offset %d: unexpected character %q", i, c)
}

// lexString reads a quoted string with Python's escapes.
func lexString(src string, i int) (token, int, error) {
	q := src[i]
	var b strings.Builder
	j := i + 1
	for j < len(src) {
		c := src[j]
		switch {
		case c == q:
			return token{tString, b.String(), i}, j + 1, nil
		case c == '\\' && j+1 < len(src):
			j++
			switch e := src[j]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '\\', '\'', '"':
				b.WriteByte(e)
			case '0':
				b.WriteByte(0)
			case 'x', 'u', 'U':
				n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
				if j+n >= len(src) {
					return token{}, 0, fmt.Errorf("offset %d: short \\%c escape", j, e)
				}
				r, err := strconv.ParseUint(src[j+1:j+1+n], 16, 32)
				if err != nil {
					return token{}, 0, fmt.Errorf("offset %d: bad \\%c escape", j, e)
				}
				b.WriteRune(rune(r))
				j += n
			default:
				b.WriteByte('\\')
				b.WriteByte(e)
			}
			j++
		default:
			b.WriteByte(c)
			j++
		}
	}
	return token{}, 0, fmt.Errorf("offset %d: string never closed", i)
}

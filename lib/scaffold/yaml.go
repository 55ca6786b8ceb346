package scaffold

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/pats-rl/pats/lib/table"
)

type pendingItem struct {
	it   table.ScaffoldItem
	line int
	set  map[string]bool
}

// ParseItems reads a hand-written items file (the static expert library a
// run can be seeded with, `--from items.yaml`). name is used in errors. The
// format is a small YAML subset:
//
//	# comments start with '#'
//	items:                     # optional; the list may also start at the top
//	  - layer: general
//	    text: Read the task and plan before acting.
//	  - layer: task
//	    task_type: pick_heat_then_place_in_recep
//	    text: "Heat the object with the microwave before placing it."
//	  - layer: mistake
//	    task_type: pick_heat_then_place_in_recep
//	    id: m-heat-0001          # optional; generated when absent
//	    text: 'Do not put the object away before heating it.'
//
// Keys: layer (required), task_type (required for task and mistake, absent
// for general), text (required, one line), id (optional). Values are plain
// scalars or single- or double-quoted strings ("\"" and "\\" escapes in
// double quotes; a doubled single quote in single quotes). Items without an id are numbered in
// file order per layer and type: "g-0001", "t-<type>-0001", "m-<type>-0001".
// Tokens are count(text) (WordCount when count is nil); created and updated
// are 0. Errors name the file and line.
func ParseItems(r io.Reader, name string, count func(string) int) ([]table.ScaffoldItem, error) {
	count = Counter(count)
	var (
		items     []pendingItem
		cur       *pendingItem
		itemInd   = -1 // indentation of the "- " of list entries
		keyInd    = -1 // indentation of keys inside an entry
		sawHeader bool
		sawList   bool
	)
	errf := func(line int, format string, a ...any) error {
		return fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, a...))
	}
	setKey := func(p *pendingItem, line int, key, raw string) error {
		val, err := yamlScalar(raw)
		if err != nil {
			return errf(line, "%s: %v", key, err)
		}
		if p.set[key] {
			return errf(line, "key %q given twice in one item", key)
		}
		p.set[key] = true
		switch key {
		case "layer":
			p.it.Layer = val
		case "task_type":
			p.it.TaskType = val
		case "text":
			p.it.Text = val
		case "id":
			p.it.ID = val
		default:
			return errf(line, "unknown key %q (want layer, task_type, text or id)", key)
		}
		return nil
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	ln := 0
	for sc.Scan() {
		ln++
		raw := sc.Text()
		if strings.ContainsRune(raw, '\t') {
			return nil, errf(ln, "tab character (indent with spaces)")
		}
		if isComment(raw) {
			continue
		}
		line := strings.TrimRight(raw, " ")
		ind := len(line) - len(strings.TrimLeft(line, " "))
		body := strings.TrimSpace(line)
		if body == "---" && ln == 1 {
			continue
		}
		if strings.HasPrefix(body, "- ") || body == "-" {
			if itemInd == -1 {
				itemInd = ind
			} else if ind != itemInd {
				return nil, errf(ln, "list entry indented %d spaces, earlier entries %d", ind, itemInd)
			}
			if !sawHeader && ind != 0 {
				return nil, errf(ln, "list entry indented at the top level")
			}
			sawList = true
			items = append(items, pendingItem{line: ln, set: map[string]bool{}})
			cur = &items[len(items)-1]
			rest := strings.TrimSpace(strings.TrimPrefix(body, "-"))
			keyInd = -1
			if rest != "" {
				key, val, ok := splitKey(rest)
				if !ok {
					return nil, errf(ln, "want \"key: value\" after \"- \", got %q", rest)
				}
				keyInd = ind + strings.Index(body, rest)
				if err := setKey(cur, ln, key, val); err != nil {
					return nil, err
				}
			}
			continue
		}
		key, val, ok := splitKey(body)
		if !ok {
			return nil, errf(ln, "want \"key: value\" or a list entry \"- key: value\", got %q", body)
		}
		if ind == 0 && cur == nil {
			if key != "items" || val != "" {
				return nil, errf(ln, "unexpected top-level key %q (want \"items:\" followed by a list)", key)
			}
			if sawHeader || sawList {
				return nil, errf(ln, "\"items:\" given twice")
			}
			sawHeader = true
			continue
		}
		if cur == nil || ind <= itemInd {
			return nil, errf(ln, "key %q outside a list entry", key)
		}
		if keyInd == -1 {
			keyInd = ind
		} else if ind != keyInd {
			return nil, errf(ln, "key %q indented %d spaces, the entry's keys %d", key, ind, keyInd)
		}
		if err := setKey(cur, ln, key, val); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if sawHeader && !sawList {
		return nil, fmt.Errorf("%s: \"items:\" has no entries", name)
	}
	out := make([]table.ScaffoldItem, 0, len(items))
	ids := map[string]int{}
	next := map[string]int{}
	texts := map[string]int{}
	for _, p := range items {
		it := p.it
		switch {
		case it.Layer == "":
			return nil, errf(p.line, "item without a layer")
		case !ValidLayer(it.Layer):
			return nil, errf(p.line, "unknown layer %q (want general, task or mistake)", it.Layer)
		case it.Layer == LayerGeneral && it.TaskType != "":
			return nil, errf(p.line, "a general item takes no task_type (got %q)", it.TaskType)
		case it.Layer != LayerGeneral && it.TaskType == "":
			return nil, errf(p.line, "a %s item needs a task_type", it.Layer)
		case strings.TrimSpace(it.Text) == "":
			return nil, errf(p.line, "item without text")
		case HasControl(it.Text) || HasControl(it.TaskType) || HasControl(it.ID):
			return nil, errf(p.line, "control character in a value")
		}
		it.Text = strings.TrimSpace(it.Text)
		key := Scope(it) + "\x00" + Normalize(it.Text)
		if l, dup := texts[key]; dup {
			return nil, errf(p.line, "the same text as the item at line %d", l)
		}
		texts[key] = p.line
		if it.ID == "" {
			pre := idPrefix(it.Layer, it.TaskType)
			for {
				next[pre]++
				id := fmt.Sprintf("%s%04d", pre, next[pre])
				if _, taken := ids[id]; !taken && !explicitID(items, id) {
					it.ID = id
					break
				}
			}
		}
		if l, dup := ids[it.ID]; dup {
			return nil, errf(p.line, "id %q already used at line %d", it.ID, l)
		}
		ids[it.ID] = p.line
		it.Tokens = int32(count(it.Text))
		it.Support = []string{}
		out = append(out, it)
	}
	return out, nil
}

func explicitID(items []pendingItem, id string) bool {
	for _, p := range items {
		if p.it.ID == id {
			return true
		}
	}
	return false
}

// isComment reports whether a line is blank or only a comment.
func isComment(s string) bool {
	t := strings.TrimSpace(s)
	return t == "" || strings.HasPrefix(t, "#")
}

// splitKey splits "key: value" (value may be empty).
func splitKey(s string) (key, val string, ok bool) {
	i := strings.Index(s, ":")
	if i <= 0 {
		return "", "", false
	}
	key = strings.TrimSpace(s[:i])
	rest := s[i+1:]
	if rest != "" && rest[0] != ' ' {
		return "", "", false
	}
	for _, r := range key {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return "", "", false
		}
	}
	return key, strings.TrimSpace(rest), true
}

// yamlScalar decodes a plain or quoted scalar.
func yamlScalar(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	if s[0] != '"' && s[0] != '\'' {
		// a plain scalar ends at " #" (a trailing comment)
		if s[0] == '#' {
			return "", nil
		}
		if i := strings.Index(s, " #"); i >= 0 {
			s = strings.TrimSpace(s[:i])
		}
	}
	switch s[0] {
	case '"':
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			c := s[i]
			switch c {
			case '\\':
				if i+1 >= len(s) {
					return "", fmt.Errorf("unfinished escape in %s", s)
				}
				i++
				switch s[i] {
				case '"', '\\', '/':
					b.WriteByte(s[i])
				default:
					return "", fmt.Errorf("unsupported escape \\%c (only \\\" and \\\\)", s[i])
				}
			case '"':
				if !isComment(s[i+1:]) {
					return "", fmt.Errorf("text after the closing quote: %q", s[i+1:])
				}
				return b.String(), nil
			default:
				b.WriteByte(c)
			}
		}
		return "", fmt.Errorf("missing closing \" in %s", s)
	case '\'':
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			if s[i] == '\'' {
				if i+1 < len(s) && s[i+1] == '\'' {
					b.WriteByte('\'')
					i++
					continue
				}
				if !isComment(s[i+1:]) {
					return "", fmt.Errorf("text after the closing quote: %q", s[i+1:])
				}
				return b.String(), nil
			}
			b.WriteByte(s[i])
		}
		return "", fmt.Errorf("missing closing ' in %s", s)
	case '|', '>':
		return "", fmt.Errorf("block scalars (| or >) are not supported: write the text on one line")
	case '[', '{':
		return "", fmt.Errorf("flow collections are not supported: want a single value")
	}
	return s, nil
}

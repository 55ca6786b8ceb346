package scaffold

import (
	"bytes"
	"fmt"
	"github.com/pats-rl/pats/lib/output"
	"io"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/pats-rl/pats/lib/table"
)

type pendingItem struct {
	it   table.ScaffoldItem
	line int
	set  map[string]bool
}

// ParseItems reads a hand-written items file (the static expert library a
// run can be seeded with, `--from items.yaml`). name is used in errors. The
// file is YAML (read with go.yaml.in/yaml/v3), a list of items, optionally
// under a top-level "items:" key:
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
// for general), text (required, one line), id (optional). Values are
// scalars, plain or quoted; block scalars (| or >), lists and maps are
// refused. Items without an id are numbered in
// file order per layer and type: "g-0001", "t-<type>-0001", "m-<type>-0001".
// Tokens are count(text) (WordCount when count is nil); created and updated
// are 0. Errors name the file and line.
func ParseItems(r io.Reader, name string, count func(string) int) ([]table.ScaffoldItem, error) {
	count = Counter(count)
	errf := func(line int, format string, a ...any) error {
		return fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, a...))
	}
	src, err := output.ReadAll(r, name, output.MaxItemsBytes)
	if err != nil {
		return nil, err
	}
	doc, err := oneDocument(src)
	if err != nil {
		return nil, yamlError(name, err)
	}
	if len(doc.Content) == 0 {
		return []table.ScaffoldItem{}, nil // empty, or only comments
	}
	list := doc.Content[0]
	if list.Kind == yaml.MappingNode {
		for k := 0; k+1 < len(list.Content); k += 2 {
			key := list.Content[k]
			if key.Value != "items" {
				return nil, errf(key.Line, "unexpected top-level key %q (want \"items:\" followed by a list)", key.Value)
			}
			if k > 0 {
				return nil, errf(key.Line, "\"items:\" given twice")
			}
		}
		list = list.Content[1]
		if list.Kind == yaml.ScalarNode && list.Tag == "!!null" {
			return nil, fmt.Errorf("%s: \"items:\" has no entries", name)
		}
	}
	if list.Kind != yaml.SequenceNode {
		return nil, errf(list.Line, "want a list of items (\"- layer: ...\"), optionally under \"items:\"")
	}
	var items []pendingItem
	for _, entry := range list.Content {
		if entry.Kind != yaml.MappingNode {
			return nil, errf(entry.Line, "want \"key: value\" lines in a list entry")
		}
		p := pendingItem{line: entry.Line, set: map[string]bool{}}
		for k := 0; k+1 < len(entry.Content); k += 2 {
			key, val := entry.Content[k], entry.Content[k+1]
			line := key.Line
			if val.Kind != yaml.ScalarNode {
				return nil, errf(val.Line, "%s: want a single value, not a list or a map", key.Value)
			}
			if val.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
				return nil, errf(line, "%s: block scalars (| or >) are not supported: write the text on one line", key.Value)
			}
			if p.set[key.Value] {
				return nil, errf(line, "key %q given twice in one item", key.Value)
			}
			p.set[key.Value] = true
			switch key.Value {
			case "layer":
				p.it.Layer = val.Value
			case "task_type":
				p.it.TaskType = val.Value
			case "text":
				p.it.Text = val.Value
			case "id":
				p.it.ID = val.Value
			default:
				return nil, errf(line, "unknown key %q (want layer, task_type, text or id)", key.Value)
			}
		}
		items = append(items, p)
	}
	out := make([]table.ScaffoldItem, 0, len(items))
	ids := map[string]int{}
	next := map[string]int{}
	texts := map[string]int{}
	// The ids the file gives: a generated id skips them. One set, not a
	// scan of the whole list per generated id (which made a file of n
	// items take time n squared).
	explicit := map[string]bool{}
	for _, p := range items {
		if p.it.ID != "" {
			explicit[p.it.ID] = true
		}
	}
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
		case len(it.Text) > table.MaxItemTextBytes:
			return nil, errf(p.line, "text of %d bytes, more than the %d an item text may hold", len(it.Text), table.MaxItemTextBytes)
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
				if _, taken := ids[id]; !taken && !explicit[id] {
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

// oneDocument parses src as one YAML document (an empty one when src
// holds none). A second document (after a "---" line) is an error: read
// as yaml.Unmarshal reads, it would be dropped without a word.
func oneDocument(src []byte) (yaml.Node, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(src))
	if err := dec.Decode(&doc); err == io.EOF {
		return yaml.Node{}, nil
	} else if err != nil {
		return doc, err
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == io.EOF:
		return doc, nil
	case err != nil:
		return doc, err
	}
	line := next.Line
	if len(next.Content) > 0 {
		line = next.Content[0].Line
	}
	return doc, fmt.Errorf("yaml: line %d: a second YAML document (after ---); give one document per file", line)
}

// yamlLine finds the line number in an error of the YAML parser.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlError turns an error of the YAML parser into "NAME:LINE: message".
func yamlError(name string, err error) error {
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		return fmt.Errorf("%s:%s: %s", name, m[1], m[2])
	}
	return fmt.Errorf("%s: %s", name, strings.TrimPrefix(err.Error(), "yaml: "))
}

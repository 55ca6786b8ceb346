package scaffold

import (
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/table"
)

const heat = "pick_heat_then_place_in_recep"

const goodYAML = `# static expert library
items:
  - layer: general
    text: Read the task and plan before acting.   # trailing comment
  - layer: task
    task_type: pick_heat_then_place_in_recep
    text: "Heat the object with the microwave before placing it."
  - layer: task
    task_type: pick_heat_then_place_in_recep
    text: 'Don''t forget to take the object first.'
  - layer: mistake
    task_type: pick_heat_then_place_in_recep
    id: m-heat-x
    text: "Do not \"put\" the object away cold # not a comment"

  - text: Check the goal again before the last step.
    layer: general
`

func TestParseItems(t *testing.T) {
	items, err := ParseItems(strings.NewReader(goodYAML), "items.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ id, layer, typ, text string }{
		{"g-0001", LayerGeneral, "", "Read the task and plan before acting."},
		{"t-" + heat + "-0001", LayerTask, heat, "Heat the object with the microwave before placing it."},
		{"t-" + heat + "-0002", LayerTask, heat, "Don't forget to take the object first."},
		{"m-heat-x", LayerMistake, heat, `Do not "put" the object away cold # not a comment`},
		{"g-0002", LayerGeneral, "", "Check the goal again before the last step."},
	}
	if len(items) != len(want) {
		t.Fatalf("got %d items, want %d: %+v", len(items), len(want), items)
	}
	for i, w := range want {
		it := items[i]
		if it.ID != w.id || it.Layer != w.layer || it.TaskType != w.typ || it.Text != w.text {
			t.Errorf("item %d = %+v, want %+v", i, it, w)
		}
		if int(it.Tokens) != WordCount(w.text) {
			t.Errorf("item %d tokens %d, want %d", i, it.Tokens, WordCount(w.text))
		}
	}
	if err := Check(items, WordCount); err != nil {
		t.Fatal(err)
	}
	// A top-level list without "items:" works too.
	items2, err := ParseItems(strings.NewReader("- layer: general\n  text: a b c\n"), "x.yaml", nil)
	if err != nil || len(items2) != 1 || items2[0].Text != "a b c" {
		t.Fatalf("top-level list: %v %+v", err, items2)
	}
}

func TestParseItemsErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"unknown key", "items:\n  - layer: general\n    txt: a\n", "f.yaml:3: unknown key \"txt\""},
		{"bad layer", "items:\n  - layer: rules\n    text: a\n", "f.yaml:2: unknown layer \"rules\""},
		{"no layer", "items:\n  - text: a\n", "f.yaml:2: item without a layer"},
		{"no text", "items:\n  - layer: general\n", "f.yaml:2: item without text"},
		{"task without type", "- layer: task\n  text: a\n", "f.yaml:1: a task item needs a task_type"},
		{"general with type", "- layer: general\n  task_type: x\n  text: a\n", "f.yaml:1: a general item takes no task_type"},
		{"tab", "- layer: general\n\ttext: a\n", "f.yaml:2: found a tab character"},
		{"unclosed quote", "- layer: general\n  text: \"abc\n", "f.yaml:2: found unexpected end of stream"},
		{"block scalar", "- layer: general\n  text: |\n", "f.yaml:2: text: block scalars"},
		{"dup key", "- layer: general\n  layer: task\n  text: a\n", "f.yaml:2: key \"layer\" given twice"},
		{"second document", "- layer: general\n  text: a\n---\n- layer: general\n  text: b\n", "f.yaml:4: a second YAML document"},
		{"empty second document", "- layer: general\n  text: a\n---\n", "f.yaml:4: a second YAML document"},
		{"dup id", "- layer: general\n  id: g-1\n  text: a\n- layer: general\n  id: g-1\n  text: b\n", "f.yaml:4: id \"g-1\" already used at line 1"},
		{"dup text", "- layer: general\n  text: Look first.\n- layer: general\n  text: look  first\n", "f.yaml:3: the same text as the item at line 1"},
		{"bad indent", "- layer: general\n  text: a\n  - layer: general\n", "f.yaml:2: did not find expected key"},
		{"key indent", "- layer: general\n  text: a\n   id: x\n", "f.yaml:3: mapping values are not allowed"},
		{"top key", "scaffold:\n  - layer: general\n", "f.yaml:1: unexpected top-level key \"scaffold\""},
		{"no entries", "items:\n", "f.yaml: \"items:\" has no entries"},
		{"garbage", "- layer: general\n  this is not yaml\n", "f.yaml:2: could not find expected ':'"},
		{"after quote", "- layer: general\n  text: \"a\" b\n", "f.yaml:1: did not find expected key"},
		{"list value", "- layer: general\n  text: [a, b]\n", "f.yaml:2: text: want a single value"},
		{"not a list", "items: general\n", "f.yaml:1: want a list of items"},
		{"two headers", "items:\n  - layer: general\n    text: a\nitems:\n  - layer: task\n", "f.yaml:4: \"items:\" given twice"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseItems(strings.NewReader(c.src), "f.yaml", nil)
			if err == nil {
				t.Fatalf("no error, want %q", c.want)
			}
			if !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("error %q, want prefix %q", err, c.want)
			}
		})
	}
}

func sample() []table.ScaffoldItem {
	mk := func(id, layer, typ, text string, sup ...string) table.ScaffoldItem {
		return table.ScaffoldItem{ID: id, Layer: layer, TaskType: typ, Text: text, Support: sup, Tokens: int32(WordCount(text))}
	}
	return []table.ScaffoldItem{
		mk("g-0001", LayerGeneral, "", "Plan before acting."),
		mk("t-a-0001", LayerTask, "a", "Heat the object with the microwave.", "c1", "c2", "c3"),
		mk("t-a-0002", LayerTask, "a", "Take the object first.", "c1"),
		mk("m-a-0001", LayerMistake, "a", "Do not loop.", "c1", "c2"),
		mk("t-b-0001", LayerTask, "b", "Cool the object with the fridge."),
	}
}

func TestHash(t *testing.T) {
	a := sample()
	b := sample()
	b[0], b[4] = b[4], b[0]
	if Hash(a) != Hash(b) {
		t.Fatal("hash depends on item order")
	}
	c := sample()
	c[2].Updated = 3
	d := sample()
	d[1].Support = d[1].Support[:2]
	for _, x := range [][]table.ScaffoldItem{c, d, a[:4], nil} {
		if Hash(x) == Hash(a) {
			t.Fatalf("hash unchanged by a change: %+v", x)
		}
	}
	if !strings.HasPrefix(Hash(a), "sha256:") || len(Hash(a)) != 7+64 {
		t.Fatalf("hash form %q", Hash(a))
	}
}

func TestNewIDAndCheck(t *testing.T) {
	items := sample()
	id := NewID(LayerTask, "a", "Open the fridge.", items)
	if !strings.HasPrefix(id, "t-a-") || len(id) != len("t-a-")+8 {
		t.Fatalf("id %q", id)
	}
	if id2 := NewID(LayerTask, "a", "open the  fridge", items); id2 != id {
		t.Fatalf("id not derived from normalized text: %q vs %q", id, id2)
	}
	items = append(items, table.ScaffoldItem{ID: id, Layer: LayerTask, TaskType: "a", Text: "x", Tokens: 1})
	if id3 := NewID(LayerTask, "a", "Open the fridge.", items); id3 != id+"-2" {
		t.Fatalf("taken id not suffixed: %q", id3)
	}
	if err := Check(items, WordCount); err != nil {
		t.Fatal(err)
	}
	bad := []struct {
		mut  func(*table.ScaffoldItem)
		want string
	}{
		{func(it *table.ScaffoldItem) { it.ID = "" }, "empty id"},
		{func(it *table.ScaffoldItem) { it.Layer = "x" }, "unknown layer"},
		{func(it *table.ScaffoldItem) { it.TaskType = "" }, "needs a task type"},
		{func(it *table.ScaffoldItem) { it.Text = " " }, "empty text"},
		{func(it *table.ScaffoldItem) { it.Text = "a\nb" }, "control character"},
		{func(it *table.ScaffoldItem) { it.ID = "t-a-0002" }, "duplicate item id"},
		{func(it *table.ScaffoldItem) { it.Tokens = 99 }, "tokens 99"},
	}
	for _, b := range bad {
		c := Clone(sample())
		b.mut(&c[1])
		if err := Check(c, WordCount); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("Check = %v, want %q", err, b.want)
		}
	}
}

func TestRenderLayoutAndBudget(t *testing.T) {
	items := sample()
	full, kept, dropped := Render(items, "a", 0, nil)
	want := "General:\n- Plan before acting.\n\nTask rules:\n- Heat the object with the microwave.\n- Take the object first.\n\nMistakes to avoid:\n- Do not loop.\n"
	if full != want {
		t.Fatalf("render:\n%s\nwant:\n%s", full, want)
	}
	if len(kept) != 4 || len(dropped) != 0 {
		t.Fatalf("kept %v dropped %v", kept, dropped)
	}
	// Priority: t-a-0001 (3 cards), t-a-0002, m-a-0001, g-0001.
	prio := []string{"t-a-0001", "t-a-0002", "m-a-0001", "g-0001"}
	total := WordCount(full)
	prev := -1
	for budget := 1; budget <= total+2; budget++ {
		text, kept, dropped := Render(items, "a", budget, nil)
		if n := WordCount(text); n > budget {
			t.Fatalf("budget %d: rendered %d tokens", budget, n)
		}
		if len(kept)+len(dropped) != 4 {
			t.Fatalf("budget %d: kept %v dropped %v", budget, kept, dropped)
		}
		// dropped is a suffix of the priority order
		for i, id := range dropped {
			if prio[4-len(dropped)+i] != id {
				t.Fatalf("budget %d: dropped %v, not lowest priority first", budget, dropped)
			}
		}
		if len(kept) < prev {
			t.Fatalf("budget %d: fewer items than at a smaller budget", budget)
		}
		prev = len(kept)
	}
	if text, _, _ := Render(items, "a", total, nil); text != full {
		t.Fatal("exact budget should render everything")
	}
	if text, kept, _ := Render(items, "a", total-1, nil); strings.Contains(text, "Plan before") || len(kept) != 3 {
		t.Fatalf("budget total-1 should drop the general item only:\n%s", text)
	}
	// A type with no own items renders only the general layer.
	if text, _, _ := Render(items, "zzz", 0, nil); text != "General:\n- Plan before acting.\n" {
		t.Fatalf("other type: %q", text)
	}
	// A custom counter (characters) is honoured.
	chars := func(s string) int { return len(s) }
	text, _, _ := Render(items, "a", 60, chars)
	if len(text) > 60 || text == "" {
		t.Fatalf("char budget: %d chars", len(text))
	}
	if s := Show(items, nil, 0, nil); !strings.Contains(s, "== a (") || !strings.Contains(s, "== b (") {
		t.Fatalf("show:\n%s", s)
	}
}

func TestDiff(t *testing.T) {
	old := sample()
	nw := Clone(old)
	// t-a-0001 absorbs t-a-0002 (merge), m-a-0001 is edited, t-b-0001 removed,
	// a new general item added.
	nw[1].Text = "Take the object first, then heat it with the microwave."
	nw[1].Support = []string{"c1", "c2", "c3"}
	nw[3].Text = "Do not repeat the same action."
	add := table.ScaffoldItem{ID: "g-aaaa", Layer: LayerGeneral, Text: "New rule.", Tokens: 2}
	next := []table.ScaffoldItem{nw[0], nw[1], nw[3], add}
	d := DiffItems(old, next, nil)
	if len(d.Added) != 1 || d.Added[0].ID != "g-aaaa" {
		t.Fatalf("added %+v", d.Added)
	}
	if len(d.Changed) != 2 || d.Changed[0].New.ID != "m-a-0001" || d.Changed[1].New.ID != "t-a-0001" {
		t.Fatalf("changed %+v", d.Changed)
	}
	if len(d.Merged) != 1 || d.Merged[0].From.ID != "t-a-0002" || d.Merged[0].Into.ID != "t-a-0001" {
		t.Fatalf("merged %+v", d.Merged)
	}
	if len(d.Removed) != 1 || d.Removed[0].ID != "t-b-0001" {
		t.Fatalf("removed %+v", d.Removed)
	}
	s := d.String()
	for _, w := range []string{"+ g-aaaa", "~ t-a-0001", "was: Heat the object", "> t-a-0002 [task/a] merged into t-a-0001", "- t-b-0001", "1 added, 2 changed, 1 merged, 1 removed"} {
		if !strings.Contains(s, w) {
			t.Errorf("diff text lacks %q:\n%s", w, s)
		}
	}
	// An explicit merge map wins over containment.
	props := []table.Proposal{{ProposalID: "p1", Op: "merge", Targets: []string{"m-a-0001", "t-b-0001"}}}
	dec := []table.Decision{{ProposalID: "p1", Accepted: true}}
	d2 := DiffItems(old, next, MergesFrom(props, dec))
	if len(d2.Removed) != 0 || len(d2.Merged) != 2 {
		t.Fatalf("with merge map: %+v", d2)
	}
	if !DiffItems(old, Clone(old), nil).Empty() || DiffItems(old, old, nil).String() != "no change\n" {
		t.Fatal("identical snapshots should have an empty diff")
	}
}

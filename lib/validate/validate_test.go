package validate

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/table"
)

func item(id, layer, typ, text string, sup ...string) table.ScaffoldItem {
	if sup == nil {
		sup = []string{}
	}
	return table.ScaffoldItem{ID: id, Layer: layer, TaskType: typ, Text: text, Support: sup, Tokens: int32(scaffold.WordCount(text))}
}

func base() []table.ScaffoldItem {
	return []table.ScaffoldItem{
		item("g-1", "general", "", "Plan before acting."),
		item("t-a-1", "task", "a", "Heat the object with the microwave.", "c1", "c2"),
		item("t-a-2", "task", "a", "Take the object first.", "c1"),
		item("m-a-1", "mistake", "a", "Do not repeat the same action.", "c2"),
		item("t-b-1", "task", "b", "Cool the object with the fridge."),
	}
}

func cards() []table.Card {
	return []table.Card{
		{CardID: "c1", TaskType: "a"}, {CardID: "c2", TaskType: "a"}, {CardID: "c3", TaskType: "a"},
		{CardID: "c4", TaskType: "b"}, {CardID: "c5", TaskType: "b"},
	}
}

func prop(prim, op, typ, layer, text string, targets []string, sup ...string) table.Proposal {
	return table.Proposal{ProposalID: "p1", TaskType: typ, Primitive: prim, Op: op, Layer: layer, Text: text, Targets: targets, Support: sup}
}

func TestRules(t *testing.T) {
	E, R, C, F := scaffold.Expand, scaffold.Revise, scaffold.Compress, scaffold.ForcedPrune
	long := strings.Repeat("word ", 41)
	cases := []struct {
		name string
		p    table.Proposal
		opts func(*Options)
		want string
	}{
		// accepted, one per op and primitive
		{"add task", prop(E, table.OpAdd, "a", "task", "Open the microwave first.", nil, "c1", "c2"), nil, OK},
		{"add mistake", prop(E, table.OpAdd, "a", "mistake", "Do not drop the object.", nil, "c2", "c3"), nil, OK},
		{"add general any type", prop(E, table.OpAdd, "", "general", "Check the goal.", nil, "c1", "c4"), nil, OK},
		{"revise edit", prop(R, table.OpEdit, "a", "", "Heat the object in the microwave, then place it.", []string{"t-a-1"}), nil, OK},
		{"revise edit support only", prop(R, table.OpEdit, "a", "", "Heat the object with the microwave.", []string{"t-a-1"}, "c3"), nil, OK},
		{"revise merge", prop(R, table.OpMerge, "a", "task", "Take the object, then heat it with the microwave.", []string{"t-a-1", "t-a-2"}), nil, OK},
		{"compress delete", prop(C, table.OpDelete, "a", "", "", []string{"t-a-2"}), nil, OK},
		{"compress shorter edit", prop(C, table.OpEdit, "a", "", "Heat it first.", []string{"t-a-1"}), nil, OK},
		{"compress merge", prop(C, table.OpMerge, "a", "", "Take, then heat.", []string{"t-a-1", "t-a-2"}), nil, OK},
		{"prune delete", prop(F, table.OpDelete, "a", "", "", []string{"m-a-1"}), nil, OK},
		{"delete general", prop(F, table.OpDelete, "", "", "", []string{"g-1"}), nil, OK},
		// rejected, one per rule
		{"bad id", table.Proposal{Primitive: E, Op: table.OpAdd}, nil, BadID},
		{"primitive none", prop(scaffold.None, table.OpDelete, "a", "", "", []string{"t-a-2"}), nil, BadPrimitive},
		{"primitive unknown", prop("GROW", table.OpAdd, "a", "task", "x y", nil, "c1", "c2"), nil, BadPrimitive},
		{"op", prop(E, "insert", "a", "task", "x y", nil, "c1", "c2"), nil, BadOp},
		{"expand edits", prop(E, table.OpEdit, "a", "", "x y", []string{"t-a-1"}), nil, Direction},
		{"expand deletes", prop(E, table.OpDelete, "a", "", "", []string{"t-a-1"}), nil, Direction},
		{"revise adds", prop(R, table.OpAdd, "a", "task", "x y", nil, "c1", "c2"), nil, Direction},
		{"revise deletes", prop(R, table.OpDelete, "a", "", "", []string{"t-a-1"}), nil, Direction},
		{"compress adds", prop(C, table.OpAdd, "a", "task", "x y", nil, "c1", "c2"), nil, Direction},
		{"prune edits", prop(F, table.OpEdit, "a", "", "x y", []string{"t-a-1"}), nil, Direction},
		{"prune merges", prop(F, table.OpMerge, "a", "", "x y", []string{"t-a-1", "t-a-2"}), nil, Direction},
		{"unknown layer", prop(E, table.OpAdd, "a", "rules", "x y", nil, "c1", "c2"), nil, BadLayer},
		{"general with type", prop(E, table.OpAdd, "a", "general", "x y", nil, "c1", "c2"), nil, BadLayer},
		{"task without type", prop(E, table.OpAdd, "", "task", "x y", nil, "c1", "c2"), nil, BadLayer},
		{"edit to general", prop(R, table.OpEdit, "a", "general", "x y", []string{"t-a-1"}), nil, BadLayer},
		{"add with target", prop(E, table.OpAdd, "a", "task", "x y", []string{"t-a-1"}, "c1", "c2"), nil, BadTargets},
		{"edit two", prop(R, table.OpEdit, "a", "", "x y", []string{"t-a-1", "t-a-2"}), nil, BadTargets},
		{"delete none", prop(C, table.OpDelete, "a", "", "", nil), nil, BadTargets},
		{"merge one", prop(R, table.OpMerge, "a", "", "x y", []string{"t-a-1"}), nil, BadTargets},
		{"merge repeated", prop(R, table.OpMerge, "a", "", "x y", []string{"t-a-1", "t-a-1"}), nil, BadTargets},
		{"no target", prop(C, table.OpDelete, "a", "", "", []string{"t-a-9"}), nil, NoTarget},
		{"other type's target", prop(C, table.OpDelete, "a", "", "", []string{"t-b-1"}), nil, TargetScope},
		{"general target from a type", prop(C, table.OpDelete, "a", "", "", []string{"g-1"}), nil, TargetScope},
		{"empty text", prop(E, table.OpAdd, "a", "task", "  ", nil, "c1", "c2"), nil, EmptyText},
		{"control char", prop(E, table.OpAdd, "a", "task", "a\nb", nil, "c1", "c2"), nil, ControlChar},
		{"too long", prop(E, table.OpAdd, "a", "task", long, nil, "c1", "c2"), nil, TooLong},
		{"too long custom", prop(E, table.OpAdd, "a", "task", "one two three", nil, "c1", "c2"), func(o *Options) { o.MaxItemTokens = 2 }, TooLong},
		{"duplicate", prop(E, table.OpAdd, "a", "mistake", "take the  object first", nil, "c1", "c2"), nil, Duplicate},
		{"duplicate of a general item", prop(E, table.OpAdd, "a", "task", "Plan before acting", nil, "c1", "c2"), nil, Duplicate},
		{"duplicate via edit", prop(R, table.OpEdit, "a", "", "Take the object first.", []string{"t-a-1"}), nil, Duplicate},
		{"unknown card", prop(E, table.OpAdd, "a", "task", "x y", nil, "c1", "c9"), nil, SupportUnknown},
		{"other type's card", prop(E, table.OpAdd, "a", "task", "x y", nil, "c1", "c4"), nil, SupportType},
		{"one card", prop(E, table.OpAdd, "a", "task", "x y", nil, "c1"), nil, SupportCount},
		{"one card twice", prop(E, table.OpAdd, "a", "task", "x y", nil, "c1", "c1"), nil, SupportCount},
		{"min support 3", prop(E, table.OpAdd, "a", "task", "x y", nil, "c1", "c2"), func(o *Options) { o.MinSupport = 3 }, SupportCount},
		{"quota 0", prop(E, table.OpAdd, "a", "task", "x y", nil, "c1", "c2"), func(o *Options) { o.ExpandQuota = 0 }, Quota},
		{"compress longer edit", prop(C, table.OpEdit, "a", "", "Heat the object with the microwave for a while.", []string{"t-a-1"}), nil, GrowsTokens},
		{"compress longer merge", prop(C, table.OpMerge, "a", "", strings.Repeat("x ", 20), []string{"t-a-1", "t-a-2"}), nil, GrowsTokens},
		{"item cap", prop(E, table.OpAdd, "a", "task", "x y", nil, "c1", "c2"), func(o *Options) { o.MaxItems = 3 }, CapItems},
		{"token cap", prop(E, table.OpAdd, "a", "task", "x y", nil, "c1", "c2"), func(o *Options) { o.MaxTokens = 17 }, CapTokens},
		{"general cap", prop(E, table.OpAdd, "", "general", "x y", nil, "c1", "c2"), func(o *Options) { o.MaxGeneralItems = 1 }, CapItems},
		{"revise edit grows past token cap", prop(R, table.OpEdit, "a", "", "Heat the object with the microwave, carefully.", []string{"t-a-1"}), func(o *Options) { o.MaxTokens = 15 }, CapTokens},
		{"no change", prop(R, table.OpEdit, "a", "", "Heat the object with the microwave.", []string{"t-a-1"}, "c2", "c1"), nil, NoChange},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := DefaultOptions()
			o.Iteration = 4
			if c.opts != nil {
				c.opts(&o)
			}
			snap := base()
			next, dec := Apply(snap, []table.Proposal{c.p}, cards(), o)
			if len(dec) != 1 {
				t.Fatalf("%d decisions", len(dec))
			}
			d := dec[0]
			if d.Reason != c.want || d.Accepted != (c.want == OK) {
				t.Fatalf("decision %s (%s), want %s", d.Reason, d.Message, c.want)
			}
			if !reflect.DeepEqual(snap, base()) {
				t.Fatal("input snapshot modified")
			}
			if err := scaffold.Check(next, scaffold.WordCount); err != nil {
				t.Fatal(err)
			}
			if !d.Accepted {
				want := base()
				scaffold.Sort(want)
				if !reflect.DeepEqual(next, want) {
					t.Fatal("a rejected proposal changed the snapshot")
				}
				if d.Message == "" {
					t.Fatal("no message")
				}
				return
			}
			if scaffold.Hash(next) == scaffold.Hash(snap) {
				t.Fatal("accepted proposal did not change the snapshot")
			}
		})
	}
}

func TestApplyEffects(t *testing.T) {
	o := DefaultOptions()
	o.Iteration = 7
	props := []table.Proposal{
		{ProposalID: "p3", TaskType: "a", Primitive: scaffold.Revise, Op: table.OpMerge, Targets: []string{"t-a-1", "t-a-2"}, Text: "Take the object, then heat it.", Support: []string{"c3"}},
		{ProposalID: "p1", TaskType: "a", Primitive: scaffold.Expand, Op: table.OpAdd, Layer: "task", Text: "Open the microwave.", Support: []string{"c2", "c1"}},
		{ProposalID: "p2", TaskType: "a", Primitive: scaffold.Revise, Op: table.OpEdit, Targets: []string{"t-a-2"}, Text: "Take the right object first."},
		// applied after p3: its target is gone by then
		{ProposalID: "p4", TaskType: "a", Primitive: scaffold.Compress, Op: table.OpDelete, Targets: []string{"t-a-2"}},
	}
	next, dec := Apply(base(), props, cards(), o)
	ids := []string{}
	for _, d := range dec {
		ids = append(ids, d.ProposalID+":"+d.Reason)
	}
	if !reflect.DeepEqual(ids, []string{"p1:ok", "p2:ok", "p3:ok", "p4:no_target"}) {
		t.Fatalf("decisions %v", ids)
	}
	by := map[string]table.ScaffoldItem{}
	for _, it := range next {
		by[it.ID] = it
	}
	added := by[dec[0].ItemID]
	if added.Created != 7 || added.Updated != 7 || !reflect.DeepEqual(added.Support, []string{"c1", "c2"}) || added.Tokens != 3 || !strings.HasPrefix(added.ID, "t-a-") {
		t.Fatalf("added %+v", added)
	}
	m := by["t-a-1"]
	if _, still := by["t-a-2"]; still || m.Text != "Take the object, then heat it." || m.Updated != 7 ||
		!reflect.DeepEqual(m.Support, []string{"c1", "c2", "c3"}) {
		t.Fatalf("merge result %+v", m)
	}
	if len(next) != 5 {
		t.Fatalf("%d items", len(next))
	}
	// the same inputs give the same snapshot, whatever the proposals' order
	rev := []table.Proposal{props[3], props[2], props[1], props[0]}
	next2, _ := Apply(base(), rev, cards(), o)
	if scaffold.Hash(next) != scaffold.Hash(next2) {
		t.Fatal("order of proposals in the input matters")
	}
	// quota counts accepted adds of one scope
	o.ExpandQuota = 1
	q := []table.Proposal{
		{ProposalID: "p1", TaskType: "a", Primitive: scaffold.Expand, Op: table.OpAdd, Layer: "task", Text: "One rule.", Support: []string{"c1", "c2"}},
		{ProposalID: "p2", TaskType: "a", Primitive: scaffold.Expand, Op: table.OpAdd, Layer: "task", Text: "Another rule.", Support: []string{"c1", "c2"}},
		{ProposalID: "p3", TaskType: "b", Primitive: scaffold.Expand, Op: table.OpAdd, Layer: "task", Text: "Another rule.", Support: []string{"c4", "c5"}},
		{ProposalID: "p3", TaskType: "b", Primitive: scaffold.Expand, Op: table.OpAdd, Layer: "task", Text: "Third.", Support: []string{"c4", "c5"}},
	}
	_, dec = Apply(base(), q, cards(), o)
	got := []string{}
	for _, d := range dec {
		got = append(got, d.Reason)
	}
	if !reflect.DeepEqual(got, []string{OK, Quota, OK, BadID}) {
		t.Fatalf("quota decisions %v", got)
	}
	// over a cap already: shrinking is still allowed
	o = DefaultOptions()
	o.MaxItems = 1
	_, dec = Apply(base(), []table.Proposal{{ProposalID: "p", TaskType: "a", Primitive: scaffold.Compress, Op: table.OpDelete, Targets: []string{"t-a-2"}}}, cards(), o)
	if !dec[0].Accepted {
		t.Fatalf("shrinking over the cap rejected: %+v", dec[0])
	}
}

// The readers refuse an op column value that is not one of table.Ops.
func TestTableOpsInStep(t *testing.T) {
	if d := cmp.Diff([]string{table.OpAdd, table.OpEdit, table.OpMerge, table.OpDelete}, table.Ops); d != "" {
		t.Errorf("table.Ops differs from the validator's ops (-want +got):\n%s", d)
	}
}

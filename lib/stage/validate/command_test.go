package validate

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/validate"
)

const seedYAML = `items:
  - layer: general
    text: Plan before acting.
  - layer: task
    task_type: a
    text: Heat the object with the microwave.
  - layer: mistake
    task_type: a
    text: Do not repeat the same action.
`

// stepFiles writes snapshot 0 (seeded), the cards and proposals of
// iteration 0 into dir and returns their paths.
func stepFiles(t *testing.T, dir string, props []table.Proposal, pmeta table.Meta) (snap, prop, card string) {
	t.Helper()
	yaml := filepath.Join(dir, "items.yaml")
	if err := os.WriteFile(yaml, []byte(seedYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	snap = filepath.Join(dir, "snap", "0.parquet")
	if err := RunInit(context.Background(), InitOptions{From: yaml, Output: snap}, stage.Streams{}); err != nil {
		t.Fatal(err)
	}
	card = filepath.Join(dir, "cards.parquet")
	cs := cards()
	if err := table.WriteFile(card, cs, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	prop = filepath.Join(dir, "proposals.parquet")
	if err := table.WriteFile(prop, props, pmeta); err != nil {
		t.Fatal(err)
	}
	return snap, prop, card
}

func threeProposals() []table.Proposal {
	add := prop(scaffold.Expand, table.OpAdd, "a", "task", "Take the object before going to the destination.", nil, "c1", "c3")
	add.ProposalID = "p-0-a-01"
	weak := prop(scaffold.Expand, table.OpAdd, "a", "mistake", "Do not open the fridge twice.", nil, "c1")
	weak.ProposalID = "p-0-a-02"
	gen := prop(scaffold.Expand, table.OpAdd, "", "general", "Check the goal before the last step.", nil, "c1", "c4")
	gen.ProposalID = "p-0-general-01"
	return []table.Proposal{weak, add, gen}
}

func TestInitAndExecute(t *testing.T) {
	dir := t.TempDir()
	snap0, props, cardsPath := stepFiles(t, dir, threeProposals(), table.Meta{})
	s0, err := scaffold.ReadSnapshot(snap0)
	if err != nil {
		t.Fatal(err)
	}
	if s0.Version != 0 || s0.Parent != "" || len(s0.Items) != 3 || s0.Tokenizer != "words" {
		t.Fatalf("snapshot 0: version %d parent %q tokenizer %q, %d items", s0.Version, s0.Parent, s0.Tokenizer, len(s0.Items))
	}
	if len(s0.Meta.Inputs) != 1 {
		t.Errorf("snapshot 0 inputs %v, want the items file's hash", s0.Meta.Inputs)
	}
	snap1 := filepath.Join(dir, "snap", "1.parquet")
	dec := filepath.Join(dir, "decisions.parquet")
	var progress bytes.Buffer
	f := Options{Scaffold: snap0, Proposals: props, Cards: cardsPath, Output: snap1, Decisions: dec,
		Limits: scaffold.DefaultLimits(), Progress: &progress}
	if err := Run(context.Background(), f, stage.Streams{}); err != nil {
		t.Fatal(err)
	}
	s1, err := scaffold.ReadSnapshot(snap1)
	if err != nil {
		t.Fatal(err)
	}
	if s1.Version != 1 || s1.Parent != scaffold.Hash(s0.Items) || s1.Parent != s0.Meta.Extra[scaffold.MetaHash] {
		t.Errorf("snapshot 1: version %d parent %q, want 1 and %q", s1.Version, s1.Parent, scaffold.Hash(s0.Items))
	}
	if len(s1.Items) != 5 {
		t.Errorf("snapshot 1 has %d items, want 3 + 2 accepted additions", len(s1.Items))
	}
	for _, p := range []string{snap0, props, cardsPath} {
		if s1.Meta.Inputs[p] == "" {
			t.Errorf("snapshot 1 does not record the hash of input %s", p)
		}
	}
	ds, dm, err := table.ReadFiles[table.Decision](dec)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, d := range ds {
		got[d.ProposalID] = d.Reason
	}
	want := map[string]string{"p-0-a-01": validate.OK, "p-0-a-02": validate.SupportCount, "p-0-general-01": validate.OK}
	for id, r := range want {
		if got[id] != r {
			t.Errorf("decision %s: %q, want %q", id, got[id], r)
		}
	}
	if dm[0].Extra[validate.MetaAccepted] != "2" || dm[0].Extra[validate.MetaRejected] != "1" || dm[0].Kind != "decision" {
		t.Errorf("decision metadata %+v", dm[0].Extra)
	}
	if !strings.Contains(progress.String(), "2 accepted, 1 rejected") {
		t.Errorf("summary line %q", progress.String())
	}
	// same inputs, same bytes (snapshot and decisions)
	again := filepath.Join(dir, "again")
	f2 := f
	f2.Output, f2.Decisions, f2.Progress = filepath.Join(again, "1.parquet"), filepath.Join(again, "d.parquet"), nil
	if err := Run(context.Background(), f2, stage.Streams{}); err != nil {
		t.Fatal(err)
	}
	for _, pair := range [][2]string{{snap1, f2.Output}, {dec, f2.Decisions}} {
		a, _ := os.ReadFile(pair[0])
		b, _ := os.ReadFile(pair[1])
		if !bytes.Equal(a, b) {
			t.Errorf("%s and %s differ", pair[0], pair[1])
		}
	}
	// diff: the two additions
	var out bytes.Buffer
	if err := RunDiff(context.Background(), DiffOptions{Old: snap0, New: snap1, Proposals: props, Decisions: dec}, stage.Streams{Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "snapshot 0 (3 items) -> 1 (5 items, its parent)") || !strings.Contains(out.String(), "2 added, 0 changed, 0 merged, 0 removed") {
		t.Errorf("diff:\n%s", out.String())
	}
	// show: the rendered scaffold of type a has the new rule
	out.Reset()
	if err := RunShow(context.Background(), ShowOptions{Snapshot: snap1, Types: []string{"a"}}, stage.Streams{Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "- Take the object before going to the destination.") || !strings.Contains(out.String(), "Mistakes to avoid:") {
		t.Errorf("show:\n%s", out.String())
	}
}

func TestExecuteNoProposalAdvancesVersion(t *testing.T) {
	dir := t.TempDir()
	snap0, props, cardsPath := stepFiles(t, dir, []table.Proposal{}, table.Meta{})
	snap1 := filepath.Join(dir, "1.parquet")
	f := Options{Scaffold: snap0, Proposals: props, Cards: cardsPath, Output: snap1, Decisions: filepath.Join(dir, "d.parquet"), Limits: scaffold.DefaultLimits()}
	if err := Run(context.Background(), f, stage.Streams{}); err != nil {
		t.Fatal(err)
	}
	s0, _ := scaffold.ReadSnapshot(snap0)
	s1, err := scaffold.ReadSnapshot(snap1)
	if err != nil {
		t.Fatal(err)
	}
	if s1.Version != 1 || scaffold.Hash(s1.Items) != scaffold.Hash(s0.Items) || s1.Parent != scaffold.Hash(s0.Items) {
		t.Errorf("version %d, same items %v", s1.Version, scaffold.Hash(s1.Items) == scaffold.Hash(s0.Items))
	}
	var out bytes.Buffer
	if err := RunDiff(context.Background(), DiffOptions{Old: snap0, New: snap1}, stage.Streams{Stdout: &out}); err != nil || !strings.Contains(out.String(), "no change") {
		t.Errorf("diff %q, %v", out.String(), err)
	}
}

func TestExecuteBadInputs(t *testing.T) {
	dir := t.TempDir()
	snap0, props, cardsPath := stepFiles(t, dir, threeProposals(), table.Meta{})
	write := func(name string, fn func(string) error) string {
		p := filepath.Join(dir, name)
		if err := fn(p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	noVersion := write("noversion.parquet", func(p string) error {
		return table.WriteFile(p, []table.ScaffoldItem{}, table.Meta{})
	})
	otherIter := write("iter.parquet", func(p string) error {
		ps := threeProposals()
		ps[0].Iteration = 4
		return table.WriteFile(p, ps, table.Meta{})
	})
	otherSnap := write("othersnap.parquet", func(p string) error {
		return table.WriteFile(p, threeProposals(), table.Meta{Extra: map[string]string{scaffold.MetaScaffold: "sha256:0"}})
	})
	noCards := write("nocards.parquet", func(p string) error { return table.WriteFile(p, []table.Card{}, table.Meta{}) })
	twoIters := write("twoiters.parquet", func(p string) error {
		cs := cards()
		cs[2].Iteration = 1
		return table.WriteFile(p, cs, table.Meta{})
	})
	out := filepath.Join(dir, "out", "1.parquet")
	dec := filepath.Join(dir, "out", "d.parquet")
	ok := Options{Scaffold: snap0, Proposals: props, Cards: cardsPath, Output: out, Decisions: dec, Limits: scaffold.DefaultLimits()}
	with := func(fn func(*Options)) Options { f := ok; fn(&f); return f }
	badCaps := scaffold.DefaultLimits()
	badCaps.MaxItems = 0
	cases := map[string]struct {
		f    Options
		want string
	}{
		"no version":       {with(func(f *Options) { f.Scaffold = noVersion }), "noversion.parquet: snapshot metadata has no version"},
		"missing snapshot": {with(func(f *Options) { f.Scaffold = filepath.Join(dir, "none.parquet") }), "none.parquet: cannot read"},
		"proposal kind":    {with(func(f *Options) { f.Proposals = cardsPath }), "holds card rows, want proposal rows"},
		"cards kind":       {with(func(f *Options) { f.Cards = props }), "holds proposal rows, want card rows"},
		"other iteration":  {with(func(f *Options) { f.Proposals = otherIter }), "iter.parquet: proposal p-0-a-02 is of iteration 4"},
		"other snapshot":   {with(func(f *Options) { f.Proposals = otherSnap }), "othersnap.parquet: the proposals were made for snapshot sha256:0"},
		"no cards":         {with(func(f *Options) { f.Cards = noCards }), "nocards.parquet: no cards"},
		"two iterations":   {with(func(f *Options) { f.Cards = twoIters }), "twoiters.parquet: cards of iterations 0 and 1"},
		"overwrite input":  {with(func(f *Options) { f.Output = snap0 }), "would overwrite the input snapshot"},
		"no decisions":     {with(func(f *Options) { f.Decisions = "" }), "--decisions is required"},
		"stdout":           {with(func(f *Options) { f.Output = "-" }), "not stdout"},
		"caps":             {with(func(f *Options) { f.Limits = badCaps }), "caps must be positive"},
	}
	for name, c := range cases {
		err := Run(context.Background(), c.f, stage.Streams{})
		if command.Code(err) != command.ExitUsage || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v (exit %d), want exit 2 with %q", name, err, command.Code(err), c.want)
		}
		for _, p := range []string{out, dec} {
			if _, err := os.Stat(p); err == nil {
				t.Errorf("%s: %s written", name, p)
			}
		}
	}
	// init and show errors
	badYAML := write("bad.yaml", func(p string) error { return os.WriteFile(p, []byte("items:\n  - layer: rules\n    text: x\n"), 0o644) })
	if err := RunInit(context.Background(), InitOptions{From: badYAML, Output: out}, stage.Streams{}); command.Code(err) != command.ExitUsage || !strings.Contains(err.Error(), "bad.yaml: line 2: unknown layer") {
		t.Errorf("bad items file: %v", err)
	}
	if err := RunInit(context.Background(), InitOptions{From: filepath.Join(dir, "none.yaml"), Output: out}, stage.Streams{}); command.Code(err) != command.ExitUsage || !strings.Contains(err.Error(), "none.yaml: cannot read") {
		t.Errorf("missing items file: %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("init wrote a snapshot from a bad items file")
	}
	if err := RunShow(context.Background(), ShowOptions{Snapshot: noVersion}, stage.Streams{Stdout: &bytes.Buffer{}}); command.Code(err) != command.ExitUsage {
		t.Errorf("show of a snapshot without version: %v", err)
	}
	if err := RunDiff(context.Background(), DiffOptions{Old: snap0, New: snap0, Proposals: props}, stage.Streams{Stdout: &bytes.Buffer{}}); command.Code(err) != command.ExitUsage {
		t.Errorf("diff with proposals but no decisions: %v", err)
	}
}

// TestExecuteHistory: an addition citing a card of an earlier iteration
// is accepted when that iteration's cards are given as --history, and
// rejected as unknown support without them; history of iteration k is
// refused.
func TestExecuteHistory(t *testing.T) {
	dir := t.TempDir()
	add := prop(scaffold.Expand, table.OpAdd, "a", "task", "Look in the drawer first.", nil, "c1", "h-a")
	add.ProposalID = "p-0-a-01"
	add.Iteration = 1
	snap0, props, _ := stepFiles(t, dir, []table.Proposal{add}, table.Meta{})
	write := func(name string, k int32, ids ...string) string {
		var cs []table.Card
		for _, id := range ids {
			cs = append(cs, table.Card{CardID: id, TaskType: "a", Iteration: k})
		}
		p := filepath.Join(dir, name)
		if err := table.WriteFile(p, cs, table.Meta{}); err != nil {
			t.Fatal(err)
		}
		return p
	}
	now := write("cards1.parquet", 1, "c1", "c2")
	before := write("cards0.parquet", 0, "h-a")
	for _, c := range []struct {
		history []string
		want    string
	}{{[]string{before}, validate.OK}, {nil, validate.SupportUnknown}} {
		out := filepath.Join(dir, fmt.Sprint(len(c.history)))
		f := Options{Scaffold: snap0, Proposals: props, Cards: now, History: c.history, Output: filepath.Join(out, "snap1.parquet"),
			Decisions: filepath.Join(out, "d.parquet"), Limits: scaffold.DefaultLimits()}
		if err := Run(context.Background(), f, stage.Streams{}); err != nil {
			t.Fatal(err)
		}
		dec, _, err := table.ReadFiles[table.Decision](f.Decisions)
		if err != nil {
			t.Fatal(err)
		}
		if len(dec) != 1 || dec[0].Reason != c.want {
			t.Errorf("history %v: decisions %+v, want %s", c.history, dec, c.want)
		}
	}
	f := Options{Scaffold: snap0, Proposals: props, Cards: now, History: []string{write("late.parquet", 1, "h-b")}, Output: filepath.Join(dir, "x", "s.parquet"),
		Decisions: filepath.Join(dir, "x", "d.parquet"), Limits: scaffold.DefaultLimits()}
	if err := Run(context.Background(), f, stage.Streams{}); command.Code(err) != command.ExitUsage || !strings.Contains(err.Error(), "late.parquet: holds cards of iteration 1") {
		t.Errorf("history of iteration k: %v", err)
	}
}

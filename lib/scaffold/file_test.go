package scaffold

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/table"
)

func TestSnapshotFileRoundTrip(t *testing.T) {
	dir := t.TempDir()
	items, err := ParseItems(strings.NewReader(goodYAML), "items.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	parent := Hash(items[:2])
	p := filepath.Join(dir, "snap", "3.parquet")
	if err := WriteSnapshot(p, Snapshot{Items: items, Version: 3, Parent: parent, Tokenizer: "words"}, table.Meta{Command: "test"}); err != nil {
		t.Fatal(err)
	}
	s, err := ReadSnapshot(p)
	if err != nil {
		t.Fatal(err)
	}
	if s.Version != 3 || s.Parent != parent || s.Tokenizer != "words" || len(s.Items) != len(items) {
		t.Fatalf("read back version %d parent %q tokenizer %q, %d items", s.Version, s.Parent, s.Tokenizer, len(s.Items))
	}
	if s.Meta.Extra[MetaHash] != Hash(items) || Hash(s.Items) != Hash(items) {
		t.Errorf("hash %s, items hash %s, want %s", s.Meta.Extra[MetaHash], Hash(s.Items), Hash(items))
	}
	if s.Meta.Kind != "scaffold_item" || s.Meta.Command != "test" {
		t.Errorf("meta %+v", s.Meta)
	}
	// the same snapshot writes the same bytes
	q := filepath.Join(dir, "again.parquet")
	if err := WriteSnapshot(q, Snapshot{Items: items, Version: 3, Parent: parent, Tokenizer: "words"}, table.Meta{Command: "test"}); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(p)
	b, _ := os.ReadFile(q)
	if string(a) != string(b) {
		t.Error("the same snapshot wrote different bytes")
	}
	// an empty snapshot round-trips too
	e := filepath.Join(dir, "0.parquet")
	if err := WriteSnapshot(e, Snapshot{Version: 0}, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	if s, err := ReadSnapshot(e); err != nil || len(s.Items) != 0 || s.Version != 0 || s.Parent != "" {
		t.Fatalf("empty snapshot: %+v, %v", s, err)
	}
}

func TestReadSnapshotErrors(t *testing.T) {
	dir := t.TempDir()
	items := []table.ScaffoldItem{{ID: "g-0001", Layer: LayerGeneral, Text: "Plan first.", Support: []string{}, Tokens: 2}}
	write := func(name string, rows []table.ScaffoldItem, extra map[string]string) string {
		p := filepath.Join(dir, name)
		if err := table.WriteFile(p, rows, table.Meta{Extra: extra}); err != nil {
			t.Fatal(err)
		}
		return p
	}
	other := filepath.Join(dir, "cards.parquet")
	if err := table.WriteFile(other, []table.Card{{CardID: "c"}}, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		path, want string
	}{
		"no version":   {write("a.parquet", items, nil), "no version"},
		"bad version":  {write("b.parquet", items, map[string]string{MetaVersion: "-1"}), "bad version"},
		"text version": {write("c.parquet", items, map[string]string{MetaVersion: "two"}), "bad version"},
		"no parent":    {write("d.parquet", items, map[string]string{MetaVersion: "2"}), "no parent"},
		"no hash":      {write("f.parquet", items, map[string]string{MetaVersion: "0"}), "no hash"},
		"wrong hash": {write("g.parquet", items, map[string]string{MetaVersion: "0", MetaHash: Hash(nil)}),
			"is not the hash of its items"},
		"bad item": {write("e.parquet", []table.ScaffoldItem{{ID: "g-1", Layer: "rules", Text: "x"}},
			map[string]string{MetaVersion: "0"}), "unknown layer"},
		"other kind": {other, "want scaffold_item rows"},
		"missing":    {filepath.Join(dir, "none.parquet"), "cannot read"},
		"folder":     {dir, "not a folder"},
	}
	for name, c := range cases {
		_, err := ReadSnapshot(c.path)
		if err == nil || !table.IsInputError(err) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.path) {
			t.Errorf("%s: got %v, want an input error naming %s with %q", name, err, c.path, c.want)
		}
	}
}

func TestRemoveStaleTemps(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "4.parquet")
	stale := filepath.Join(dir, ".4.parquet.tmp-999999999-1")
	other := filepath.Join(dir, ".5.parquet.tmp-999999999-1")
	// A writer of the same target that still runs (process 1 always
	// does) keeps its temporary: two writers at once must not break
	// each other.
	live := filepath.Join(dir, ".4.parquet.tmp-1-2")
	for _, p := range []string{stale, other, live} {
		if err := os.WriteFile(p, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteSnapshot(target, Snapshot{Version: 4, Parent: "sha256:x"}, table.Meta{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale temporary file of the target left: %v", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another target's temporary file was removed: %v", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a running writer's temporary file was removed: %v", err)
	}
	if err := WriteSnapshot("-", Snapshot{}, table.Meta{}); err == nil {
		t.Error("a snapshot written to stdout")
	}
}

package command

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/table"
)

// TestStampedOutputs: every file a command writes carries the toolkit's
// version and commit, the time and the host in its metadata; with
// SOURCE_DATE_EPOCH and PATS_HOST set, the time and host are those, so two
// runs write the same bytes.
func TestStampedOutputs(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1764547200")
	t.Setenv("PATS_HOST", "node-7")
	defer table.ClearStamp()
	dir := t.TempDir()
	write := func(name string) []byte {
		path := filepath.Join(dir, name)
		app := &cli.App{Name: "w", Action: func(*cli.Context) error {
			return table.WriteFile(path, []table.EvalMetrics{{Policy: "p", Episodes: 1}}, table.Meta{Command: "w"})
		}}
		var e bytes.Buffer
		if code := Run(app, []string{"w"}, &e); code != 0 {
			t.Fatalf("exit %d: %s", code, e.String())
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b := write("a.parquet"), write("b.parquet")
	if !bytes.Equal(a, b) {
		t.Error("two runs with SOURCE_DATE_EPOCH and PATS_HOST set wrote different bytes")
	}
	_, metas, err := table.ReadFiles[table.EvalMetrics](filepath.Join(dir, "a.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	v, c := table.Toolkit()
	want := table.Stamp{Version: v, Commit: c, Time: "2025-12-01T00:00:00Z", Host: "node-7"}
	if diff := cmp.Diff(want, metas[0].Stamp); diff != "" {
		t.Errorf("stamp (-want +got):\n%s", diff)
	}
	if want.Version == "" {
		t.Error("no toolkit version")
	}
}

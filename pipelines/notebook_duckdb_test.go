//go:build duckdb

package pipelines

// TestDuckDBNotebookDoc runs every SQL block of docs/notebook.md, in order, in
// one DuckDB session over the files of a small real run, and checks the
// NULLs the page promises. Run with
//
//	npm ci --prefix lib/table/interop/duckdb
//	go test -tags duckdb -run DuckDB ./pipelines/

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/stage/cards"
	"github.com/pats-rl/pats/lib/stage/evaluate"
	"github.com/pats-rl/pats/lib/stage/play"
	"github.com/pats-rl/pats/lib/stage/report"
	"github.com/pats-rl/pats/lib/table/interop/duckdb"
)

// sqlBlocks returns the ```sql blocks of a Markdown page.
func sqlBlocks(page string) []string {
	var out []string
	for _, m := range regexp.MustCompile("(?s)```sql\n(.*?)```").FindAllStringSubmatch(page, -1) {
		out = append(out, m[1])
	}
	return out
}

// notebookSweepRuns are the runs of results/s32 the page's sweep files
// are made from.
var notebookSweepRuns = []string{"grpo-s1", "pats-s1", "static-s1"}

// notebookFiles makes the files docs/notebook.md reads in dir.
func notebookFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	p := func(n string) string { return filepath.Join(dir, n) }
	var out bytes.Buffer
	std := stage.Streams{Stdout: &out, Stderr: &out}
	ro := play.Options{Batch: play.DefaultBatch, Server: play.ServerOptions{Concurrency: play.DefaultConcurrency}, Env: "household", Split: "valid_seen", Tasks: 6, Group: 2, Seed: 3,
		Policy: "random", Slate: play.DefaultSlate, ScaffoldBudget: play.DefaultScaffoldBudget, PolicyOptions: play.PolicyOptions{Temperature: 1, TopP: 1, RepPenalty: 1, MaxContext: play.DefaultMaxContext,
			Admissible: "none"}, InvalidPenalty: play.DefaultInvalidPenalty}
	if err := ro.Check(); err != nil {
		t.Fatal(err)
	}
	if err := evaluate.Run(context.Background(), evaluate.Options{Play: ro, Output: p("metrics.parquet"), Trajout: p("traj.parquet")}, std); err != nil {
		t.Fatal(err)
	}
	if err := cards.Run(context.Background(), cards.Options{Inputs: []string{p("traj.parquet")}, Output: p("cards.parquet"),
		Evidence: p("evidence.parquet"), Per: "group", Top: 8}, std); err != nil {
		t.Fatal(err)
	}
	// A sweep's files from runs kept in the repository (results/s32).
	sweep := p("sweep")
	for _, run := range notebookSweepRuns {
		one := filepath.Join(dir, "archive-"+run)
		if err := os.MkdirAll(one, 0o755); err != nil {
			t.Fatal(err)
		}
		src := filepath.Join(repoRoot(t), "results", "s32", run+".tar.xz")
		if err := os.Symlink(src, filepath.Join(one, run+".tar.xz")); err != nil {
			t.Fatal(err)
		}
		if b, err := exec.Command("bash", filepath.Join(repoRoot(t), "scripts", "sweep-restore.sh"), one, sweep).CombinedOutput(); err != nil {
			t.Fatalf("sweep-restore.sh %s: %v\n%s", src, err, b)
		}
	}
	if err := report.RunSweep(context.Background(), report.SweepOptions{Root: sweep, Variants: []string{"grpo", "pats", "static"},
		Seeds: []int64{1}, Output: p("results.parquet"), Runs: p("runs.parquet"), Baseline: "grpo"}, std); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, n := range []string{"traj.parquet", "metrics.parquet", "cards.parquet", "evidence.parquet", "runs.parquet", "results.parquet"} {
		files["'"+n+"'"] = "'" + p(n) + "'"
	}
	return files
}

// runSQL runs the blocks with the file names replaced by the files' paths.
func runSQL(root string, blocks []string, files map[string]string) ([][]map[string]any, error) {
	sql := make([]string, len(blocks))
	for i, b := range blocks {
		for name, path := range files {
			b = strings.ReplaceAll(b, name, path)
		}
		sql[i] = b
	}
	return duckdb.Query(filepath.Join(root, "lib", "table", "interop", "duckdb"), sql...)
}

func TestDuckDBNotebookDoc(t *testing.T) {
	root := repoRoot(t)
	page, err := os.ReadFile(filepath.Join(root, "docs", "notebook.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := sqlBlocks(string(page))
	if len(blocks) < 8 {
		t.Fatalf("docs/notebook.md has %d sql blocks, want the session's 8 or more", len(blocks))
	}
	files := notebookFiles(t, t.TempDir())
	res, err := runSQL(root, blocks, files)
	if err != nil {
		t.Fatalf("docs/notebook.md: %v", err)
	}
	for i, rows := range res {
		if len(rows) == 0 {
			t.Errorf("sql block %d returns no rows:\n%s", i+1, blocks[i])
		}
	}
	// The NULLs the page shows: no run, no scaffold, no sampling rule
	// (block 2), the
	// random policy's temperature and the "all" row's
	// task type (block 3), the general layer (block 7), plain JSON inputs
	// (block 9).
	if r := res[1]; len(r) != 1 || r[0]["no_run"] != true || r[0]["no_scaffold"] != true || r[0]["policy"] != "random" ||
		fmt.Sprint(r[0]["with_temperature"]) != "0" || r[0]["temperature"] != nil {
		t.Errorf("trajectories: %v; want one row, run, scaffold_version and the random policy's temperature NULL", r)
	}
	if r := res[2]; len(r) != 1 || r[0]["run"] != nil || r[0]["temperature"] != nil || r[0]["iteration"] == nil || r[0]["seed"] == nil {
		t.Errorf("metrics overall row: %v; want one row, run and temperature NULL, iteration and seed set", r)
	}
	if r := res[6][0]; r["layer"] != "(general)" {
		t.Errorf("evidence: first row %v, want the general layer's NULL task type", r)
	}
	if r := res[8]; len(r) != 1 || !strings.HasSuffix(r[0]["input"].(string), "traj.parquet") || len(r[0]["hash"].(string)) != 32 {
		t.Errorf("pats.inputs as JSON: %v", r)
	}
	// The sweep (blocks 10-13): a row per run; only pats has a scaffold to
	// re-attach (static's re-attached success is NULL); two pairs with
	// grpo; the paper's names beside the variants.
	if r := res[9]; len(r) != len(notebookSweepRuns) {
		t.Errorf("sweep runs: %v; want a row per run", r)
	}
	if r := res[10]; len(r) != 1 || r[0]["variant"] != "pats" || r[0]["reattached"] == nil {
		t.Errorf("re-attached: %v; want pats alone", r)
	}
	if r := res[11]; len(r) != 2 || r[0]["variant"] != "pats" || r[1]["variant"] != "static" {
		t.Errorf("paired with grpo: %v; want pats and static", r)
	}
	if r := res[12]; len(r) != 3 || r[1]["variant"] != "pats" || r[1]["paper_variant"] != "full PATS" {
		t.Errorf("sweep results: %v; want three variants, pats beside the paper's full PATS", r)
	}
}

// TestDuckDBNotebookDocCatchesBroken: a planted broken query (a column
// that does not exist) fails the session.
func TestDuckDBNotebookDocCatchesBroken(t *testing.T) {
	root := repoRoot(t)
	files := notebookFiles(t, t.TempDir())
	blocks := []string{"SELECT count(*) FROM 'metrics.parquet';", "SELECT no_such_column FROM 'metrics.parquet';"}
	if _, err := runSQL(root, blocks, files); err == nil || !strings.Contains(err.Error(), "no_such_column") {
		t.Errorf("a broken query passed: %v", err)
	}
}

package pats

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/table"
)

// The golden success cases: one per command, each an ordinary run whose
// stdout (the Markdown table where the command prints one) and outputs
// (every column of every row of a table; a checkpoint's files) are
// compared with testdata/golden/<command>.txt. The cases run in order in
// one folder: a small PATS iteration on household, groups of three random
// episodes and one oracle episode (one in four succeeds: EXPAND), then a warm-up SFT and a reading test. The binaries run
// with the fixed stamp of stamp_test.go (SOURCE_DATE_EPOCH, PATS_HOST).
//
// After a change meant to move an output, rewrite the files with
//
//	go test . -run Golden -update
//
// and read their diff before committing it.

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden/")

// goldenOutput is one output of a case and how it is rendered.
type goldenOutput struct {
	path   string
	render func(t *testing.T, path string) string
}

// rowsOf renders a table file of row kind T, every column of every row.
func rowsOf[T any](path string) goldenOutput {
	return goldenOutput{path, func(t *testing.T, p string) string { return renderRows[T](t, p) }}
}

// folder renders a checkpoint folder file by file.
func folder(path string) goldenOutput {
	return goldenOutput{path, renderFolder}
}

type goldenCase struct {
	command string     // the golden file's name: testdata/golden/COMMAND.txt
	setup   [][]string // command lines run first; their outputs are not compared
	args    []string   // the command line whose stdout and outputs are compared
	outputs []goldenOutput
}

var goldenCases = []goldenCase{
	{command: "rollout",
		setup: [][]string{{"validate", "init", "-o", "snap0.parquet"}},
		args: []string{"rollout", "--env", "household", "--split", "train", "--tasks", "3", "--group", "1",
			"--policy", "oracle", "--seed", "1", "--scaffold", "snap0.parquet", "-o", "oracle.parquet"},
		outputs: []goldenOutput{rowsOf[table.Trajectory]("oracle.parquet")}},
	{command: "report",
		setup: [][]string{{"rollout", "--env", "household", "--split", "train", "--tasks", "3", "--group", "3",
			"--policy", "random", "--seed", "1", "--scaffold", "snap0.parquet", "-o", "random.parquet"}},
		args:    []string{"report", "mix", "random.parquet", "oracle.parquet", "-o", "mixed.parquet"},
		outputs: []goldenOutput{rowsOf[table.Trajectory]("mixed.parquet")}},
	{command: "evaluate",
		args:    []string{"evaluate", "mixed.parquet", "-o", "metrics.parquet"},
		outputs: []goldenOutput{rowsOf[table.EvalMetrics]("metrics.parquet")}},
	{command: "cards",
		args:    []string{"cards", "mixed.parquet", "-o", "cards.parquet", "--evidence", "evidence.parquet"},
		outputs: []goldenOutput{rowsOf[table.Card]("cards.parquet"), rowsOf[table.TypeEvidence]("evidence.parquet")}},
	{command: "control",
		args: []string{"control", "--cards", "cards.parquet", "--scaffold", "snap0.parquet", "-o", "proposals.parquet",
			"--state-out", "state.parquet"},
		outputs: []goldenOutput{rowsOf[table.Proposal]("proposals.parquet"), rowsOf[table.ControllerState]("state.parquet")}},
	{command: "validate",
		args: []string{"validate", "--scaffold", "snap0.parquet", "--proposals", "proposals.parquet", "--cards", "cards.parquet",
			"-o", "snap1.parquet", "--decisions", "decisions.parquet"},
		outputs: []goldenOutput{rowsOf[table.ScaffoldItem]("snap1.parquet"), rowsOf[table.Decision]("decisions.parquet")}},
	{command: "learn",
		args:    []string{"learn", "sft", "--init", "tiny", "--traj", "oracle.parquet", "-o", "ckpt", "--epochs", "1", "--metrics", "sft.parquet"},
		outputs: []goldenOutput{rowsOf[table.TrainMetrics]("sft.parquet"), folder("ckpt")}},
	{command: "audit",
		args: []string{"audit", "reading", "--policy", "oracle", "--env", "household", "--split", "valid_seen", "--tasks", "3",
			"-o", "reading.parquet"},
		outputs: []goldenOutput{rowsOf[table.ReadingAudit]("reading.parquet")}},
}

// TestGolden runs the golden cases and compares each with its file; every
// command of cmd/ has one.
func TestGolden(t *testing.T) {
	built(t)
	cmds, err := filepath.Glob(filepath.Join("cmd", "*", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, c := range goldenCases {
		have[c.command] = true
	}
	for _, m := range cmds {
		if name := filepath.Base(filepath.Dir(m)); !have[name] {
			t.Errorf("command %s has no golden case", name)
		}
	}
	dir := t.TempDir()
	for _, c := range goldenCases {
		for _, s := range c.setup {
			if _, err := runGolden(dir, s); err != nil {
				t.Fatalf("%s: setup %s: %v", c.command, strings.Join(s, " "), err)
			}
		}
		stdout, err := runGolden(dir, c.args)
		if err != nil {
			t.Fatalf("%s: %v", c.command, err)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "$ %s\n--- stdout\n%s", strings.Join(c.args, " "), stdout)
		for _, o := range c.outputs {
			fmt.Fprintf(&b, "--- %s\n%s", o.path, o.render(t, filepath.Join(dir, o.path)))
		}
		golden := filepath.Join("testdata", "golden", c.command+".txt")
		if *update {
			if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Errorf("%s: %v (make it with go test . -run Golden -update)", c.command, err)
			continue
		}
		if d := cmp.Diff(string(want), b.String()); d != "" {
			t.Errorf("%s: output differs from %s (-want +got; go test . -run Golden -update rewrites it):\n%s", c.command, golden, d)
		}
	}
}

// runGolden runs a command of the built binaries in dir and returns its
// stdout; a failure carries its stderr.
func runGolden(dir string, args []string) (string, error) {
	c := exec.Command(filepath.Join(binDir, args[0]), args[1:]...)
	c.Dir = dir
	c.Env = append(os.Environ(), "PATS_PROGRESS=none")
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		return "", fmt.Errorf("%v: %s", err, stderr.String())
	}
	return stdout.String(), nil
}

// wallTime are the columns that hold wall times, the one thing a run
// does not repeat.
var wallTime = map[string]bool{"seconds": true}

// renderRows renders the rows of a table file of kind T: the columns,
// then each row's values by column. A list of more than 8 values is
// rendered as its length and a hash of its values.
func renderRows[T any](t *testing.T, path string) string {
	t.Helper()
	rows, _, err := table.ReadFiles[T](path)
	if err != nil {
		t.Fatal(err)
	}
	typ := reflect.TypeOf((*T)(nil)).Elem()
	var cols []string
	var idx []int
	for i := 0; i < typ.NumField(); i++ {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("parquet"), ",")
		if name == "" || name == "-" {
			continue
		}
		cols, idx = append(cols, name), append(idx, i)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d rows; columns: %s\n", len(rows), strings.Join(cols, ", "))
	for r := range rows {
		v := reflect.ValueOf(rows[r])
		fmt.Fprintf(&b, "row %d\n", r)
		for j, i := range idx {
			val := "(wall time)"
			if !wallTime[cols[j]] {
				val = renderValue(v.Field(i))
			}
			fmt.Fprintf(&b, "  %s: %s\n", cols[j], val)
		}
	}
	return b.String()
}

// renderValue writes one value: NULL for a nil pointer, a list of more
// than 8 items as its length and hash.
func renderValue(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return "NULL"
		}
		return renderValue(v.Elem())
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return fmt.Sprintf("%d bytes sha256:%x", v.Len(), sha256.Sum256(v.Bytes()))
		}
		var items []string
		for i := 0; i < v.Len(); i++ {
			items = append(items, renderValue(v.Index(i)))
		}
		if len(items) <= 8 {
			return "[" + strings.Join(items, " | ") + "]"
		}
		return fmt.Sprintf("[%d items, sha256:%x]", len(items), sha256.Sum256([]byte(strings.Join(items, "\x00"))))
	case reflect.String:
		return fmt.Sprintf("%q", v.String())
	case reflect.Struct:
		var parts []string
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				parts = append(parts, v.Type().Field(i).Name+"="+renderValue(v.Field(i)))
			}
		}
		return "{" + strings.Join(parts, " ") + "}"
	}
	return fmt.Sprint(v.Interface())
}

// renderFolder renders a checkpoint folder: each file's name, size and
// hash; provenance.json as its fields, less the command line (it holds
// the binaries' path), the toolkit's version and the input files' hashes.
func renderFolder(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		if n == "provenance.json" {
			var p map[string]any
			if err := json.Unmarshal(data, &p); err != nil {
				t.Fatalf("%s: %v", n, err)
			}
			for _, k := range []string{"command", "toolkit_version", "toolkit_commit"} {
				delete(p, k)
			}
			// An input file's hash covers its metadata, which records the
			// command line, binaries' path included.
			if in, ok := p["inputs"].(map[string]any); ok {
				for k := range in {
					in[k] = "(hash of the file)"
				}
			}
			out, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%s: %s\n", n, out)
			continue
		}
		fmt.Fprintf(&b, "%s: %d bytes sha256:%x\n", n, len(data), sha256.Sum256(data))
	}
	return b.String()
}

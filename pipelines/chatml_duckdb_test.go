//go:build duckdb

package pipelines

// DuckDB reads back, whole, a trajectory file that a random Qwen2.5-shaped
// checkpoint with the real Qwen tokenizer wrote under chatml: its sampled
// byte-level tokens cut characters, and the text columns must still be
// valid UTF-8 (DuckDB refuses a file with one invalid string). Run with
//
//	npm ci --prefix lib/table/interop/duckdb
//	go test -tags duckdb -run DuckDB ./pipelines/

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/env"
	_ "github.com/pats-rl/pats/lib/env/shipped" // registers household
	"github.com/pats-rl/pats/lib/policy"
	"github.com/pats-rl/pats/lib/rollout"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/table/interop/duckdb"
)

func TestDuckDBReadsQwenTrajectory(t *testing.T) {
	root := repoRoot(t)
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "ckpt")
	qwenCheckpoint(t, root, ckpt)
	ck, err := policy.Load(ckpt, policy.Options{Temperature: 1, TopP: 1, MaxActionTokens: 6})
	if err != nil {
		t.Fatal(err)
	}
	name, err := policy.DefaultFormat(ckpt)
	if err != nil || name != "chatml" {
		t.Fatalf("format %q, %v", name, err)
	}
	f, err := policy.ChooseFormat(name, ck.Tok, ck.Gen.EOS)
	if err != nil {
		t.Fatal(err)
	}
	e, err := env.Open("household")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := rollout.Run(context.Background(), rollout.Options{Env: e, Split: "train", Tasks: 3, Group: 2, Seed: 9,
		Policy: rollout.CheckpointPolicy{Checkpoint: ck}, Tok: ck.Tok, Format: f, InvalidPenalty: 0.1, MaxContext: 700})
	if err != nil {
		t.Fatal(err)
	}
	cut := 0
	for _, r := range rows {
		for _, a := range r.Actions {
			cut += strings.Count(a, "\ufffd")
		}
	}
	if cut == 0 {
		t.Fatal("no sampled action cut a character; the test checks nothing")
	}
	path := filepath.Join(dir, "traj.parquet")
	if err := table.WriteFile(path, rows, table.Meta{}); err != nil {
		t.Fatal(err)
	}

	res, err := duckdb.Query(filepath.Join(root, "lib", "table", "interop", "duckdb"),
		"SELECT * EXCLUDE (file_row_number) FROM read_parquet('"+path+"', file_row_number = true) ORDER BY file_row_number")
	if err != nil {
		t.Fatal(err)
	}
	got := res[0]
	if len(got) != len(rows) {
		t.Fatalf("DuckDB reads %d rows, wrote %d", len(got), len(rows))
	}
	typ := reflect.TypeFor[table.Trajectory]()
	bad := 0
	for i, r := range rows {
		v := reflect.ValueOf(r)
		for k := 0; k < typ.NumField(); k++ {
			tag := strings.Split(typ.Field(k).Tag.Get("parquet"), ",")
			col, want := tag[0], jsonOf(v.Field(k))
			if slices.Contains(tag[1:], "optional") && v.Field(k).IsZero() {
				want = "<nil>" // a nullable column's absent value is NULL
			}
			if g := fmt.Sprint(got[i][col]); g != want && bad < 10 {
				bad++
				t.Errorf("row %d column %s: DuckDB reads %.300s, wrote %.300s", i, col, g, want)
			}
		}
	}
	t.Logf("%d rows, %d cut characters in the actions", len(rows), cut)
}

// jsonOf formats a Go value as fmt.Sprint formats DuckDB's JSON value of it.
func jsonOf(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Slice:
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = jsonOf(v.Index(i))
		}
		return "[" + strings.Join(parts, " ") + "]"
	case reflect.Pointer: // a nullable column's value
		if v.IsNil() {
			return "<nil>"
		}
		return jsonOf(v.Elem())
	case reflect.Float32, reflect.Float64: // DuckDB gives a FLOAT's exact value as a double
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	}
	return fmt.Sprint(v.Interface())
}

//go:build duckdb

package table

// Independent reader check: DuckDB (through its Node.js package, see
// interop/duckdb) reads the Parquet files this package writes, and every
// value, list, type and metadata entry it sees is compared with what was
// written. Run with
//
//	npm ci --prefix lib/table/interop/duckdb
//	go test -tags duckdb -run DuckDB ./lib/table/
//
// DuckDB's Arrow IPC reader is an extension it downloads at run time, so
// only Parquet (the format of files at rest) is checked here.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	duckdbquery "github.com/pats-rl/pats/lib/table/interop/duckdb"
)

const duckdbDir = "interop/duckdb"

// duckdb runs the statements and returns each one's rows.
func duckdb(t *testing.T, sql ...string) [][]map[string]any {
	t.Helper()
	res, err := duckdbquery.Query(duckdbDir, sql...)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// duckType is the DuckDB type a column should read as.
func duckType(c column) string {
	t := map[reflect.Kind]string{
		reflect.String: "VARCHAR", reflect.Bool: "BOOLEAN", reflect.Int8: "TINYINT",
		reflect.Int16: "SMALLINT", reflect.Int32: "INTEGER", reflect.Int64: "BIGINT",
		reflect.Int: "BIGINT", reflect.Float32: "FLOAT", reflect.Float64: "DOUBLE",
	}[c.elem]
	if c.list {
		t += "[]"
	}
	return t
}

// sameValue compares a DuckDB JSON value with a Go field value.
func sameValue(j any, v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Slice:
		a, ok := j.([]any)
		if !ok || len(a) != v.Len() {
			return false
		}
		for i := range a {
			if !sameValue(a[i], v.Index(i)) {
				return false
			}
		}
		return true
	case reflect.String:
		return j == v.String()
	case reflect.Bool:
		return j == v.Bool()
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int:
		var s string
		switch x := j.(type) {
		case json.Number:
			s = string(x)
		case string: // BIGINT comes as a string
			s = x
		}
		return s == strconv.FormatInt(v.Int(), 10)
	case reflect.Float32, reflect.Float64:
		n, ok := j.(json.Number)
		if !ok {
			return false
		}
		f, err := strconv.ParseFloat(string(n), 64)
		return err == nil && f == v.Float()
	}
	return false
}

// duckQueries are the statements checkDuckResults needs for the Parquet
// file at path.
func duckQueries(path string) []string {
	src := "read_parquet(" + sqlString(path) + ", file_row_number = true)"
	return []string{
		"SELECT column_name, column_type FROM (DESCRIBE SELECT * EXCLUDE (file_row_number) FROM " + src + ")",
		"SELECT * EXCLUDE (file_row_number) FROM " + src + " ORDER BY file_row_number",
		"SELECT decode(key) AS key, decode(value) AS value FROM parquet_kv_metadata(" + sqlString(path) + ")",
	}
}

// checkWithDuckDB compares everything DuckDB reads from the Parquet file at
// path with rows (ordered by their position) and meta.
func checkWithDuckDB(t *testing.T, path string, rows reflect.Value, cols []column, meta Meta) {
	t.Helper()
	checkDuckResults(t, duckdb(t, duckQueries(path)...), rows, cols, meta)
}

// checkDuckResults checks the results of duckQueries.
func checkDuckResults(t *testing.T, res [][]map[string]any, rows reflect.Value, cols []column, meta Meta) {
	t.Helper()
	// Column names, order and types.
	var got, want []string
	for _, r := range res[0] {
		got = append(got, fmt.Sprint(r["column_name"], " ", r["column_type"]))
	}
	for _, c := range cols {
		want = append(want, c.name+" "+duckType(c))
	}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("DuckDB columns:\n got  %s\n want %s", strings.Join(got, ", "), strings.Join(want, ", "))
	}
	// Every value of every row.
	if len(res[1]) != rows.Len() {
		t.Fatalf("DuckDB reads %d rows, want %d", len(res[1]), rows.Len())
	}
	bad := 0
	for i, r := range res[1] {
		for _, c := range cols {
			v := rows.Index(i).Field(c.field)
			var ok bool
			switch {
			case c.nullable && (c.ptr && v.IsNil() || !c.ptr && v.IsZero()):
				ok = r[c.name] == nil // NULL, not a sentinel
			case c.ptr:
				ok = sameValue(r[c.name], v.Elem())
			default:
				ok = sameValue(r[c.name], v)
			}
			if !ok && bad < 10 {
				bad++
				t.Errorf("row %d column %s: DuckDB reads %v, wrote %v", i, c.name, r[c.name], v)
			}
		}
	}
	// Metadata.
	kv := map[string]string{}
	for _, r := range res[2] {
		kv[fmt.Sprint(r["key"])] = fmt.Sprint(r["value"])
	}
	keys, values := meta.keyValues()
	for i, k := range keys {
		if kv[k] != values[i] {
			t.Errorf("metadata %s: DuckDB reads %q, wrote %q", k, kv[k], values[i])
		}
	}
}

func TestDuckDBReadsEveryKind(t *testing.T) {
	noRowChecks(t) // the rows are filled by reflection, not to the readers' ranges
	dir := t.TempDir()
	kinds := Kinds()
	data := make([]reflect.Value, len(kinds))
	var sql []string
	for i, k := range kinds {
		rows := reflect.MakeSlice(reflect.SliceOf(k.Type), 7, 7)
		for r := 0; r < rows.Len(); r++ {
			fill(rows.Index(r), r)
		}
		var buf bytes.Buffer
		if err := writeAny(&buf, Parquet, rows.Interface()); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, k.Name+".parquet")
		os.WriteFile(p, buf.Bytes(), 0o644)
		data[i] = rows
		sql = append(sql, duckQueries(p)...)
	}
	res := duckdb(t, sql...) // one DuckDB process for all kinds
	for i, k := range kinds {
		cols, _ := columnsOf(k.Type)
		t.Run(k.Name, func(t *testing.T) {
			checkDuckResults(t, res[3*i:3*i+3], data[i], cols, Meta{Kind: k.Name, SchemaVersion: k.Version})
		})
	}
}

func TestDuckDBReadsTrajectories(t *testing.T) {
	dir := t.TempDir()
	rows := sampleTrajectories(60, 11)
	p := filepath.Join(dir, "traj.parquet")
	m := testMeta
	if err := WriteFile(p, rows, m); err != nil {
		t.Fatal(err)
	}
	k, _ := LookupKind("trajectory")
	m.Kind, m.SchemaVersion = k.Name, k.Version
	cols, _ := columnsOf(reflect.TypeFor[Trajectory]())
	checkWithDuckDB(t, p, reflect.ValueOf(rows), cols, m)

	// Aggregates over list columns, computed here and by DuckDB's list
	// functions, over a sharded directory read as one table.
	shards := filepath.Join(dir, "shards")
	for i, part := range [][]Trajectory{rows[:25], rows[25:]} {
		if err := WriteFile(filepath.Join(shards, fmt.Sprintf("part-%d.parquet", i)), part, testMeta); err != nil {
			t.Fatal(err)
		}
	}
	var nTok, nPolicy, nActions, nReadsRight, tokSum int64
	var lpSum float64
	for _, r := range rows {
		nTok += int64(len(r.Tokens))
		nActions += int64(len(r.Actions))
		for k, role := range r.Roles {
			if PolicyWritten(role) {
				nPolicy++
				lpSum += float64(r.Logprobs[k])
			}
			tokSum += int64(r.Tokens[k])
		}
		for _, ok := range r.ReadsRight {
			if ok {
				nReadsRight++
			}
		}
	}
	want := map[string]string{
		"n_rows":      strconv.Itoa(len(rows)),
		"n_tokens":    strconv.FormatInt(nTok, 10),
		"n_policy":    strconv.FormatInt(nPolicy, 10),
		"n_actions":   strconv.FormatInt(nActions, 10),
		"reads_right": strconv.FormatInt(nReadsRight, 10),
		"token_sum":   strconv.FormatInt(tokSum, 10),
		"third_token": strconv.Itoa(int(rows[2].Tokens[2])),
		"first_goal":  rows[0].Goal,
	}
	res := duckdb(t, `SELECT
		count(*)::VARCHAR AS n_rows,
		sum(len(tokens))::VARCHAR AS n_tokens,
		sum(len(list_filter(roles, r -> r = 6 OR r = 7)))::VARCHAR AS n_policy,
		sum(len(actions))::VARCHAR AS n_actions,
		sum(len(list_filter(reads_right, b -> b)))::VARCHAR AS reads_right,
		sum(list_sum(tokens::BIGINT[]))::VARCHAR AS token_sum,
		sum(list_sum(list_transform(list_zip(roles, logprobs), x -> CASE WHEN x[1] IN (6, 7) THEN x[2]::DOUBLE ELSE 0 END))) AS logprob_sum,
		max(CASE WHEN task_id = 'task-002' THEN tokens[3] END)::VARCHAR AS third_token,
		max(CASE WHEN task_id = 'task-000' THEN goal END) AS first_goal
		FROM read_parquet(`+sqlString(filepath.Join(shards, "*.parquet"))+`)`)
	got := res[0][0]
	for k, w := range want {
		if fmt.Sprint(got[k]) != w {
			t.Errorf("%s: DuckDB %v, want %s", k, got[k], w)
		}
	}
	lp, _ := strconv.ParseFloat(fmt.Sprint(got["logprob_sum"]), 64)
	if d := lp - lpSum; d > 1e-6*(1-lpSum) || d < -1e-6*(1-lpSum) {
		t.Errorf("logprob_sum: DuckDB %v, want %v", lp, lpSum)
	}
}

// The reverse direction: a Parquet file written by DuckDB (nullable columns,
// its own list layout, no pats metadata), as a notebook would write one, reads
// back here as the same rows.
func TestDuckDBWrittenFilesRead(t *testing.T) {
	dir := t.TempDir()
	rows := sampleTrajectories(25, 12)
	p := filepath.Join(dir, "traj.parquet")
	if err := WriteFile(p, rows, testMeta); err != nil {
		t.Fatal(err)
	}
	q := filepath.Join(dir, "copy.parquet")
	duckdb(t, "COPY (SELECT * FROM read_parquet("+sqlString(p)+", file_row_number = true) ORDER BY file_row_number) TO "+
		sqlString(q)+" (FORMAT parquet)")
	// DuckDB's copy carries file_row_number as an extra column, which the
	// reader ignores.
	got, metas, err := ReadFiles[Trajectory](q)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(rows, got, equateNil); d != "" {
		t.Errorf("rows written by DuckDB differ (-want +got):\n%s", d)
	}
	if metas[0].Kind != "" {
		t.Errorf("kind %q in a DuckDB file", metas[0].Kind)
	}
	// A DuckDB file missing a column is a schema mismatch.
	r := filepath.Join(dir, "partial.parquet")
	duckdb(t, "COPY (SELECT * EXCLUDE (roles) FROM read_parquet("+sqlString(p)+")) TO "+sqlString(r)+" (FORMAT parquet)")
	if _, _, err := ReadFiles[Trajectory](r); !IsInputError(err) || !strings.Contains(err.Error(), `no column "roles`) {
		t.Errorf("partial file: got %v", err)
	}
}

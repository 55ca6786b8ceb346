package table

import (
	"errors"
	"fmt"
	"io"
	"reflect"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// createdBy is the fixed "created_by" of every Parquet file written here, so
// that the bytes do not depend on the build.
var createdBy = parquet.CreatedBy("pats", "1", "table")

// writeParquet writes rows as one Parquet file with zstd-compressed pages and
// the metadata as key-value metadata.
func writeParquet[T any](w io.Writer, rows []T, meta Meta) error {
	opts := []parquet.WriterOption{createdBy, parquet.Compression(&parquet.Zstd)}
	keys, values := meta.keyValues()
	for i, k := range keys {
		opts = append(opts, parquet.KeyValueMetadata(k, values[i]))
	}
	pw := parquet.NewGenericWriter[T](w, opts...)
	if _, err := pw.Write(rows); err != nil {
		return err
	}
	return pw.Close()
}

// readParquet reads all rows of a Parquet file of size bytes.
func readParquet[T any](path string, r io.ReaderAt, size int64, k KindInfo, cols []column) (rows []T, meta Meta, err error) {
	// parquet-go may panic on some corrupt inputs; report those as input
	// errors rather than crashing the command.
	defer recoverCorrupt(path, "corrupt Parquet file", &err)
	// The footer's counts and offsets and the page headers are checked
	// against the file and the reader's limits before parquet-go sizes
	// anything from them.
	md, _, err := parquetFooter(r, size)
	if err == nil {
		err = checkParquetPages(r, md)
	}
	if err != nil {
		return nil, meta, inputErr(path, "corrupt Parquet file", err)
	}
	f, err := parquet.OpenFile(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, meta, inputErr(path, "truncated or corrupt Parquet file", err)
	}
	kv := f.Metadata().KeyValueMetadata
	meta, err = metaFrom(path, kvKeys(kv), f.Lookup)
	if err == nil {
		err = checkKind(path, meta, k)
	}
	if err == nil {
		err = checkParquetSchema(path, f.Schema(), k, cols, meta.SchemaVersion)
	}
	if err == nil {
		err = checkParquetNulls(path, f, k)
	}
	if err != nil {
		return nil, meta, err
	}
	// not more room than a small file's rows ahead of reading them: the
	// rows grow as they are read
	rows = make([]T, 0, min(f.NumRows(), 4096))
	pr := parquet.NewGenericReader[T](f)
	defer pr.Close()
	buf := make([]T, 256)
	for {
		n, err := pr.Read(buf)
		rows = append(rows, buf[:n]...)
		clear(buf[:n])
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, meta, inputErr(path, "corrupt Parquet file", err)
		}
	}
	if int64(len(rows)) != f.NumRows() {
		return nil, meta, inputErr(path, fmt.Sprintf("corrupt Parquet file: read %d rows of %d", len(rows), f.NumRows()), nil)
	}
	nilEmptyLists(rows, cols)
	return rows, meta, nil
}

func kvKeys(kv []format.KeyValue) []string {
	keys := make([]string, len(kv))
	for i, e := range kv {
		keys[i] = e.Key
	}
	return keys
}

// checkParquetSchema checks that every leaf column of the row struct is in
// the file with the same physical and logical type, except the columns
// added after the file's schema version (see column.optionalIn), which may
// be missing. Extra columns in the file are allowed (they are not read).
func checkParquetSchema(path string, got *parquet.Schema, k KindInfo, cols []column, version int) error {
	want := parquet.SchemaOf(reflect.New(k.Type).Elem().Interface())
	optional := map[string]bool{}
	for _, c := range cols {
		optional[c.name] = c.optionalIn(version)
	}
	for _, p := range want.Columns() {
		wl, _ := want.Lookup(p...)
		gl, ok := got.Lookup(p...)
		if !ok && optional[p[0]] && !hasField(got, p[0]) {
			continue
		}
		if !ok {
			if !hasField(got, p[0]) {
				return inputErr(path, fmt.Sprintf("schema mismatch: no column %q", p[0]), nil)
			}
			return inputErr(path, fmt.Sprintf("schema mismatch: column %q has no leaf %q (another type or list layout)", p[0], joinPath(p)), nil)
		}
		wt, gt := wl.Node.Type(), gl.Node.Type()
		// Other writers do not always annotate plain integers, so logical
		// types are compared only where both sides have one.
		wn, gn := logicalName(wt), logicalName(gt)
		if wt.Kind() != gt.Kind() || wn != "" && gn != "" && wn != gn {
			return inputErr(path, fmt.Sprintf("schema mismatch: column %q is %s, want %s", joinPath(p), typeDesc(gt), typeDesc(wt)), nil)
		}
	}
	return nil
}

// checkParquetNulls refuses NULL values in a column that the row struct
// requires (a file written by another tool with a nullable column): read
// into the struct they would silently become zeros. The null counts come
// from the column chunks' statistics; a chunk without them is not checked.
func checkParquetNulls(path string, f *parquet.File, k KindInfo) error {
	want := parquet.SchemaOf(reflect.New(k.Type).Elem().Interface())
	got := f.Schema()
	for _, p := range want.Columns() {
		if len(p) != 1 {
			continue // list elements: an empty list is the nullable case
		}
		wl, _ := want.Lookup(p...)
		gl, ok := got.Lookup(p...)
		if !ok || wl.Node.Optional() || !gl.Node.Optional() {
			continue
		}
		var nulls int64
		for _, rg := range f.Metadata().RowGroups {
			if gl.ColumnIndex < len(rg.Columns) {
				nulls += rg.Columns[gl.ColumnIndex].MetaData.Statistics.NullCount
			}
		}
		if nulls > 0 {
			return inputErr(path, fmt.Sprintf("column %s: %d NULL values; every row needs one", p[0], nulls), nil)
		}
	}
	return nil
}

func logicalName(t parquet.Type) string {
	if lt := t.LogicalType(); lt != nil {
		return lt.String()
	}
	return ""
}

func typeDesc(t parquet.Type) string {
	if l := logicalName(t); l != "" {
		return t.Kind().String() + " " + l
	}
	return t.Kind().String()
}

func joinPath(p []string) string {
	s := ""
	for i, e := range p {
		if i > 0 {
			s += "."
		}
		s += e
	}
	return s
}

func hasField(s *parquet.Schema, name string) bool {
	for _, f := range s.Fields() {
		if f.Name() == name {
			return true
		}
	}
	return false
}

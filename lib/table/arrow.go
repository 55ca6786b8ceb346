package table

import (
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// arrowBatchRows is the most rows per Arrow record batch.
const arrowBatchRows = 1024

func arrowSchema(cols []column, meta Meta) *arrow.Schema {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.name, Type: c.arrowType(), Nullable: c.nullable}
	}
	keys, values := meta.keyValues()
	md := arrow.NewMetadata(keys, values)
	return arrow.NewSchema(fields, &md)
}

// writeArrow writes rows as an Arrow IPC stream, or an Arrow IPC file when
// file is true, in batches of arrowBatchRows rows.
func writeArrow[T any](w io.Writer, file bool, rows []T, cols []column, meta Meta) error {
	mem := memory.DefaultAllocator
	schema := arrowSchema(cols, meta)
	var iw interface {
		Write(arrow.RecordBatch) error
		Close() error
	}
	if file {
		fw, err := ipc.NewFileWriter(w, ipc.WithSchema(schema), ipc.WithAllocator(mem))
		if err != nil {
			return err
		}
		iw = fw
	} else {
		iw = ipc.NewWriter(w, ipc.WithSchema(schema), ipc.WithAllocator(mem))
	}
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for start := 0; start < len(rows); start += arrowBatchRows {
		end := min(start+arrowBatchRows, len(rows))
		for i := start; i < end; i++ {
			v := reflect.ValueOf(&rows[i]).Elem()
			for j, c := range cols {
				appendValue(b.Field(j), c, v.Field(c.field))
			}
		}
		rec := b.NewRecordBatch()
		err := iw.Write(rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	return iw.Close()
}

// appendValue appends field value v of column c to builder b.
func appendValue(b array.Builder, c column, v reflect.Value) {
	if c.nullable {
		if c.ptr && v.IsNil() || !c.ptr && v.IsZero() {
			b.AppendNull()
			return
		}
		if c.ptr {
			v = v.Elem()
		}
	}
	if !c.list {
		appendScalar(b, v)
		return
	}
	lb := b.(*array.ListBuilder)
	lb.Append(true)
	vb := lb.ValueBuilder()
	// Fast paths for the plain slice types; named element types go through
	// reflection one value at a time.
	switch s := v.Interface().(type) {
	case []string:
		vb.(*array.StringBuilder).AppendValues(s, nil)
	case []bool:
		vb.(*array.BooleanBuilder).AppendValues(s, nil)
	case []int8:
		vb.(*array.Int8Builder).AppendValues(s, nil)
	case []int16:
		vb.(*array.Int16Builder).AppendValues(s, nil)
	case []int32:
		vb.(*array.Int32Builder).AppendValues(s, nil)
	case []int64:
		vb.(*array.Int64Builder).AppendValues(s, nil)
	case []float32:
		vb.(*array.Float32Builder).AppendValues(s, nil)
	case []float64:
		vb.(*array.Float64Builder).AppendValues(s, nil)
	default:
		for i := 0; i < v.Len(); i++ {
			appendScalar(vb, v.Index(i))
		}
	}
}

func appendScalar(b array.Builder, v reflect.Value) {
	switch b := b.(type) {
	case *array.StringBuilder:
		b.Append(v.String())
	case *array.BooleanBuilder:
		b.Append(v.Bool())
	case *array.Int8Builder:
		b.Append(int8(v.Int()))
	case *array.Int16Builder:
		b.Append(int16(v.Int()))
	case *array.Int32Builder:
		b.Append(int32(v.Int()))
	case *array.Int64Builder:
		b.Append(v.Int())
	case *array.Float32Builder:
		b.Append(float32(v.Float()))
	case *array.Float64Builder:
		b.Append(v.Float())
	default:
		panic(fmt.Sprintf("table: no Arrow builder for %T", b))
	}
}

// arrowColumns maps each column of the row struct to its index in the Arrow
// schema, checking names and types.
func arrowColumns(path string, schema *arrow.Schema, cols []column, version int) ([]int, error) {
	idx := make([]int, len(cols))
	for i, c := range cols {
		found := schema.FieldIndices(c.name)
		if len(found) == 0 && c.optionalIn(version) {
			idx[i] = -1 // added after the file's version: zero values
			continue
		}
		if len(found) == 0 {
			return nil, inputErr(path, fmt.Sprintf("schema mismatch: no column %q", c.name), nil)
		}
		f := schema.Field(found[0])
		if !sameArrowType(f.Type, c.arrowType()) {
			return nil, inputErr(path, fmt.Sprintf("schema mismatch: column %q is %s, want %s", c.name, f.Type, c.arrowType()), nil)
		}
		idx[i] = found[0]
	}
	return idx, nil
}

// sameArrowType compares types ignoring list element names and nullability.
func sameArrowType(got, want arrow.DataType) bool {
	if gl, ok := got.(*arrow.ListType); ok {
		wl, ok := want.(*arrow.ListType)
		return ok && arrow.TypeEqual(gl.Elem(), wl.Elem())
	}
	return arrow.TypeEqual(got, want)
}

// appendRecord appends the rows of one record batch, checked by
// array.ValidateRecordFull (Arrow carries no checksums, but offsets and
// lengths must be consistent) and by nullCount (which refuses NULLs).
func appendRecord[T any](rows []T, rec arrow.RecordBatch, cols []column, idx []int) []T {
	n := int(rec.NumRows())
	start := len(rows)
	rows = append(rows, make([]T, n)...)
	for j, c := range cols {
		if idx[j] < 0 {
			continue
		}
		arr := rec.Column(idx[j])
		for i := 0; i < n; i++ {
			if arr.IsNull(i) {
				continue
			}
			f := reflect.ValueOf(&rows[start+i]).Elem().Field(c.field)
			if c.list {
				setList(f, arr.(*array.List), i)
			} else {
				setScalar(f, arr, i)
			}
		}
	}
	return rows
}

func setScalar(f reflect.Value, arr arrow.Array, i int) {
	if arr.IsNull(i) {
		return
	}
	if f.Kind() == reflect.Pointer {
		p := reflect.New(f.Type().Elem())
		setScalar(p.Elem(), arr, i)
		f.Set(p)
		return
	}
	switch a := arr.(type) {
	case *array.String:
		f.SetString(strings.Clone(a.Value(i))) // Value aliases the Arrow buffer
	case *array.Boolean:
		f.SetBool(a.Value(i))
	case *array.Int8:
		f.SetInt(int64(a.Value(i)))
	case *array.Int16:
		f.SetInt(int64(a.Value(i)))
	case *array.Int32:
		f.SetInt(int64(a.Value(i)))
	case *array.Int64:
		f.SetInt(a.Value(i))
	case *array.Float32:
		f.SetFloat(float64(a.Value(i)))
	case *array.Float64:
		f.SetFloat(a.Value(i))
	default:
		panic(fmt.Sprintf("table: no conversion from Arrow %T", arr))
	}
}

func setList(f reflect.Value, l *array.List, i int) {
	lo, hi := l.ValueOffsets(i)
	n := int(hi - lo)
	if n == 0 {
		return // empty lists are read as nil
	}
	vals := l.ListValues()
	s := reflect.MakeSlice(f.Type(), n, n)
	// Fast paths copy whole runs for the plain slice types.
	switch dst := s.Interface().(type) {
	case []int32:
		copy(dst, vals.(*array.Int32).Int32Values()[lo:hi])
	case []int8:
		copy(dst, vals.(*array.Int8).Int8Values()[lo:hi])
	case []int64:
		copy(dst, vals.(*array.Int64).Int64Values()[lo:hi])
	case []float32:
		copy(dst, vals.(*array.Float32).Float32Values()[lo:hi])
	case []float64:
		copy(dst, vals.(*array.Float64).Float64Values()[lo:hi])
	default:
		for k := 0; k < n; k++ {
			setScalar(s.Index(k), vals, int(lo)+k)
		}
	}
	f.Set(s)
}

// readArrowStream reads every batch of an Arrow IPC stream of size bytes
// from r. The stream must end the input: bytes after its end-of-stream
// marker (a second stream concatenated to the first) are an error, not
// dropped.
func readArrowStream[T any](path string, r io.Reader, size int64, k KindInfo, cols []column) (rows []T, meta Meta, err error) {
	defer recoverCorrupt(path, "corrupt Arrow stream", &err)
	cr := &countingReader{r: r}
	rd, err := ipc.NewReader(cr)
	if err != nil {
		return nil, Meta{}, inputErr(path, "corrupt Arrow stream", err)
	}
	defer rd.Release()
	var idx []int
	meta, idx, err = arrowMeta(path, rd.Schema(), k, cols)
	if err != nil {
		return nil, meta, err
	}
	nulls := newNullCount(cols)
	for rd.Next() {
		rec := rd.RecordBatch()
		if err := array.ValidateRecordFull(rec); err != nil {
			return nil, meta, inputErr(path, "corrupt Arrow stream", err)
		}
		nulls.add(rec, cols, idx)
		rows = appendRecord(rows, rec, cols, idx)
	}
	if err := rd.Err(); err != nil {
		return nil, meta, inputErr(path, "truncated or corrupt Arrow stream", err)
	}
	if err := nulls.err(path, cols); err != nil {
		return nil, meta, err
	}
	if cr.n < size {
		return nil, meta, inputErr(path, fmt.Sprintf("%d bytes after the end of the Arrow stream (two streams concatenated?); give one stream per input", size-cr.n), nil)
	}
	return rows, meta, nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// readArrowFile reads every batch of an Arrow IPC file.
func readArrowFile[T any](path string, r ipc.ReadAtSeeker, k KindInfo, cols []column) (rows []T, meta Meta, err error) {
	defer recoverCorrupt(path, "corrupt Arrow file", &err)
	rd, err := ipc.NewFileReader(r)
	if err != nil {
		return nil, Meta{}, inputErr(path, "truncated or corrupt Arrow file", err)
	}
	defer rd.Close()
	var idx []int
	meta, idx, err = arrowMeta(path, rd.Schema(), k, cols)
	if err != nil {
		return nil, meta, err
	}
	nulls := newNullCount(cols)
	for i := 0; i < rd.NumRecords(); i++ {
		rec, err := rd.RecordBatch(i)
		if err == nil {
			err = array.ValidateRecordFull(rec)
		}
		if err != nil {
			return nil, meta, inputErr(path, "corrupt Arrow file", err)
		}
		nulls.add(rec, cols, idx)
		rows = appendRecord(rows, rec, cols, idx)
	}
	if err := nulls.err(path, cols); err != nil {
		return nil, meta, err
	}
	return rows, meta, nil
}

// nullCount counts, per column of the row struct, the NULL values of an
// Arrow input: a NULL scalar, or a NULL element of a list. Every column
// of a row kind is required (Go has no NULL for it: read into the struct
// a NULL would silently become a zero), so any is an error, except in a
// nullable column (the `optional` tag option). A NULL list
// is read as an empty list, as an empty list is what a writer without
// list values stores.
type nullCount struct {
	scalars, elems []int64
}

func newNullCount(cols []column) *nullCount {
	return &nullCount{scalars: make([]int64, len(cols)), elems: make([]int64, len(cols))}
}

func (nc *nullCount) add(rec arrow.RecordBatch, cols []column, idx []int) {
	n := int(rec.NumRows())
	for j, c := range cols {
		if idx[j] < 0 {
			continue
		}
		arr := rec.Column(idx[j])
		if c.nullable {
			continue // NULL is a value of its own (a nil pointer)
		}
		if !c.list {
			nc.scalars[j] += int64(arr.NullN())
			continue
		}
		l := arr.(*array.List)
		vals := l.ListValues()
		if vals.NullN() == 0 {
			continue
		}
		for i := 0; i < n; i++ {
			if l.IsNull(i) {
				continue
			}
			lo, hi := l.ValueOffsets(i)
			for e := lo; e < hi; e++ {
				if vals.IsNull(int(e)) {
					nc.elems[j]++
				}
			}
		}
	}
}

// err names the first column (in the row struct's order) with NULLs.
func (nc *nullCount) err(path string, cols []column) error {
	for j := range nc.scalars {
		if nc.scalars[j] > 0 {
			return inputErr(path, fmt.Sprintf("column %s: %d NULL values; every row needs one", cols[j].name, nc.scalars[j]), nil)
		}
		if nc.elems[j] > 0 {
			return inputErr(path, fmt.Sprintf("column %s: %d NULL list elements; every element needs a value", cols[j].name, nc.elems[j]), nil)
		}
	}
	return nil
}

func arrowMeta(path string, schema *arrow.Schema, k KindInfo, cols []column) (Meta, []int, error) {
	md := schema.Metadata()
	meta, err := metaFrom(path, md.Keys(), func(k string) (string, bool) {
		i := md.FindKey(k)
		if i < 0 {
			return "", false
		}
		return md.Values()[i], true
	})
	if err == nil {
		err = checkKind(path, meta, k)
	}
	if err != nil {
		return meta, nil, err
	}
	idx, err := arrowColumns(path, schema, cols, meta.SchemaVersion)
	return meta, idx, err
}

// recoverCorrupt turns a panic of the decoder on damaged input into an
// *InputError, so a bad file never crashes a command.
func recoverCorrupt(path, problem string, err *error) {
	if p := recover(); p != nil {
		*err = inputErr(path, problem, fmt.Errorf("%v", p))
	}
}

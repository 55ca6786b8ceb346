package table

import (
	"bytes"
	"encoding/binary"
	"runtime"
	"testing"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// maxFuzzAlloc is the bound FuzzParquetFooter holds the reader to: what
// reading one rewritten file of a few kilobytes may allocate in all.
const maxFuzzAlloc = 256 << 20

// fuzzTable is a small trajectory table and its footer, decoded.
func fuzzTable(tb testing.TB) (data []byte, md format.FileMetaData) {
	var b bytes.Buffer
	if err := Write(&b, Parquet, sampleTrajectories(12, 1), Meta{}); err != nil {
		tb.Fatal(err)
	}
	file := b.Bytes()
	n := int64(binary.LittleEndian.Uint32(file[len(file)-8:]))
	footer := file[int64(len(file))-8-n : len(file)-8]
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), footer, &md); err != nil {
		tb.Fatal(err)
	}
	return file[:int64(len(file))-8-n], md
}

// rewriteFooter applies the edits that ops spell, three bytes and a
// varint each (what, which, value), to a copy of md, and gives the file
// with that footer.
func rewriteFooter(tb testing.TB, data []byte, md format.FileMetaData, ops []byte) []byte {
	md.RowGroups = append([]format.RowGroup(nil), md.RowGroups...)
	for i := range md.RowGroups {
		md.RowGroups[i].Columns = append([]format.ColumnChunk(nil), md.RowGroups[i].Columns...)
	}
	for len(ops) >= 3 {
		what, which := ops[0], int(binary.LittleEndian.Uint16(ops[1:3]))
		ops = ops[3:]
		v, n := binary.Varint(ops)
		if n <= 0 {
			v, n = 0, min(len(ops), 1)
		}
		ops = ops[n:]
		rg := &md.RowGroups[which%len(md.RowGroups)]
		c := &rg.Columns[which%len(rg.Columns)].MetaData
		switch what % 12 {
		case 0:
			md.NumRows = v
		case 1:
			rg.NumRows = v
		case 2:
			c.NumValues = v
		case 3:
			c.DataPageOffset = v
		case 4:
			c.DictionaryPageOffset = v
		case 5:
			c.TotalCompressedSize = v
		case 6:
			c.TotalUncompressedSize = v
		case 7: // the same row group again, up to 2,500 times (a footer past the limit)
			for k := int64(0); k < min(max(v, 1), 2500) && len(md.RowGroups) < 2501; k++ {
				md.RowGroups = append(md.RowGroups, *rg)
				md.NumRows += rg.NumRows
			}
		case 8: // a row group's pages listed again under another row group
			md.RowGroups = append(md.RowGroups, *rg)
		case 9:
			if len(md.RowGroups) > 1 {
				md.RowGroups = md.RowGroups[:len(md.RowGroups)-1]
			}
		case 10:
			if len(rg.Columns) > 1 {
				rg.Columns = rg.Columns[:len(rg.Columns)-1]
			}
		case 11:
			c.NumValues += v
			rg.NumRows += v
			md.NumRows += v
		}
	}
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), &md)
	if err != nil {
		tb.Fatal(err)
	}
	out := append(append([]byte(nil), data...), footer...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	return append(out, "PAR1"...)
}

// FuzzParquetFooter reads files whose footer counts and offsets are
// rewritten (rows, values, page offsets and sizes, row groups repeated or
// dropped): the reader must never panic, must refuse or read the rows the
// file holds, and must not allocate more than maxFuzzAlloc doing so.
func FuzzParquetFooter(f *testing.F) {
	data, md := fuzzTable(f)
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 0x80, 0xc8, 0xaf, 0xa0, 0x25}) // 5e9 rows in the footer
	f.Add([]byte{1, 0, 0, 0x80, 0xc8, 0xaf, 0xa0, 0x25, 0, 0, 0, 0x80, 0xc8, 0xaf, 0xa0, 0x25})
	f.Add([]byte{7, 0, 0, 0xc8, 0x01})                    // 100 more row groups over the same pages
	f.Add([]byte{11, 1, 0, 0x80, 0xc8, 0xaf, 0xa0, 0x25}) // rows and values together
	f.Add([]byte{5, 2, 0, 0xfe, 0xff, 0xff, 0xff, 0x0f, 3, 2, 0, 2})
	f.Add([]byte{8, 0, 0, 0, 4, 3, 0, 1, 6, 1, 0, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, ops []byte) {
		file := rewriteFooter(t, data, md, ops)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		rows, _, err := Read[Trajectory](bytes.NewReader(file), "fuzz.parquet")
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > maxFuzzAlloc {
			t.Fatalf("reading a file of %d bytes allocated %d bytes", len(file), alloc)
		}
		if err == nil && len(rows) > 12 {
			t.Fatalf("read %d rows from a table of 12", len(rows))
		}
		if err != nil && !IsInputError(err) {
			t.Fatalf("not an input error: %v", err)
		}
	})
}

// TestParquetFooterClaims: the footers of the reproductions are
// refused with one line, before anything is sized from them.
func TestParquetFooterClaims(t *testing.T) {
	data, md := fuzzTable(t)
	for _, c := range []struct {
		name string
		ops  []byte
		want string
	}{
		{"5e9 rows", []byte{11, 0, 0, 0x80, 0xc8, 0xaf, 0xa0, 0x25}, "rows (the limit is"},
		{"2,501 row groups over the same pages", []byte{7, 0, 0, 0x88, 0x27}, "over the limit of"},
		{"101 row groups over the same pages", []byte{7, 0, 0, 0xc8, 0x01}, "share bytes"},
		{"a row group listed twice", []byte{8, 0, 0, 0, 0, 0, 0, 0}, "its row groups"},
		{"a row group listed twice, rows summed", []byte{8, 0, 0, 0, 0, 0, 0, 48}, "share bytes"},
		{"chunk past the footer", []byte{5, 0, 0, 0xfe, 0xff, 0xff, 0xff, 0x0f}, "outside the data"},
		{"rows not the row groups' sum", []byte{0, 0, 0, 2}, "its row groups"},
		{"a column chunk missing", []byte{10, 0, 0, 0}, "column chunks for"},
	} {
		_, _, err := Read[Trajectory](bytes.NewReader(rewriteFooter(t, data, md, c.ops)), "x.parquet")
		if err == nil || !bytes.Contains([]byte(err.Error()), []byte(c.want)) {
			t.Errorf("%s: got %v, want an error with %q", c.name, err, c.want)
		}
	}
	if _, _, err := Read[Trajectory](bytes.NewReader(rewriteFooter(t, data, md, nil)), "x.parquet"); err != nil {
		t.Errorf("the footer rewritten unchanged: %v", err)
	}
}

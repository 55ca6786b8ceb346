package table

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// Limits of the Parquet reader. Every count, length and offset a Parquet
// file gives is checked against them and against the file's real size
// before anything is allocated from it (checkParquetFooter,
// checkParquetPages), so that a footer claiming billions of rows, a list of
// row groups listing the same pages again and again, or a page header
// claiming gigabytes is one line naming the file, never an allocation.
const (
	// MaxParquetFooterBytes bounds the footer (the file's metadata): 8 MiB,
	// about a thousand times what a table of pats needs.
	MaxParquetFooterBytes = 8 << 20
	// maxThriftAlloc bounds what decoding one footer or page header may
	// allocate, counting each element of a list as the most its decoded
	// form takes (thriftStructCost for a struct): 64 MiB.
	maxThriftAlloc = 64 << 20
	// MaxParquetRows bounds the rows of one file: 64 Mi.
	MaxParquetRows = 64 << 20
	// MaxParquetRowGroups bounds the row groups of one file.
	MaxParquetRowGroups = 1 << 16
	// MaxParquetValues bounds the values (list elements included) of one
	// column chunk: 1 Gi.
	MaxParquetValues = 1 << 30
	// MaxParquetPageBytes bounds a page, compressed or not: 256 MiB (the
	// writer here makes pages of about 256 KiB).
	MaxParquetPageBytes = 256 << 20
	// maxPageHeaderBytes bounds one page header (its statistics included).
	maxPageHeaderBytes = 1 << 20
	// thriftStructCost is what one decoded struct of a list is counted as
	// (a format.ColumnChunk, the largest, takes 560 bytes).
	thriftStructCost = 1024
)

// parquetFooter reads and checks the footer of a Parquet file of size
// bytes and gives its metadata and the length of the footer.
func parquetFooter(r io.ReaderAt, size int64) (*format.FileMetaData, int64, error) {
	var tail [8]byte
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return nil, 0, err
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n > size-12 {
		return nil, 0, fmt.Errorf("footer of %d bytes in a file of %d", n, size)
	}
	if n > MaxParquetFooterBytes {
		return nil, 0, fmt.Errorf("footer of %d bytes is over the limit of %d", n, MaxParquetFooterBytes)
	}
	buf := make([]byte, n)
	if _, err := r.ReadAt(buf, size-8-n); err != nil {
		return nil, 0, err
	}
	used, err := thriftBounded(buf)
	if err != nil {
		return nil, 0, fmt.Errorf("footer: %w", err)
	}
	if used != len(buf) {
		return nil, 0, fmt.Errorf("footer: %d bytes after its metadata", len(buf)-used)
	}
	var md format.FileMetaData
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), buf, &md); err != nil {
		return nil, 0, fmt.Errorf("footer: %w", err)
	}
	if err := checkParquetFooter(&md, size-8-n); err != nil {
		return nil, 0, err
	}
	return &md, n, nil
}

// chunkRange is the bytes of one column chunk.
type chunkRange struct {
	begin, end int64
	rg, col    int
}

// checkParquetFooter checks the counts and offsets of a footer against the
// limits and the data part of the file (bytes 4 to dataEnd): the row count
// is the sum of the row groups'; every row group has one chunk per leaf
// column; every chunk lies in the data part, and no two chunks share a
// byte (so no page is read twice); a chunk holds at least one value a row.
func checkParquetFooter(md *format.FileMetaData, dataEnd int64) error {
	if md.NumRows < 0 || md.NumRows > MaxParquetRows {
		return fmt.Errorf("footer claims %d rows (the limit is %d)", md.NumRows, MaxParquetRows)
	}
	if len(md.RowGroups) > MaxParquetRowGroups {
		return fmt.Errorf("footer lists %d row groups (the limit is %d)", len(md.RowGroups), MaxParquetRowGroups)
	}
	leaves := 0
	for _, s := range md.Schema {
		if n, ok := s.NumChildren.Get(); !ok || n == 0 {
			leaves++
		}
	}
	var rows int64
	var chunks []chunkRange
	for i, rg := range md.RowGroups {
		if rg.NumRows < 0 || rg.NumRows > MaxParquetRows {
			return fmt.Errorf("row group %d claims %d rows", i, rg.NumRows)
		}
		rows += rg.NumRows
		if len(rg.Columns) != leaves {
			return fmt.Errorf("row group %d has %d column chunks for %d columns", i, len(rg.Columns), leaves)
		}
		for j, c := range rg.Columns {
			m := c.MetaData
			begin := m.DataPageOffset
			if m.DictionaryPageOffset > 0 && m.DictionaryPageOffset < begin {
				begin = m.DictionaryPageOffset
			}
			if begin < 4 || m.TotalCompressedSize <= 0 || m.TotalCompressedSize > dataEnd-begin {
				return fmt.Errorf("row group %d column %d: chunk of %d bytes at offset %d is outside the data (bytes 4 to %d)", i, j, m.TotalCompressedSize, begin, dataEnd)
			}
			if m.DataPageOffset < begin || m.DataPageOffset >= begin+m.TotalCompressedSize {
				return fmt.Errorf("row group %d column %d: data page offset %d outside its chunk", i, j, m.DataPageOffset)
			}
			if m.NumValues < rg.NumRows || m.NumValues > MaxParquetValues {
				return fmt.Errorf("row group %d column %d: %d values for %d rows", i, j, m.NumValues, rg.NumRows)
			}
			if m.TotalUncompressedSize < 0 {
				return fmt.Errorf("row group %d column %d: uncompressed size %d", i, j, m.TotalUncompressedSize)
			}
			chunks = append(chunks, chunkRange{begin, begin + m.TotalCompressedSize, i, j})
		}
	}
	if rows != md.NumRows {
		return fmt.Errorf("footer claims %d rows, its row groups %d", md.NumRows, rows)
	}
	sort.Slice(chunks, func(a, b int) bool { return chunks[a].begin < chunks[b].begin })
	for k := 1; k < len(chunks); k++ {
		if p, c := chunks[k-1], chunks[k]; c.begin < p.end {
			return fmt.Errorf("row group %d column %d and row group %d column %d share bytes %d to %d", p.rg, p.col, c.rg, c.col, c.begin, min(p.end, c.end))
		}
	}
	return nil
}

// checkParquetPages reads the page headers of every column chunk of md
// (not the pages) and checks them against their chunk: each page lies in
// its chunk, is at most MaxParquetPageBytes compressed and uncompressed, a
// dictionary holds at most one value a byte of it, and the data pages hold
// the chunk's values.
func checkParquetPages(r io.ReaderAt, md *format.FileMetaData) error {
	hdr := make([]byte, 0, 4096)
	for i, rg := range md.RowGroups {
		for j, c := range rg.Columns {
			m := c.MetaData
			at := m.DataPageOffset
			if m.DictionaryPageOffset > 0 && m.DictionaryPageOffset < at {
				at = m.DictionaryPageOffset
			}
			end := at + m.TotalCompressedSize
			var values int64
			for at < end {
				n := min(end-at, maxPageHeaderBytes)
				if int64(cap(hdr)) < n {
					hdr = make([]byte, 0, n)
				}
				hdr = hdr[:n]
				if _, err := r.ReadAt(hdr, at); err != nil && !errors.Is(err, io.EOF) {
					return err
				}
				used, err := thriftBounded(hdr)
				if err != nil {
					return fmt.Errorf("row group %d column %d: page header at %d: %w", i, j, at, err)
				}
				var h format.PageHeader
				if err := thrift.Unmarshal(new(thrift.CompactProtocol), hdr[:used], &h); err != nil {
					return fmt.Errorf("row group %d column %d: page header at %d: %w", i, j, at, err)
				}
				at += int64(used)
				if h.CompressedPageSize < 0 || int64(h.CompressedPageSize) > end-at || h.CompressedPageSize > MaxParquetPageBytes ||
					h.UncompressedPageSize < 0 || h.UncompressedPageSize > MaxParquetPageBytes {
					return fmt.Errorf("row group %d column %d: page at %d claims %d bytes (%d uncompressed) where its chunk has %d left", i, j, at, h.CompressedPageSize, h.UncompressedPageSize, end-at)
				}
				switch {
				case h.DictionaryPageHeader.Valid:
					if n := h.DictionaryPageHeader.V.NumValues; n < 0 || n > h.UncompressedPageSize {
						return fmt.Errorf("row group %d column %d: dictionary page at %d claims %d values in %d bytes", i, j, at, n, h.UncompressedPageSize)
					}
				case h.DataPageHeader.Valid:
					values += int64(max(h.DataPageHeader.V.NumValues, 0))
				case h.DataPageHeaderV2.Valid:
					values += int64(max(h.DataPageHeaderV2.V.NumValues, 0))
				}
				if values > m.NumValues {
					return fmt.Errorf("row group %d column %d: pages hold more than the chunk's %d values", i, j, m.NumValues)
				}
				at += int64(h.CompressedPageSize)
			}
			if values != m.NumValues {
				return fmt.Errorf("row group %d column %d: pages hold %d values, the chunk claims %d", i, j, values, m.NumValues)
			}
		}
	}
	return nil
}

// thriftBounded walks one Thrift compact-protocol struct at the start of b
// without decoding it and gives its length: every length and list size
// must fit in the bytes left, the nesting is at most 64 deep, and the
// allocation a decoder would make from the sizes (thriftStructCost a
// struct in a list) stays under maxThriftAlloc.
func thriftBounded(b []byte) (int, error) {
	w := thriftWalk{b: b}
	if err := w.structure(0); err != nil {
		return 0, err
	}
	return w.at, nil
}

type thriftWalk struct {
	b     []byte
	at    int
	alloc int64
}

var errThrift = errors.New("truncated or corrupt metadata")

func (w *thriftWalk) byte1() (byte, error) {
	if w.at >= len(w.b) {
		return 0, errThrift
	}
	w.at++
	return w.b[w.at-1], nil
}

func (w *thriftWalk) uvarint() (uint64, error) {
	v, n := binary.Uvarint(w.b[w.at:])
	if n <= 0 {
		return 0, errThrift
	}
	w.at += n
	return v, nil
}

// take counts n elements of cost bytes each that need at least min bytes
// of input each.
func (w *thriftWalk) take(n uint64, minBytes int, cost int64) error {
	if n > uint64(len(w.b)-w.at)/uint64(minBytes) {
		return fmt.Errorf("a size of %d in %d bytes left", n, len(w.b)-w.at)
	}
	w.alloc += int64(n) * cost
	if w.alloc > maxThriftAlloc {
		return fmt.Errorf("sizes that would take over %d bytes", maxThriftAlloc)
	}
	return nil
}

func (w *thriftWalk) structure(depth int) error {
	if depth > 64 {
		return errors.New("metadata nested too deep")
	}
	for {
		h, err := w.byte1()
		if err != nil {
			return err
		}
		if h == 0 {
			return nil
		}
		if h>>4 == 0 { // the field id follows as a zigzag varint
			if _, err := w.uvarint(); err != nil {
				return err
			}
		}
		if t := h & 0x0f; t != 1 && t != 2 { // a bool field has no value
			if err := w.value(t, depth); err != nil {
				return err
			}
		}
	}
}

func (w *thriftWalk) value(t byte, depth int) error {
	switch t {
	case 1, 2, 3: // bool (in a list), byte
		_, err := w.byte1()
		return err
	case 4, 5, 6: // i16, i32, i64
		_, err := w.uvarint()
		return err
	case 7: // double
		if len(w.b)-w.at < 8 {
			return errThrift
		}
		w.at += 8
		return nil
	case 8: // binary
		n, err := w.uvarint()
		if err != nil {
			return err
		}
		if err := w.take(n, 1, 1); err != nil {
			return err
		}
		w.at += int(n)
		return nil
	case 9, 10: // list, set
		h, err := w.byte1()
		if err != nil {
			return err
		}
		n := uint64(h >> 4)
		if n == 15 {
			if n, err = w.uvarint(); err != nil {
				return err
			}
		}
		et := h & 0x0f
		cost := int64(24)
		if et == 12 {
			cost = thriftStructCost
		}
		if err := w.take(n, 1, cost); err != nil {
			return err
		}
		for range n {
			if err := w.value(et, depth+1); err != nil {
				return err
			}
		}
		return nil
	case 11: // map
		n, err := w.uvarint()
		if err != nil || n == 0 {
			return err
		}
		kv, err := w.byte1()
		if err != nil {
			return err
		}
		if err := w.take(n, 2, 2*thriftStructCost); err != nil {
			return err
		}
		for range n {
			if err := w.value(kv>>4, depth+1); err != nil {
				return err
			}
			if err := w.value(kv&0x0f, depth+1); err != nil {
				return err
			}
		}
		return nil
	case 12:
		return w.structure(depth + 1)
	}
	return fmt.Errorf("unknown metadata type %d", t)
}

package safetensors

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"

	"github.com/pats-rl/pats/lib/output"
)

// DType names an element type as the format spells it.
type DType string

// Element types this package handles.
const (
	F32  DType = "F32"
	BF16 DType = "BF16"
	F16  DType = "F16"
)

// Size is the number of bytes of one element, or 0 for an unknown type.
func (d DType) Size() int {
	switch d {
	case F32:
		return 4
	case BF16, F16:
		return 2
	}
	return 0
}

// Tensor is one stored tensor: its element type, shape and raw bytes.
type Tensor struct {
	DType DType
	Shape []int
	Data  []byte
}

// NumElements is the product of the shape (1 for a scalar).
func (t Tensor) NumElements() int {
	n := 1
	for _, s := range t.Shape {
		n *= s
	}
	return n
}

// Float32 converts the tensor's elements to float32.
func (t Tensor) Float32() ([]float32, error) {
	n := t.NumElements()
	if sz := t.DType.Size(); sz == 0 {
		return nil, fmt.Errorf("unsupported dtype %q", t.DType)
	} else if len(t.Data) != n*sz {
		return nil, fmt.Errorf("%d bytes for %d elements of %s", len(t.Data), n, t.DType)
	}
	out := make([]float32, n)
	d := t.Data
	switch t.DType {
	case F32:
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(d[4*i:]))
		}
	case BF16:
		for i := range out {
			out[i] = math.Float32frombits(uint32(binary.LittleEndian.Uint16(d[2*i:])) << 16)
		}
	case F16:
		for i := range out {
			out[i] = HalfToFloat32(binary.LittleEndian.Uint16(d[2*i:]))
		}
	}
	return out, nil
}

// HalfToFloat32 converts an IEEE 754 binary16 value to float32 exactly.
func HalfToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	man := uint32(h) & 0x3ff
	switch {
	case exp == 0 && man == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: man * 2^-24
		f := float32(man) * (1.0 / (1 << 24))
		if sign != 0 {
			f = -f
		}
		return f
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | man<<13)
}

// Float32ToHalf converts float32 to binary16, rounding to nearest even
// (values beyond the range become infinities).
func Float32ToHalf(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23) & 0xff
	man := b & 0x7fffff
	if exp == 0xff {
		if man != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	}
	e := exp - 127 + 15
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 {
		if e < -10 {
			return sign
		}
		man |= 0x800000
		shift := uint32(14 - e)
		half := man >> shift
		rem := man & (1<<shift - 1)
		mid := uint32(1) << (shift - 1)
		if rem > mid || (rem == mid && half&1 == 1) {
			half++
		}
		return sign | uint16(half)
	}
	half := uint32(e)<<10 | man>>13
	rem := man & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && half&1 == 1) {
		half++ // may carry into the exponent, which is the right result
	}
	return sign | uint16(half)
}

// Float32ToBF16 converts float32 to bfloat16, rounding to nearest even.
func Float32ToBF16(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 { // NaN: keep it a quiet NaN
		return uint16(b>>16) | 0x40
	}
	b += 0x7fff + (b>>16)&1
	return uint16(b >> 16)
}

type headerEntry struct {
	DType       DType    `json:"dtype"`
	Shape       []int    `json:"shape"`
	DataOffsets [2]int64 `json:"data_offsets"`
}

// MaxHeaderBytes bounds the JSON header of a safetensors file (100 MB, the
// format's own limit).
const MaxHeaderBytes = 100_000_000

// headerLen checks the header length n that the first 8 bytes of a file of
// size bytes give.
func headerLen(n uint64, size int64) error {
	if n > MaxHeaderBytes {
		return fmt.Errorf("safetensors: header length %d is over the limit of %d bytes", n, MaxHeaderBytes)
	}
	if n > uint64(size-8) {
		return fmt.Errorf("safetensors: header length %d exceeds file size %d", n, size)
	}
	return nil
}

// dataEnd decodes a header and gives the end of its data: the tensors'
// byte ranges must cover the data from 0 to that end exactly once (no
// overlap, no two tensors at the same offsets, no hole), as the format
// requires, so that no byte is read as two tensors.
func dataEnd(hdr []byte) (int64, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(hdr, &raw); err != nil {
		return 0, fmt.Errorf("safetensors: header: %v", err)
	}
	type span struct {
		name       string
		begin, end int64
	}
	spans := make([]span, 0, len(raw))
	for name, msg := range raw {
		if name == "__metadata__" {
			continue
		}
		var e headerEntry
		if err := json.Unmarshal(msg, &e); err != nil {
			return 0, fmt.Errorf("safetensors: tensor %q: %v", name, err)
		}
		b, end := e.DataOffsets[0], e.DataOffsets[1]
		if b < 0 || end < b {
			return 0, fmt.Errorf("safetensors: tensor %q: offsets [%d,%d) are not a byte range", name, b, end)
		}
		spans = append(spans, span{name, b, end})
	}
	sort.Slice(spans, func(i, j int) bool {
		if spans[i].begin != spans[j].begin {
			return spans[i].begin < spans[j].begin
		}
		if spans[i].end != spans[j].end {
			return spans[i].end < spans[j].end
		}
		return spans[i].name < spans[j].name
	})
	var at int64
	for i, s := range spans {
		switch {
		case s.begin < at:
			return 0, fmt.Errorf("safetensors: tensors %q and %q overlap (offsets [%d,%d) and [%d,%d))", spans[i-1].name, s.name, spans[i-1].begin, spans[i-1].end, s.begin, s.end)
		case s.begin > at:
			return 0, fmt.Errorf("safetensors: no tensor holds data bytes [%d,%d) (a hole before tensor %q)", at, s.begin, s.name)
		}
		at = s.end
	}
	return at, nil
}

// Parse decodes a whole safetensors file held in memory. Tensor data
// aliases buf.
func Parse(buf []byte) (map[string]Tensor, map[string]string, error) {
	if len(buf) < 8 {
		return nil, nil, fmt.Errorf("safetensors: file of %d bytes has no header", len(buf))
	}
	n := binary.LittleEndian.Uint64(buf)
	if err := headerLen(n, int64(len(buf))); err != nil {
		return nil, nil, err
	}
	data := buf[8+n:]
	tensors, meta, spans, err := decodeHeader(buf[8:8+n], int64(len(data)))
	if err != nil {
		return nil, nil, err
	}
	for name, t := range tensors {
		t.Data = data[spans[name][0]:spans[name][1]]
		tensors[name] = t
	}
	return tensors, meta, nil
}

// decodeHeader checks a header against the size of the data after it
// (the tensors tile the data exactly; each tensor's byte range is what
// its shape and element type need) and decodes the tensors without their
// data, with each one's byte range in the data.
func decodeHeader(hdr []byte, dataLen int64) (map[string]Tensor, map[string]string, map[string][2]int64, error) {
	end, err := dataEnd(hdr)
	if err != nil {
		return nil, nil, nil, err
	}
	if end != dataLen {
		return nil, nil, nil, fmt.Errorf("safetensors: tensors hold %d data bytes, the file has %d", end, dataLen)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(hdr, &raw); err != nil {
		return nil, nil, nil, fmt.Errorf("safetensors: header: %v", err)
	}
	tensors := make(map[string]Tensor, len(raw))
	spans := make(map[string][2]int64, len(raw))
	var meta map[string]string
	for name, msg := range raw {
		if name == "__metadata__" {
			if err := json.Unmarshal(msg, &meta); err != nil {
				return nil, nil, nil, fmt.Errorf("safetensors: __metadata__: %v", err)
			}
			continue
		}
		var e headerEntry
		if err := json.Unmarshal(msg, &e); err != nil {
			return nil, nil, nil, fmt.Errorf("safetensors: tensor %q: %v", name, err)
		}
		b, end := e.DataOffsets[0], e.DataOffsets[1]
		if b < 0 || end < b || end > dataLen {
			return nil, nil, nil, fmt.Errorf("safetensors: tensor %q: offsets [%d,%d) outside data of %d bytes", name, b, end, dataLen)
		}
		elems := int64(1)
		for _, d := range e.Shape {
			if d < 0 || d > 0 && elems > dataLen/int64(d) {
				return nil, nil, nil, fmt.Errorf("safetensors: tensor %q: shape %v does not fit the file's %d data bytes", name, e.Shape, dataLen)
			}
			elems *= int64(d)
		}
		if sz := int64(e.DType.Size()); sz != 0 && elems*sz != end-b {
			return nil, nil, nil, fmt.Errorf("safetensors: tensor %q: shape %v of %s needs %d bytes, has %d", name, e.Shape, e.DType, elems*sz, end-b)
		}
		tensors[name] = Tensor{DType: e.DType, Shape: e.Shape}
		spans[name] = [2]int64{b, end}
	}
	return tensors, meta, spans, nil
}

// ReadFile reads one safetensors file: its header first, and the data only
// when the file's size is what the header's tensors need (a longer file, a
// sparse tail, is refused before its data is read).
func ReadFile(path string) (map[string]Tensor, map[string]string, error) {
	buf, err := readChecked(path)
	if err != nil {
		return nil, nil, err
	}
	t, m, err := Parse(buf)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, m, nil
}

// IndexName is the file name of a sharded checkpoint's index.
const IndexName = "model.safetensors.index.json"

// SingleName is the file name of an unsharded checkpoint.
const SingleName = "model.safetensors"

// Index is the JSON index of a sharded checkpoint.
type Index struct {
	Metadata  map[string]any    `json:"metadata"`
	WeightMap map[string]string `json:"weight_map"`
}

// ReadDir reads the tensors of a checkpoint folder: model.safetensors if
// present, else the shards named by model.safetensors.index.json, all of
// them checked first (ReadLayout).
func ReadDir(dir string) (map[string]Tensor, error) {
	l, err := ReadLayout(dir)
	if err != nil {
		return nil, err
	}
	out := make(map[string]Tensor, len(l.Tensors))
	for _, h := range l.Files {
		ts, _, err := ReadFile(h.Path)
		if err != nil {
			return nil, err
		}
		base := filepath.Base(h.Path)
		for name, t := range ts {
			if l.From[name] == base {
				out[name] = t
			}
		}
	}
	for name, f := range l.From {
		if _, ok := out[name]; !ok {
			return nil, fmt.Errorf("%s: tensor %q is not in shard %s", l.Index, name, f)
		}
	}
	return out, nil
}

// readChecked reads a safetensors file whole after checking its header
// against the file's size.
func readChecked(path string) ([]byte, error) {
	f, h, raw, err := openHeader(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, h.Size)
	binary.LittleEndian.PutUint64(buf, uint64(len(raw)))
	copy(buf[8:], raw)
	if _, err := io.ReadFull(f, buf[8+len(raw):]); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return buf, nil
}

// MaxSideFileBytes bounds the side files of a checkpoint that are read
// whole (an index, a config, a tokenizer.json, an optimizer record):
// 256 MiB.
const MaxSideFileBytes = 256 << 20

// ReadRegular reads the file at path (following links) when it is a
// regular file of at most MaxSideFileBytes, so that a checkpoint's side
// files are read with a bound: a link to a device such as /dev/zero, a
// FIFO, a folder or a larger file is refused before anything is read.
func ReadRegular(path string) ([]byte, error) {
	return output.ReadFile(path, MaxSideFileBytes)
}

package safetensors

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
)

// Named is a float32 tensor to write.
type Named struct {
	Name  string
	Shape []int
	Data  []float32
}

// Encode returns the bytes of a safetensors file holding ts in the given
// order, stored as dtype (F32, BF16 or F16).
func Encode(ts []Named, meta map[string]string, dtype DType) ([]byte, error) {
	sz := dtype.Size()
	if sz == 0 {
		return nil, fmt.Errorf("safetensors: cannot write dtype %q", dtype)
	}
	header := map[string]any{}
	if len(meta) > 0 {
		header["__metadata__"] = meta
	}
	var off int64
	seen := map[string]bool{}
	for _, t := range ts {
		if seen[t.Name] || t.Name == "__metadata__" {
			return nil, fmt.Errorf("safetensors: duplicate or reserved tensor name %q", t.Name)
		}
		seen[t.Name] = true
		n := 1
		for _, s := range t.Shape {
			n *= s
		}
		if n != len(t.Data) {
			return nil, fmt.Errorf("safetensors: tensor %q: shape %v has %d elements, data %d", t.Name, t.Shape, n, len(t.Data))
		}
		shape := t.Shape
		if shape == nil {
			shape = []int{}
		}
		end := off + int64(n*sz)
		header[t.Name] = headerEntry{DType: dtype, Shape: shape, DataOffsets: [2]int64{off, end}}
		off = end
	}
	hb, err := json.Marshal(header)
	if err != nil {
		return nil, err
	}
	for len(hb)%8 != 0 {
		hb = append(hb, ' ')
	}
	buf := make([]byte, 8, 8+len(hb)+int(off))
	binary.LittleEndian.PutUint64(buf, uint64(len(hb)))
	buf = append(buf, hb...)
	for _, t := range ts {
		for _, v := range t.Data {
			switch dtype {
			case F32:
				buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
			case BF16:
				buf = binary.LittleEndian.AppendUint16(buf, Float32ToBF16(v))
			case F16:
				buf = binary.LittleEndian.AppendUint16(buf, Float32ToHalf(v))
			}
		}
	}
	return buf, nil
}

// WriteFile writes ts to path as one safetensors file and syncs it. It
// does not rename: callers wanting atomicity write into a temporary folder.
func WriteFile(path string, ts []Named, meta map[string]string, dtype DType) error {
	b, err := Encode(ts, meta, dtype)
	if err != nil {
		return err
	}
	return writeSynced(path, b)
}

// WriteShards writes ts into dir as shards of at most maxBytes of tensor
// data each (a tensor larger than maxBytes gets a shard of its own), named
// model-0000i-of-0000n.safetensors, plus the index. With one shard it still
// writes the sharded layout.
func WriteShards(dir string, ts []Named, meta map[string]string, dtype DType, maxBytes int64) error {
	sz := int64(dtype.Size())
	if sz == 0 {
		return fmt.Errorf("safetensors: cannot write dtype %q", dtype)
	}
	var groups [][]Named
	var cur []Named
	var curBytes, total int64
	for _, t := range ts {
		b := int64(len(t.Data)) * sz
		total += b
		if len(cur) > 0 && curBytes+b > maxBytes {
			groups = append(groups, cur)
			cur, curBytes = nil, 0
		}
		cur = append(cur, t)
		curBytes += b
	}
	if len(cur) > 0 || len(groups) == 0 {
		groups = append(groups, cur)
	}
	idx := Index{Metadata: map[string]any{"total_size": total}, WeightMap: map[string]string{}}
	for i, g := range groups {
		name := fmt.Sprintf("model-%05d-of-%05d.safetensors", i+1, len(groups))
		if err := WriteFile(filepath.Join(dir, name), g, meta, dtype); err != nil {
			return err
		}
		for _, t := range g {
			idx.WeightMap[t.Name] = name
		}
	}
	ib, err := json.MarshalIndent(idx, "", "  ")
	if err != nil {
		return err
	}
	return writeSynced(filepath.Join(dir, IndexName), append(ib, '\n'))
}

func writeSynced(path string, b []byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if _, err := w.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

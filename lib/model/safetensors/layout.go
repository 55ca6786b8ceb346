package safetensors

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/pats-rl/pats/lib/output"
)

// Header is a safetensors file checked before its data is read: a regular
// file whose header fits it, whose tensors tile its data exactly, each of
// the bytes its shape and element type need.
type Header struct {
	Path    string
	Size    int64             // the file's size: 8 bytes, the header, the data
	Tensors map[string]Tensor // element types and shapes; Data is nil
}

// ReadHeader checks the safetensors file at path (see Header) reading
// only its header: a FIFO, a device, a file longer or shorter than its
// header says (a sparse tail included) is refused before any data is read.
func ReadHeader(path string) (*Header, error) {
	f, h, _, err := openHeader(path)
	if err != nil {
		return nil, err
	}
	f.Close()
	return h, nil
}

// openHeader opens path as ReadHeader checks it and gives the file, its
// position after the header, and the raw header.
func openHeader(path string) (*os.File, *Header, []byte, error) {
	f, st, err := output.OpenRegular(path)
	if err != nil {
		return nil, nil, nil, err
	}
	h, raw, err := readHeader(f, path, st.Size())
	if err != nil {
		f.Close()
		return nil, nil, nil, err
	}
	return f, h, raw, nil
}

func readHeader(f io.Reader, path string, size int64) (*Header, []byte, error) {
	if size < 8 {
		return nil, nil, fmt.Errorf("%s: safetensors: file of %d bytes has no header", path, size)
	}
	var head [8]byte
	if _, err := io.ReadFull(f, head[:]); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	n := binary.LittleEndian.Uint64(head[:])
	if err := headerLen(n, size); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	raw := make([]byte, n)
	if _, err := io.ReadFull(f, raw); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	ts, _, _, err := decodeHeader(raw, size-8-int64(n))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return &Header{Path: path, Size: size, Tensors: ts}, raw, nil
}

// Layout is a checkpoint folder's weights checked before any tensor's
// data is read: model.safetensors, or the shard index and every shard it
// names. It is what every reader of a checkpoint's weights (loading them,
// hashing them) checks first.
type Layout struct {
	// Index is the shard index's path and IndexBytes its content; "" and
	// nil for a single file.
	Index      string
	IndexBytes []byte
	// Files are the weight files (one, or the shards sorted by name).
	Files []*Header
	// Tensors are the element types and shapes of the folder's tensors:
	// of a sharded folder, each one the index names, from its shard.
	Tensors map[string]Tensor
	// From names the file of each tensor (the index's weight_map).
	From map[string]string
}

// DataBytes is the size of the weight files together.
func (l *Layout) DataBytes() int64 {
	var n int64
	for _, f := range l.Files {
		n += f.Size
	}
	return n
}

// ReadLayout checks the weights of the checkpoint folder dir: its
// model.safetensors if there is one (of any kind: a link to a device or a
// FIFO is refused, not skipped), else the shard index (a regular file of
// at most MaxSideFileBytes) and every shard it names, which must be a
// plain file name in dir (no folder, no "..") holding the tensors the
// index says it holds.
func ReadLayout(dir string) (*Layout, error) {
	single := filepath.Join(dir, SingleName)
	if _, err := os.Lstat(single); err == nil {
		h, err := ReadHeader(single)
		if err != nil {
			return nil, err
		}
		from := make(map[string]string, len(h.Tensors))
		for name := range h.Tensors {
			from[name] = SingleName
		}
		return &Layout{Files: []*Header{h}, Tensors: h.Tensors, From: from}, nil
	}
	idxPath := filepath.Join(dir, IndexName)
	b, err := ReadRegular(idxPath)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("%s: neither %s nor %s found", dir, SingleName, IndexName)
		}
		return nil, err
	}
	var idx Index
	if err := json.Unmarshal(b, &idx); err != nil {
		return nil, fmt.Errorf("%s: %v", idxPath, err)
	}
	if len(idx.WeightMap) == 0 {
		return nil, fmt.Errorf("%s: weight_map names no tensor", idxPath)
	}
	files := map[string]bool{}
	for _, f := range idx.WeightMap {
		if f == "" || f == "." || f == ".." || filepath.Base(f) != f {
			return nil, fmt.Errorf("%s: shard name %q is not a plain file name", idxPath, f)
		}
		files[f] = true
	}
	names := make([]string, 0, len(files))
	for f := range files {
		names = append(names, f)
	}
	sort.Strings(names)
	l := &Layout{Index: idxPath, IndexBytes: b, Tensors: map[string]Tensor{}, From: idx.WeightMap}
	byName := map[string]*Header{}
	for _, f := range names {
		h, err := ReadHeader(filepath.Join(dir, f))
		if err != nil {
			return nil, err
		}
		l.Files = append(l.Files, h)
		byName[f] = h
	}
	for name, f := range idx.WeightMap {
		t, ok := byName[f].Tensors[name]
		if !ok {
			return nil, fmt.Errorf("%s: tensor %q is not in shard %s", idxPath, name, f)
		}
		l.Tensors[name] = t
	}
	return l, nil
}

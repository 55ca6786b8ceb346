package model

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pats-rl/pats/lib/model/safetensors"
)

// TestParamShapesMatchAlloc keeps checkFolder's list of tensors the one
// alloc makes.
func TestParamShapesMatchAlloc(t *testing.T) {
	for _, tied := range []bool{false, true} {
		cfg := testConfig(tied)
		m, err := New(cfg, 1)
		if err != nil {
			t.Fatal(err)
		}
		want := m.Params()
		got := paramShapes(cfg)
		if len(got) != len(want) {
			t.Fatalf("tied=%v: %d shapes, alloc makes %d tensors", tied, len(got), len(want))
		}
		for i := range got {
			if got[i].Name != want[i].Name || !slices.Equal(got[i].Shape, want[i].Shape) {
				t.Errorf("tied=%v: shape %d is %s %v, alloc's %s %v", tied, i, got[i].Name, got[i].Shape, want[i].Name, want[i].Shape)
			}
		}
	}
}

// TestWeightsHashFormat pins the hash a rollout records: the SHA-256 of
// config.json and model.safetensors (or the index and the shards, sorted),
// each after its name and a NUL byte.
func TestWeightsHashFormat(t *testing.T) {
	m := randomModel(t, testConfig(false), 3)
	for _, shard := range []int64{0, 3000} {
		dir := t.TempDir()
		if err := m.SaveWith(dir, nil, SaveOptions{ShardBytes: shard}); err != nil {
			t.Fatal(err)
		}
		names := []string{ConfigFile, safetensors.SingleName}
		if shard > 0 {
			ents, _ := filepath.Glob(filepath.Join(dir, "model-*.safetensors"))
			if len(ents) < 2 {
				t.Fatalf("want shards, have %v", ents)
			}
			names = []string{ConfigFile, safetensors.IndexName}
			for _, e := range ents {
				names = append(names, filepath.Base(e))
			}
			slices.Sort(names[2:])
		}
		h := sha256.New()
		for _, n := range names {
			b, err := os.ReadFile(filepath.Join(dir, n))
			if err != nil {
				t.Fatal(err)
			}
			h.Write([]byte(n + "\x00"))
			h.Write(b)
		}
		want := hex.EncodeToString(h.Sum(nil)[:16])
		got, err := WeightsHash(dir)
		if err != nil || got != want {
			t.Errorf("shards of %d bytes: WeightsHash = %q, %v; want %q", shard, got, err, want)
		}
	}
}

// TestCheckpointReadersRefuseHostileFolders holds every reader of a
// checkpoint's weights (Load, OpenFolder, and WeightsHash, the one path of
// a served policy's folder) to the same checks: a weight file linked to
// a device or a FIFO, a shard index naming files outside the folder, a
// sparse tail or a sparse extra tensor, and a config.json whose
// vocab_size is not the embedding's rows are each refused with one line,
// before anything is read past a header.
func TestCheckpointReadersRefuseHostileFolders(t *testing.T) {
	cfg := testConfig(false)
	m := randomModel(t, cfg, 1)
	save := func(t *testing.T, shard int64) string {
		dir := t.TempDir()
		if err := m.SaveWith(dir, []byte(`{"model":{"type":"WordLevel","vocab":{"a":0},"unk_token":"a"}}`), SaveOptions{ShardBytes: shard}); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	single := filepath.Join(safetensors.SingleName)
	index := func(t *testing.T, dir string, shard string) {
		b, err := os.ReadFile(filepath.Join(dir, safetensors.IndexName))
		if err != nil {
			t.Fatal(err)
		}
		var idx safetensors.Index
		if err := json.Unmarshal(b, &idx); err != nil {
			t.Fatal(err)
		}
		for name := range idx.WeightMap {
			idx.WeightMap[name] = shard
			break
		}
		b, _ = json.Marshal(idx)
		if err := os.WriteFile(filepath.Join(dir, safetensors.IndexName), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name  string
		make  func(t *testing.T) string
		want  string
		fifos []string // FIFOs a hanging reader waits on (opened to end the test)
	}{
		{"weights linked to /dev/zero", func(t *testing.T) string {
			dir := save(t, 0)
			os.Remove(filepath.Join(dir, single))
			if err := os.Symlink("/dev/zero", filepath.Join(dir, single)); err != nil {
				t.Fatal(err)
			}
			return dir
		}, "not a regular file but a device", nil},
		{"weights a FIFO", func(t *testing.T) string {
			dir := save(t, 0)
			os.Remove(filepath.Join(dir, single))
			if err := syscall.Mkfifo(filepath.Join(dir, single), 0o644); err != nil {
				t.Fatal(err)
			}
			return dir
		}, "not a regular file but a FIFO", []string{single}},
		{"shard index naming ../../dev/zero", func(t *testing.T) string {
			dir := save(t, 3000)
			index(t, dir, "../../dev/zero")
			return dir
		}, "is not a plain file name", nil},
		{"shard index naming ../../etc/passwd", func(t *testing.T) string {
			dir := save(t, 3000)
			index(t, dir, "../../etc/passwd")
			return dir
		}, "is not a plain file name", nil},
		{"shard a FIFO", func(t *testing.T) string {
			dir := save(t, 3000)
			index(t, dir, "fifo.safetensors")
			if err := syscall.Mkfifo(filepath.Join(dir, "fifo.safetensors"), 0o644); err != nil {
				t.Fatal(err)
			}
			return dir
		}, "not a regular file but a FIFO", []string{"fifo.safetensors"}},
		{"sparse tail of 6 GB", func(t *testing.T) string {
			dir := save(t, 0)
			if err := os.Truncate(filepath.Join(dir, single), 6<<30); err != nil {
				t.Fatal(err)
			}
			return dir
		}, "data bytes, the file has", nil},
		{"sparse extra tensor", func(t *testing.T) string {
			dir := save(t, 0)
			p := filepath.Join(dir, single)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			n := binary.LittleEndian.Uint64(b)
			var hdr map[string]any
			if err := json.Unmarshal(b[8:8+n], &hdr); err != nil {
				t.Fatal(err)
			}
			data := int64(len(b)) - 8 - int64(n)
			extra := int64(256 << 20)
			hdr["junk"] = map[string]any{"dtype": "U8", "shape": []int{int(extra)}, "data_offsets": []int64{data, data + extra}}
			h, _ := json.Marshal(hdr)
			out := binary.LittleEndian.AppendUint64(nil, uint64(len(h)))
			out = append(append(out, h...), b[8+n:]...)
			if err := os.WriteFile(p, out, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(p, int64(len(out))+extra); err != nil {
				t.Fatal(err)
			}
			return dir
		}, "more than the", nil},
		{"vocab_size 2,000,000 over the embedding's rows", func(t *testing.T) string {
			dir := save(t, 0)
			c := cfg
			c.VocabSize = 2_000_000
			b, _ := json.Marshal(c)
			if err := os.WriteFile(filepath.Join(dir, ConfigFile), b, 0o644); err != nil {
				t.Fatal(err)
			}
			return dir
		}, "model.embed_tokens.weight has shape", nil},
	}
	readers := []struct {
		name string
		read func(dir string) error
	}{
		{"Load", func(dir string) error { _, err := Load(dir); return err }},
		{"OpenFolder", func(dir string) error { _, err := OpenFolder(dir); return err }},
		{"WeightsHash", func(dir string) error { _, err := WeightsHash(dir); return err }},
	}
	for _, c := range cases {
		for _, r := range readers {
			t.Run(c.name+"/"+r.name, func(t *testing.T) {
				dir := c.make(t)
				done := make(chan error, 1)
				go func() { done <- r.read(dir) }()
				select {
				case err := <-done:
					if err == nil || !strings.Contains(err.Error(), c.want) {
						t.Errorf("%s = %v, want an error saying %q", r.name, err, c.want)
					} else if strings.Contains(err.Error(), "\n") {
						t.Errorf("%s: error of more than one line: %q", r.name, err)
					}
				case <-time.After(20 * time.Second):
					for _, f := range c.fifos {
						if w, err := os.OpenFile(filepath.Join(dir, f), os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
							w.Close()
						}
					}
					// A reader of /dev/zero never ends: it is left to the
					// test binary's exit.
					t.Errorf("%s still reading after 20 s", r.name)
				}
			})
		}
	}
}

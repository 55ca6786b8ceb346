package model

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/pats-rl/pats/lib/model/safetensors"
)

// File names inside a checkpoint folder.
const (
	ConfigFile        = "config.json"
	TokenizerFile     = "tokenizer.json"
	OptimizerFile     = "optimizer.safetensors"
	OptimizerJSONFile = "optimizer.json"
)

// SaveOptions controls SaveWith.
type SaveOptions struct {
	// Optimizer, when set, is saved beside the weights (always F32).
	Optimizer *AdamW
	// DType of the weights: safetensors.F32 (default) or safetensors.BF16.
	DType safetensors.DType
	// ShardBytes > 0 writes the weights as shards of at most that many
	// bytes with model.safetensors.index.json instead of model.safetensors.
	ShardBytes int64
	// Files are written into the folder as they are (name -> bytes): the
	// tokenizer and generation files a checkpoint carries over unchanged.
	Files map[string][]byte
}

// Save writes m as a Hugging Face checkpoint folder (config.json,
// model.safetensors in F32, and tokenizer.json when tokenizerJSON is not
// nil). See SaveWith.
func (m *Model) Save(dir string, tokenizerJSON []byte) error {
	return m.SaveWith(dir, tokenizerJSON, SaveOptions{})
}

// SaveWith writes the checkpoint folder dir atomically: everything is
// written and synced in a temporary folder beside dir, which is then
// renamed to dir (an existing dir is replaced). On error nothing is left.
func (m *Model) SaveWith(dir string, tokenizerJSON []byte, o SaveOptions) error {
	if o.DType == "" {
		o.DType = safetensors.F32
	}
	if o.DType != safetensors.F32 && o.DType != safetensors.BF16 {
		return fmt.Errorf("save %s: weights dtype %q (want F32 or BF16)", dir, o.DType)
	}
	return atomicDir(dir, func(tmp string) error {
		cfg := m.Cfg
		cfg.Architectures = []string{"Qwen2ForCausalLM"}
		cfg.ModelType = "qwen2"
		cfg.TorchDtype = "float32"
		if o.DType == safetensors.BF16 {
			cfg.TorchDtype = "bfloat16"
		}
		cb, err := json.MarshalIndent(cfg, "", "  ")
		if err != nil {
			return err
		}
		if err := writeFile(filepath.Join(tmp, ConfigFile), append(cb, '\n')); err != nil {
			return err
		}
		if tokenizerJSON != nil {
			if err := writeFile(filepath.Join(tmp, TokenizerFile), tokenizerJSON); err != nil {
				return err
			}
		}
		names := make([]string, 0, len(o.Files))
		for name := range o.Files {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			if name == ConfigFile || name == TokenizerFile || filepath.Base(name) != name {
				return fmt.Errorf("file %q cannot be carried over", name)
			}
			if err := writeFile(filepath.Join(tmp, name), o.Files[name]); err != nil {
				return err
			}
		}
		ts := make([]safetensors.Named, len(m.params))
		for i, p := range m.params {
			ts[i] = safetensors.Named{Name: p.Name, Shape: p.Shape, Data: p.W}
		}
		meta := map[string]string{"format": "pt"}
		if o.ShardBytes > 0 {
			err = safetensors.WriteShards(tmp, ts, meta, o.DType, o.ShardBytes)
		} else {
			err = safetensors.WriteFile(filepath.Join(tmp, safetensors.SingleName), ts, meta, o.DType)
		}
		if err != nil {
			return err
		}
		if o.Optimizer != nil {
			return o.Optimizer.save(tmp)
		}
		return nil
	})
}

type optimizerJSON struct {
	Step        int     `json:"step"`
	Beta1       float64 `json:"beta1"`
	Beta2       float64 `json:"beta2"`
	Eps         float64 `json:"eps"`
	WeightDecay float64 `json:"weight_decay"`
}

func (o *AdamW) save(dir string) error {
	var ts []safetensors.Named
	for i, p := range o.model.params {
		ts = append(ts,
			safetensors.Named{Name: p.Name + ".exp_avg", Shape: p.Shape, Data: o.M[i]},
			safetensors.Named{Name: p.Name + ".exp_avg_sq", Shape: p.Shape, Data: o.V[i]})
	}
	if err := safetensors.WriteFile(filepath.Join(dir, OptimizerFile), ts, nil, safetensors.F32); err != nil {
		return err
	}
	b, err := json.MarshalIndent(optimizerJSON{o.StepN, o.Cfg.Beta1, o.Cfg.Beta2, o.Cfg.Eps, o.Cfg.WeightDecay}, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, OptimizerJSONFile), append(b, '\n'))
}

// Load reads a checkpoint folder: config.json and the weights
// (model.safetensors, or shards with model.safetensors.index.json) in F32,
// BF16 or F16. A tied model ignores a stored lm_head.weight; unknown
// tensors (such as rotary inv_freq buffers) are ignored; a missing or
// misshapen tensor is an error.
func Load(dir string) (*Model, error) {
	cfg, err := LoadConfig(filepath.Join(dir, ConfigFile))
	if err != nil {
		return nil, err
	}
	m, err := alloc(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	ts, err := safetensors.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, p := range m.params {
		t, ok := ts[p.Name]
		if !ok {
			return nil, fmt.Errorf("%s: tensor %s missing", dir, p.Name)
		}
		if !slices.Equal(t.Shape, p.Shape) {
			return nil, fmt.Errorf("%s: tensor %s has shape %v, config wants %v", dir, p.Name, t.Shape, p.Shape)
		}
		w, err := t.Float32()
		if err != nil {
			return nil, fmt.Errorf("%s: tensor %s: %w", dir, p.Name, err)
		}
		p.W = w
	}
	return m, nil
}

// LoadAdamW reads the optimizer state saved beside a checkpoint for m. A
// checkpoint without one gives an error wrapping os.ErrNotExist.
func LoadAdamW(dir string, m *Model) (*AdamW, error) {
	b, err := os.ReadFile(filepath.Join(dir, OptimizerJSONFile))
	if err != nil {
		return nil, err
	}
	var oj optimizerJSON
	if err := json.Unmarshal(b, &oj); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, OptimizerJSONFile), err)
	}
	path := filepath.Join(dir, OptimizerFile)
	ts, _, err := safetensors.ReadFile(path)
	if err != nil {
		return nil, err
	}
	o := &AdamW{Cfg: AdamWConfig{oj.Beta1, oj.Beta2, oj.Eps, oj.WeightDecay}, StepN: oj.Step, model: m}
	for _, p := range m.params {
		for _, suf := range []string{".exp_avg", ".exp_avg_sq"} {
			t, ok := ts[p.Name+suf]
			if !ok || !slices.Equal(t.Shape, p.Shape) {
				return nil, fmt.Errorf("%s: %s%s missing or misshapen", path, p.Name, suf)
			}
			w, err := t.Float32()
			if err != nil {
				return nil, fmt.Errorf("%s: %s%s: %w", path, p.Name, suf, err)
			}
			if suf == ".exp_avg" {
				o.M = append(o.M, w)
			} else {
				o.V = append(o.V, w)
			}
		}
	}
	return o, nil
}

func writeFile(path string, b []byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// atomicDir runs fill on a fresh temporary folder beside dir and renames
// it to dir. An existing dir is moved aside first and removed after the
// new one is in place (restored if the rename fails).
func atomicDir(dir string, fill func(tmp string) error) (err error) {
	dir = filepath.Clean(dir)
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".tmp-")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
			err = fmt.Errorf("save %s: %w", dir, err)
		}
	}()
	if err = fill(tmp); err != nil {
		return err
	}
	if err = os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	var old string
	if _, statErr := os.Lstat(dir); statErr == nil {
		old = tmp + ".old"
		if err = os.Rename(dir, old); err != nil {
			return err
		}
	}
	if err = os.Rename(tmp, dir); err != nil {
		if old != "" {
			os.Rename(old, dir)
		}
		return err
	}
	if old != "" {
		os.RemoveAll(old)
	}
	if d, e := os.Open(parent); e == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

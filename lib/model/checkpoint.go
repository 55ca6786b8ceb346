package model

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/pats-rl/pats/lib/model/safetensors"
	"github.com/pats-rl/pats/lib/output"
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
	if err := output.WriteDir(dir, m.fill(tokenizerJSON, o)); err != nil {
		return fmt.Errorf("save %s: %w", dir, err)
	}
	return nil
}

// StageSave writes the checkpoint folder dir as one output of the run u
// (see output.Unit): complete in a temporary folder now, in place at
// u.Commit.
func (m *Model) StageSave(u *output.Unit, dir string, tokenizerJSON []byte, o SaveOptions) error {
	if o.DType == "" {
		o.DType = safetensors.F32
	}
	if o.DType != safetensors.F32 && o.DType != safetensors.BF16 {
		return fmt.Errorf("save %s: weights dtype %q (want F32 or BF16)", dir, o.DType)
	}
	if err := u.Dir(dir, m.fill(tokenizerJSON, o)); err != nil {
		return fmt.Errorf("save %s: %w", dir, err)
	}
	return nil
}

// fill writes the checkpoint's files into the folder tmp.
func (m *Model) fill(tokenizerJSON []byte, o SaveOptions) func(tmp string) error {
	return func(tmp string) error {
		if err := m.Sync(); err != nil {
			return err
		}
		if o.Optimizer != nil {
			if err := o.Optimizer.Sync(); err != nil {
				return err
			}
		}
		if m.lora != nil { // issue 60: an adapter is saved in PEFT's layout, without its base
			return m.fillAdapter(tmp, tokenizerJSON, o)
		}
		cfg := m.Cfg
		if cfg.ModelType == "" {
			cfg.ModelType = Qwen2
		}
		cfg.Architectures = []string{architecture(cfg.ModelType)}
		if cfg.QKNorm() { // Qwen3 (issue 60): its config.json states both
			noBias := false
			cfg.AttentionBias = &noBias
			cfg.HeadDimension = cfg.HeadDim()
		}
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
		if err := writeCarried(tmp, tokenizerJSON, o.Files, ConfigFile); err != nil {
			return err
		}
		ts, err := finiteNamed(m.params)
		if err != nil {
			return err
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
	}
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
	for i, p := range o.model.Trainable() { // issue 60: the adapter's only under LoRA
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
//
// The configuration is checked against the tensors' shapes and against
// the machine's memory before the model is allocated. A folder that a
// kill left missing in the middle of a replacement is restored first
// (output.Recover). An adapter folder (IsAdapter) loads as its base with
// the adapter attached (lora_checkpoint.go).
func Load(dir string) (*Model, error) {
	output.Recover(dir)
	if IsAdapter(dir) { // issue 60: an adapter folder loads its base with the adapter attached
		return loadAdapter(dir)
	}
	cfg, _, _, err := checkFolder(dir)
	if err != nil {
		return nil, err
	}
	ts, err := safetensors.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	m, err := alloc(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
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
		if j := nonFinite(w); j >= 0 {
			return nil, fmt.Errorf("%s: tensor %s holds %v at %d (weights must be finite)", dir, p.Name, w[j], j)
		}
		p.W = w
	}
	return m, nil
}

// nonFinite returns the index of the first NaN or infinity in w, or -1.
func nonFinite(w []float32) int {
	for i, x := range w {
		if x-x != 0 {
			return i
		}
	}
	return -1
}

// check refuses optimizer constants that make a step non-finite or
// meaningless: a negative step count, a beta outside [0, 1), an eps that
// is not positive, a weight decay outside [0, MaxWeightDecay].
func (oj optimizerJSON) check() error {
	fin := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case oj.Step < 0:
		return fmt.Errorf("step %d is negative", oj.Step)
	case !fin(oj.Beta1) || oj.Beta1 < 0 || oj.Beta1 >= 1:
		return fmt.Errorf("beta1 %v is outside [0, 1)", oj.Beta1)
	case !fin(oj.Beta2) || oj.Beta2 < 0 || oj.Beta2 >= 1:
		return fmt.Errorf("beta2 %v is outside [0, 1)", oj.Beta2)
	case !fin(oj.Eps) || oj.Eps <= 0:
		return fmt.Errorf("eps %v is not positive", oj.Eps)
	case !(oj.WeightDecay >= 0 && oj.WeightDecay <= MaxWeightDecay):
		return fmt.Errorf("weight_decay %v is outside [0, %v]", oj.WeightDecay, MaxWeightDecay)
	}
	return nil
}

// checkQwenGeneration refuses weights of the other Qwen generation than
// config.json's model_type (issue 60): Qwen3 weights (q_norm, no q/k/v
// biases) under a qwen2 config.json, Qwen2 weights (biases) under a qwen3
// one, and Qwen3 head norms that are not head_dim wide.
func checkQwenGeneration(c Config, ts map[string]safetensors.Tensor) error {
	const qn, qb = "model.layers.0.self_attn.q_norm.weight", "model.layers.0.self_attn.q_proj.bias"
	t, hasNorm := ts[qn]
	_, hasBias := ts[qb]
	switch {
	case c.QKNorm() && hasBias:
		return fmt.Errorf("tensor %s is present but model_type qwen3 has no attention biases (Qwen2 weights under a Qwen3 config.json?)", qb)
	case !c.QKNorm() && hasNorm:
		return fmt.Errorf("tensor %s is present but model_type is %s (Qwen3 weights under a Qwen2 config.json?)", qn, c.ModelType)
	case c.QKNorm() && !hasNorm:
		return fmt.Errorf("tensor %s missing (model_type qwen3 normalises each query and key head)", qn)
	case c.QKNorm() && !slices.Equal(t.Shape, []int{c.HeadDim()}):
		return fmt.Errorf("tensor %s has shape %v, config.json wants [%d] (head_dim)", qn, t.Shape, c.HeadDim())
	}
	return nil
}

// LoadAdamW reads the optimizer state saved beside a checkpoint for m. A
// checkpoint without one gives an error wrapping os.ErrNotExist.
func LoadAdamW(dir string, m *Model) (*AdamW, error) {
	b, err := safetensors.ReadRegular(filepath.Join(dir, OptimizerJSONFile))
	if err != nil {
		return nil, err
	}
	var oj optimizerJSON
	if err := json.Unmarshal(b, &oj); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, OptimizerJSONFile), err)
	}
	if err := oj.check(); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, OptimizerJSONFile), err)
	}
	path := filepath.Join(dir, OptimizerFile)
	ts, _, err := safetensors.ReadFile(path)
	if err != nil {
		return nil, err
	}
	o := &AdamW{Cfg: AdamWConfig{oj.Beta1, oj.Beta2, oj.Eps, oj.WeightDecay}, StepN: oj.Step, model: m}
	for _, p := range m.Trainable() { // issue 60: the adapter's only under LoRA
		for _, suf := range []string{".exp_avg", ".exp_avg_sq"} {
			t, ok := ts[p.Name+suf]
			if !ok || !slices.Equal(t.Shape, p.Shape) {
				return nil, fmt.Errorf("%s: %s%s missing or misshapen", path, p.Name, suf)
			}
			w, err := t.Float32()
			if err != nil {
				return nil, fmt.Errorf("%s: %s%s: %w", path, p.Name, suf, err)
			}
			if j := nonFinite(w); j >= 0 {
				return nil, fmt.Errorf("%s: %s%s holds %v at %d (moments must be finite)", path, p.Name, suf, w[j], j)
			}
			if suf == ".exp_avg_sq" {
				for j, x := range w {
					if x < 0 {
						return nil, fmt.Errorf("%s: %s%s holds %v at %d (second moments must be >= 0)", path, p.Name, suf, x, j)
					}
				}
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

// writeCarried writes tokenizer.json (when not nil) and the carried files
// into tmp; a file named as one of reserved (or tokenizer.json), or with
// a path, is refused.
func writeCarried(tmp string, tokenizerJSON []byte, files map[string][]byte, reserved ...string) error {
	if tokenizerJSON != nil {
		if err := writeFile(filepath.Join(tmp, TokenizerFile), tokenizerJSON); err != nil {
			return err
		}
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if slices.Contains(reserved, name) || name == TokenizerFile || filepath.Base(name) != name {
			return fmt.Errorf("file %q cannot be carried over", name)
		}
		if err := writeFile(filepath.Join(tmp, name), files[name]); err != nil {
			return err
		}
	}
	return nil
}

// finiteNamed lists ts for safetensors, refusing a non-finite weight.
func finiteNamed(ts []*Tensor) ([]safetensors.Named, error) {
	out := make([]safetensors.Named, len(ts))
	for i, p := range ts {
		if j := nonFinite(p.W); j >= 0 {
			return nil, fmt.Errorf("tensor %s holds %v at %d: a checkpoint is never written with a non-finite weight", p.Name, p.W[j], j)
		}
		out[i] = safetensors.Named{Name: p.Name, Shape: p.Shape, Data: p.W}
	}
	return out, nil
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

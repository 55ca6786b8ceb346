package model

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/pats-rl/pats/lib/model/safetensors"
)

// Files of an adapter checkpoint folder: PEFT's two (which transformers
// with PEFT and vLLM's --enable-lora read as they are) and the base's
// hash beside them.
const (
	AdapterConfigFile  = "adapter_config.json"
	AdapterWeightsFile = "adapter_model.safetensors"
	AdapterBaseFile    = "adapter_base.json"
)

// peftConfig is adapter_config.json: the keys of PEFT's LoraConfig that
// describe an adapter trained here (no dropout at inference, no bias, no
// extra trained modules, plain alpha/r scaling).
type peftConfig struct {
	PeftType          string   `json:"peft_type"`
	TaskType          string   `json:"task_type"`
	BaseModel         string   `json:"base_model_name_or_path"`
	R                 int      `json:"r"`
	LoraAlpha         float64  `json:"lora_alpha"`
	LoraDropout       float64  `json:"lora_dropout"`
	TargetModules     []string `json:"target_modules"`
	Bias              string   `json:"bias"`
	FanInFanOut       bool     `json:"fan_in_fan_out"`
	InferenceMode     bool     `json:"inference_mode"`
	InitLoraWeights   bool     `json:"init_lora_weights"`
	UseRSLoRA         bool     `json:"use_rslora"`
	UseDoRA           bool     `json:"use_dora"`
	ModulesToSave     []string `json:"modules_to_save"`
	LayersToTransform []int    `json:"layers_to_transform"`
}

// adapterBase is adapter_base.json: the base folder as written into
// adapter_config.json and its WeightsHash when the adapter was saved.
type adapterBase struct {
	Base     string `json:"base"`
	BaseHash string `json:"base_hash"`
}

// IsAdapter says whether dir is an adapter checkpoint folder (it has
// adapter_config.json and no config.json).
func IsAdapter(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, ConfigFile)); err == nil {
		return false
	}
	_, err := os.Stat(filepath.Join(dir, AdapterConfigFile))
	return err == nil
}

// fillAdapter writes the adapter's files into tmp: adapter_config.json,
// adapter_model.safetensors (PEFT's tensor names, F32 or BF16),
// adapter_base.json, the tokenizer and carried files, and the adapter's
// optimizer state. The base weights are not written.
func (m *Model) fillAdapter(tmp string, tokenizerJSON []byte, o SaveOptions) error {
	ad := m.lora
	if ad.Base == "" {
		return fmt.Errorf("a LoRA adapter is saved beside its base checkpoint folder, and this model's base is not one")
	}
	pc := peftConfig{PeftType: "LORA", TaskType: "CAUSAL_LM", BaseModel: ad.Base, R: ad.Cfg.Rank,
		LoraAlpha: ad.Cfg.Alpha, TargetModules: ad.Cfg.Targets, Bias: "none", InferenceMode: true, InitLoraWeights: true}
	b, err := json.MarshalIndent(pc, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFile(filepath.Join(tmp, AdapterConfigFile), append(b, '\n')); err != nil {
		return err
	}
	if b, err = json.MarshalIndent(adapterBase{ad.Base, ad.BaseHash}, "", "  "); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(tmp, AdapterBaseFile), append(b, '\n')); err != nil {
		return err
	}
	if err := writeCarried(tmp, tokenizerJSON, o.Files, ConfigFile, AdapterConfigFile, AdapterBaseFile, AdapterWeightsFile); err != nil {
		return err
	}
	ts, err := finiteNamed(ad.params)
	if err != nil {
		return err
	}
	if err := safetensors.WriteFile(filepath.Join(tmp, AdapterWeightsFile), ts, map[string]string{"format": "pt"}, o.DType); err != nil {
		return err
	}
	if o.Optimizer != nil {
		return o.Optimizer.save(tmp)
	}
	return nil
}

// readAdapterConfig reads and checks dir's adapter_config.json and
// adapter_base.json (the latter may be missing: an adapter made
// elsewhere).
func readAdapterConfig(dir string) (peftConfig, adapterBase, error) {
	var pc peftConfig
	var ab adapterBase
	b, err := safetensors.ReadRegular(filepath.Join(dir, AdapterConfigFile))
	if err != nil {
		return pc, ab, err
	}
	if err := json.Unmarshal(b, &pc); err != nil {
		return pc, ab, fmt.Errorf("%s: %v", AdapterConfigFile, err)
	}
	switch {
	case pc.PeftType != "LORA":
		return pc, ab, fmt.Errorf("%s: peft_type %q, only LORA adapters are read", AdapterConfigFile, pc.PeftType)
	case pc.UseDoRA || pc.UseRSLoRA || pc.FanInFanOut || len(pc.ModulesToSave) > 0 || len(pc.LayersToTransform) > 0 || (pc.Bias != "" && pc.Bias != "none"):
		return pc, ab, fmt.Errorf("%s: DoRA, rsLoRA, fan_in_fan_out, modules_to_save, layers_to_transform and trained biases are not supported", AdapterConfigFile)
	case pc.BaseModel == "":
		return pc, ab, fmt.Errorf("%s: base_model_name_or_path is empty", AdapterConfigFile)
	}
	if err := (LoRAConfig{Rank: pc.R, Alpha: pc.LoraAlpha, Targets: pc.TargetModules}).check(); err != nil {
		return pc, ab, fmt.Errorf("%s: %v", AdapterConfigFile, err)
	}
	b, err = safetensors.ReadRegular(filepath.Join(dir, AdapterBaseFile))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return pc, ab, err
	}
	if err == nil {
		if err := json.Unmarshal(b, &ab); err != nil {
			return pc, ab, fmt.Errorf("%s: %v", AdapterBaseFile, err)
		}
	}
	return pc, ab, nil
}

// AdapterBase resolves the base checkpoint folder of the adapter folder
// dir: base_model_name_or_path as written (absolute, or relative to the
// working directory), else a folder of that name beside dir (an adapter
// moved together with its base).
func AdapterBase(dir string) (string, error) {
	pc, _, err := readAdapterConfig(dir)
	if err != nil {
		return "", err
	}
	return resolveBase(dir, pc.BaseModel)
}

func resolveBase(dir, base string) (string, error) {
	for _, c := range []string{base, filepath.Join(filepath.Dir(dir), filepath.Base(base))} {
		if _, err := os.Stat(filepath.Join(c, ConfigFile)); err == nil {
			return c, nil
		}
	}
	return "", fmt.Errorf("%s: base checkpoint %s not found (nor beside the adapter)", AdapterConfigFile, base)
}

// loadAdapter is Load for an adapter folder: the base checkpoint it
// names, checked against the hash recorded when the adapter was saved,
// with the adapter attached.
func loadAdapter(dir string) (*Model, error) {
	pc, ab, err := readAdapterConfig(dir)
	if err != nil {
		return nil, err
	}
	base, err := resolveBase(dir, pc.BaseModel)
	if err != nil {
		return nil, err
	}
	if IsAdapter(base) {
		return nil, fmt.Errorf("%s: the base %s is itself an adapter", AdapterConfigFile, base)
	}
	h, err := WeightsHash(base)
	if err != nil {
		return nil, fmt.Errorf("base %s: %w", base, err)
	}
	if ab.BaseHash != "" && h != ab.BaseHash {
		return nil, fmt.Errorf("base %s has weights %s, but the adapter was trained on %s", base, h, ab.BaseHash)
	}
	m, err := Load(base)
	if err != nil {
		return nil, fmt.Errorf("base %s: %w", base, err)
	}
	ad, err := m.newAdapter(LoRAConfig{Rank: pc.R, Alpha: pc.LoraAlpha, Targets: pc.TargetModules})
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, AdapterWeightsFile)
	ts, _, err := safetensors.ReadFile(path)
	if err != nil {
		return nil, err
	}
	for _, p := range ad.params {
		t, ok := ts[p.Name]
		if !ok {
			return nil, fmt.Errorf("%s: tensor %s missing", AdapterWeightsFile, p.Name)
		}
		if !slices.Equal(t.Shape, p.Shape) {
			return nil, fmt.Errorf("%s: tensor %s has shape %v, want %v", AdapterWeightsFile, p.Name, t.Shape, p.Shape)
		}
		w, err := t.Float32()
		if err != nil {
			return nil, fmt.Errorf("%s: tensor %s: %w", AdapterWeightsFile, p.Name, err)
		}
		if j := nonFinite(w); j >= 0 {
			return nil, fmt.Errorf("%s: tensor %s holds %v at %d (weights must be finite)", AdapterWeightsFile, p.Name, w[j], j)
		}
		p.W = w
	}
	if len(ts) != len(ad.params) {
		return nil, fmt.Errorf("%s: %d tensors, the adapter config implies %d", AdapterWeightsFile, len(ts), len(ad.params))
	}
	ad.Base, ad.BaseHash = pc.BaseModel, h
	m.lora = ad
	return m, nil
}

// adapterHash is WeightsHash of an adapter folder: the first 16 bytes of
// the SHA-256 of the base's hash, adapter_config.json and
// adapter_model.safetensors.
func adapterHash(dir string) (string, error) {
	pc, ab, err := readAdapterConfig(dir)
	if err != nil {
		return "", err
	}
	bh := ab.BaseHash
	if bh == "" {
		base, err := resolveBase(dir, pc.BaseModel)
		if err != nil {
			return "", err
		}
		if bh, err = WeightsHash(base); err != nil {
			return "", err
		}
	}
	h := sha256.New()
	fmt.Fprintf(h, "lora\x00%s\x00", bh)
	for _, name := range []string{AdapterConfigFile, AdapterWeightsFile} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00", name)
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16]), nil
}

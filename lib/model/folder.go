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
	"github.com/pats-rl/pats/lib/tokenizer"
)

// Folder is a checkpoint folder opened whole: the model, its tokenizer and
// the tokenizer.json bytes (which a checkpoint trained from it carries on).
type Folder struct {
	Model   *Model
	Tok     tokenizer.Tokenizer
	TokJSON []byte
}

// OpenFolder is the one way a checkpoint folder is opened with its
// tokenizer: Load, then tokenizer.json (TokenizerFile), which must have no
// more ids than the model's vocabulary. Errors do not repeat dir.
func OpenFolder(dir string) (*Folder, error) {
	m, err := Load(dir)
	if err != nil {
		return nil, err
	}
	js, err := safetensors.ReadRegular(filepath.Join(dir, TokenizerFile))
	if errors.Is(err, os.ErrNotExist) && m.lora != nil { // issue 60: an adapter made elsewhere has its base's
		if base, berr := AdapterBase(dir); berr == nil {
			js, err = safetensors.ReadRegular(filepath.Join(base, TokenizerFile))
		}
	}
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("checkpoint has no %s", TokenizerFile)
		}
		return nil, err
	}
	tok, err := tokenizer.FromJSON(js)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", TokenizerFile, err)
	}
	if tok.VocabSize() > m.Cfg.VocabSize {
		return nil, fmt.Errorf("tokenizer has %d ids, the model's vocabulary %d", tok.VocabSize(), m.Cfg.VocabSize)
	}
	return &Folder{Model: m, Tok: tok, TokJSON: js}, nil
}

// WeightsHash is the content hash of a checkpoint folder's weights, what a
// rollout records as the policy that played and learn grpo compares with
// its --init: the first 16 bytes of the SHA-256, in hex, of config.json and
// model.safetensors, or of config.json, the shard index and every shard it
// names (sorted). The optimizer state and the tokenizer files are not part
// of it. Of an adapter folder it is the hash of its base's hash and its
// two PEFT files.
func WeightsHash(dir string) (string, error) {
	if IsAdapter(dir) { // issue 60: base hash + adapter files
		return adapterHash(dir)
	}
	h := sha256.New()
	add := func(name string) error {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		defer f.Close()
		fmt.Fprintf(h, "%s\x00", name)
		_, err = io.Copy(h, f)
		return err
	}
	if err := add(ConfigFile); err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(dir, "model.safetensors")); err == nil {
		if err := add("model.safetensors"); err != nil {
			return "", err
		}
		return hex.EncodeToString(h.Sum(nil)[:16]), nil
	}
	b, err := safetensors.ReadRegular(filepath.Join(dir, safetensors.IndexName))
	if err != nil {
		return "", err
	}
	var idx struct {
		WeightMap map[string]string `json:"weight_map"`
	}
	if err := json.Unmarshal(b, &idx); err != nil {
		return "", fmt.Errorf("%s: %v", safetensors.IndexName, err)
	}
	var shards []string
	for _, f := range idx.WeightMap {
		if !slices.Contains(shards, f) {
			shards = append(shards, f)
		}
	}
	slices.Sort(shards)
	if err := add(safetensors.IndexName); err != nil {
		return "", err
	}
	for _, s := range shards {
		if err := add(s); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16]), nil
}

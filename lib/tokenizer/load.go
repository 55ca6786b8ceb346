package tokenizer

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"github.com/pats-rl/pats/lib/output"
	"io"
	"strings"
)

// Load reads a Hugging Face tokenizer.json (gzip-compressed when the name
// ends in .gz) and returns a WordLevel or BPE tokenizer by its model type.
func Load(path string) (Tokenizer, error) {
	f, err := output.OpenFile(path, output.MaxTokenizerBytes)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("tokenizer: %s: %w", path, err)
		}
		defer z.Close()
		r = z
	}
	data, err := output.ReadAll(r, path, output.MaxTokenizerBytes)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	t, err := FromJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// FromJSON reads the text of a Hugging Face tokenizer.json. Model types
// WordLevel (as pats writes it) and BPE (byte-level, Qwen2 pre-tokenizer)
// are supported; any other pipeline is an error, never a silent mismatch.
func FromJSON(data []byte) (Tokenizer, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("tokenizer: not a tokenizer.json: %w", err)
	}
	f := hfFile{
		Normalizer:   top["normalizer"],
		PreTokenizer: top["pre_tokenizer"],
		Model:        top["model"],
	}
	if raw := top["added_tokens"]; len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &f.AddedTokens); err != nil {
			return nil, fmt.Errorf("tokenizer: added_tokens: %w", err)
		}
	}
	var model struct {
		Type string `json:"type"`
	}
	if len(f.Model) == 0 {
		return nil, fmt.Errorf("tokenizer: tokenizer.json has no model")
	}
	if err := json.Unmarshal(f.Model, &model); err != nil {
		return nil, fmt.Errorf("tokenizer: model: %w", err)
	}
	switch model.Type {
	case "WordLevel":
		w, err := wordLevelFromJSON(&f)
		if err != nil {
			return nil, fmt.Errorf("tokenizer: WordLevel: %w", err)
		}
		return w, nil
	case "BPE":
		b, err := newBPE(top, &f)
		if err != nil {
			return nil, fmt.Errorf("tokenizer: BPE: %w", err)
		}
		return b, nil
	case "":
		return nil, fmt.Errorf("tokenizer: model has no type")
	}
	return nil, fmt.Errorf("tokenizer: unsupported model type %q (supported: WordLevel, BPE)", model.Type)
}

// marshalCanonical writes v as compact JSON with object keys of maps in
// sorted order and without HTML escaping.
func marshalCanonical(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	out := buf.Bytes()
	return out[:len(out)-1], nil // Encode ends with a newline
}

var (
	_ Tokenizer = (*WordLevel)(nil)
	_ Tokenizer = (*BPE)(nil)
)

package model

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/pats-rl/pats/lib/model/safetensors"
	"github.com/pats-rl/pats/lib/output"
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
//
// The folder is checked as Load checks it before anything is hashed
// (checkFolder): a served policy's folder, whose weights are never
// loaded here, is held to the same rules. Each weight file is hashed
// through the size its check found (a file that changed since is
// refused).
func WeightsHash(dir string) (string, error) {
	if IsAdapter(dir) { // issue 60: base hash + adapter files
		return adapterHash(dir)
	}
	_, cfgBytes, l, err := checkFolder(dir)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00", ConfigFile)
	h.Write(cfgBytes)
	if l.Index != "" {
		fmt.Fprintf(h, "%s\x00", safetensors.IndexName)
		h.Write(l.IndexBytes)
	}
	for _, w := range l.Files {
		if err := hashChecked(h, w); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16]), nil
}

// hashChecked adds a weight file checked by safetensors.ReadLayout to h:
// its name and its bytes, which must still be the size its check found.
func hashChecked(h io.Writer, w *safetensors.Header) error {
	f, st, err := output.OpenRegular(w.Path)
	if err != nil {
		return err
	}
	defer f.Close()
	if st.Size() != w.Size {
		return fmt.Errorf("%s: changed while read (%d bytes, then %d)", w.Path, w.Size, st.Size())
	}
	fmt.Fprintf(h, "%s\x00", filepath.Base(w.Path))
	if _, err := io.CopyN(h, f, w.Size); err != nil {
		return fmt.Errorf("%s: %w", w.Path, err)
	}
	return nil
}

package model

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

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
	js, err := os.ReadFile(filepath.Join(dir, TokenizerFile))
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

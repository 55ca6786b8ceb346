package tokenizer

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// vocabularyFile is the shipped vocabulary, one word a line: every word
// the built-in environments, the shipped skill libraries, the agent's
// prompt and the rule-based refiner can write. lib/vocabulary computes it
// from those sources, and its test fails when this file falls out of step
// with them (`go test ./lib/vocabulary -run TestVocabularyFile -update`
// rewrites it). Reading the file takes microseconds; computing it takes
// seconds (the environments generate their catalogues).
//
//go:embed vocabulary.txt
var vocabularyFile string

var (
	shippedOnce sync.Once
	shippedTok  *WordLevel
	shippedErr  error
)

// ShippedWordLevel returns the WordLevel tokenizer of the shipped
// vocabulary (vocabularyFile): the tokenizer of the toolkit's word-level
// models, and the one tokens are counted with by default. It is a
// pure function of the vocabulary file: the same build gives the same ids
// and the same hash on every machine.
func ShippedWordLevel() (*WordLevel, error) {
	shippedOnce.Do(func() {
		words := strings.Split(strings.TrimSuffix(vocabularyFile, "\n"), "\n")
		if len(words) < 100 {
			shippedErr = fmt.Errorf("built-in vocabulary file has %d words", len(words))
			return
		}
		shippedTok = NewWordLevel(words)
	})
	return shippedTok, shippedErr
}

// Open returns the tokenizer to count tokens with: ShippedWordLevel when
// path is empty, else the tokenizer.json at path (a checkpoint folder's
// tokenizer.json may be named by its folder).
func Open(path string) (Tokenizer, error) {
	if path == "" {
		return ShippedWordLevel()
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "tokenizer.json")
	}
	return Load(path)
}

// Counter returns the token count function of tok: the length of its
// encoding.
func Counter(tok Tokenizer) func(string) int {
	return func(s string) int { return len(tok.Encode(s)) }
}

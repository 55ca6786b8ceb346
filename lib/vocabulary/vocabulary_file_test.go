package vocabulary

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/tokenizer"
)

// vocabularyPath is the built-in tokenizer's vocabulary file.
const vocabularyPath = "../tokenizer/vocabulary.txt"

var update = flag.Bool("update", false, "rewrite vocabulary.txt from the sources")

// TestVocabularyFile: the built-in tokenizer's vocabulary file is what the environments,
// skill libraries, prompt and refiner templates define now.
func TestVocabularyFile(t *testing.T) {
	words, err := Vocabulary()
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(words, "\n") + "\n"
	if *update {
		if err := os.WriteFile(vocabularyPath, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	file, err := os.ReadFile(vocabularyPath)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(text, string(file)); diff != "" {
		t.Errorf("vocabulary.txt is out of step with the sources; run go test ./lib/vocabulary -run TestVocabularyFile -update (-sources +file):\n%s", diff)
	}
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tok.VocabSize(), len(words)+11; got != want {
		t.Errorf("tokenizer has %d ids, want %d", got, want)
	}
}

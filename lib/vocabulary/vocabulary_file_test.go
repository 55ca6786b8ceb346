package builtin

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite vocabulary.txt from the sources")

// TestVocabularyFile: the embedded vocabulary is what the environments,
// skill libraries, prompt and refiner templates define now.
func TestVocabularyFile(t *testing.T) {
	words, err := Vocabulary()
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(words, "\n") + "\n"
	if *update {
		if err := os.WriteFile("vocabulary.txt", []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if diff := cmp.Diff(text, vocabularyFile); diff != "" {
		t.Errorf("vocabulary.txt is out of step with the sources; run go test ./lib/builtin -run TestVocabularyFile -update (-sources +file):\n%s", diff)
	}
	tok, err := Tokenizer()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tok.VocabSize(), len(words)+11; got != want {
		t.Errorf("tokenizer has %d ids, want %d", got, want)
	}
}

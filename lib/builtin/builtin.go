// Package builtin gathers what pats ships: it registers the built-in
// environments (household, shop, searchqa) and builds the built-in WordLevel
// tokenizer over everything they, the shipped skill libraries, the agent's
// prompt and the built-in refiner can write.
//
// The tokenizer is a pure function of those texts: the same build gives the
// same ids and the same hash on every machine.
package builtin

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/pats-rl/pats/lib/agent"
	"github.com/pats-rl/pats/lib/env"
	_ "github.com/pats-rl/pats/lib/env/household" // registers household
	_ "github.com/pats-rl/pats/lib/env/searchqa"  // registers searchqa
	_ "github.com/pats-rl/pats/lib/env/shop"      // registers shop
	"github.com/pats-rl/pats/lib/refiner"
	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/skill"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// Envs lists the built-in environments.
var Envs = []string{"household", "household-rl", "shop", "searchqa"}

// extraText holds words that no environment emits but the context does:
// the agent's prompt, the scaffold's headings and bullets, and every text the
// built-in refiner's templates can write (placeholders removed; the values
// put in them are feature values, which the environments emit).
var extraText = append([]string{agent.SystemText, agent.ReadVerb, "Nothing happens.",
	scaffold.HeadingGeneral, scaffold.HeadingTask, scaffold.HeadingMistake, "- ", featureText}, templateTexts()...)

// featureText holds the words of the built-in environments' evidence
// features (prefixes and fixed values, as their docs list them) and of the
// rollout's failure modes: the built-in refiner writes them into items
// ("Make sure you reach this step: took target."). Object and receptacle
// kinds are already among the environments' words.
const featureText = "action object recep lamp visited milestone found target took transformed " +
	"failure invalid action loop max steps wrong object receptacle missing transform context limit unfinished " +
	"query type no attribute option category found product selected options missing attribute over price " +
	"hops entity relation bridge answer answered no answer search budget wrong answer click result next page prev back to buy"

// templateTexts returns the built-in refiner's template texts without their
// {value} and {prefix} placeholders, in a fixed order.
func templateTexts() []string {
	keys := make([]string, 0, len(refiner.DefaultTemplates))
	for k := range refiner.DefaultTemplates {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		t := refiner.DefaultTemplates[k]
		t = strings.ReplaceAll(t, "{value}", " ")
		t = strings.ReplaceAll(t, "{prefix}", " ")
		out = append(out, t)
	}
	return out
}

var (
	once   sync.Once
	tok    *tokenizer.WordLevel
	tokErr error
)

// Vocabulary is every word of the built-in tokenizer, sorted and unique.
func Vocabulary() ([]string, error) {
	seen := map[string]bool{}
	add := func(ws []string) {
		for _, w := range ws {
			seen[w] = true
		}
	}
	for _, name := range Envs {
		e, err := env.Open(name)
		if err != nil {
			return nil, err
		}
		add(e.Vocabulary())
		lib, err := skill.Builtin(name)
		if err != nil {
			return nil, err
		}
		add(lib.Vocabulary())
	}
	for _, t := range extraText {
		add(tokenizer.Words(t))
	}
	for i := 0; i <= 100; i++ {
		add(tokenizer.Words(strconv.Itoa(i)))
	}
	out := make([]string, 0, len(seen))
	for w := range seen {
		out = append(out, w)
	}
	sort.Strings(out)
	return out, nil
}

// vocabularyFile is Vocabulary() as of this build, one word a line,
// written by `go test ./lib/builtin -run TestVocabularyFile -update`. A test
// fails when it falls out of step with the sources, so the tokenizer a
// command builds in microseconds is the one the sources define (building
// it from the environments takes seconds: they generate their catalogues).
//
//go:embed vocabulary.txt
var vocabularyFile string

// Tokenizer returns the built-in WordLevel tokenizer.
func Tokenizer() (*tokenizer.WordLevel, error) {
	once.Do(func() {
		words := strings.Split(strings.TrimSuffix(vocabularyFile, "\n"), "\n")
		if len(words) < 100 {
			tokErr = fmt.Errorf("built-in vocabulary file has %d words", len(words))
			return
		}
		tok = tokenizer.NewWordLevel(words)
	})
	return tok, tokErr
}

// TokenizerFrom returns the tokenizer a command counts tokens with: the
// built-in one when path is empty, else the tokenizer.json at path (a
// checkpoint folder's tokenizer.json may be named by its folder).
func TokenizerFrom(path string) (tokenizer.Tokenizer, error) {
	if path == "" {
		return Tokenizer()
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "tokenizer.json")
	}
	t, err := tokenizer.Load(path)
	if err != nil {
		return nil, fmt.Errorf("--tokenizer: %w", err)
	}
	return t, nil
}

// Counter returns the token count function of tok: the length of its
// encoding.
func Counter(tok tokenizer.Tokenizer) func(string) int {
	return func(s string) int { return len(tok.Encode(s)) }
}

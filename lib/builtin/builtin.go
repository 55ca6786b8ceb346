// Package builtin gathers what pats ships: it registers the built-in
// environments (household, shop, searchqa) and builds the built-in WordLevel
// tokenizer over everything they, the shipped skill libraries, the agent's
// prompt and the built-in refiner can write.
//
// The tokenizer is a pure function of those texts: the same build gives the
// same ids and the same hash on every machine.
package builtin

import (
	"sort"
	"strconv"
	"sync"

	"github.com/pats-rl/pats/lib/agent"
	"github.com/pats-rl/pats/lib/env"
	_ "github.com/pats-rl/pats/lib/env/household" // registers household
	_ "github.com/pats-rl/pats/lib/env/searchqa"  // registers searchqa
	_ "github.com/pats-rl/pats/lib/env/shop"      // registers shop
	"github.com/pats-rl/pats/lib/skill"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// Envs lists the built-in environments.
var Envs = []string{"household", "shop", "searchqa"}

// extraText holds words that no environment emits but the context does.
var extraText = []string{agent.SystemText, agent.ReadVerb, "Nothing happens."}

// ExtraVocabulary lets other packages (the refiner's templates, scaffold
// headings) add their words to the built-in vocabulary at init time.
var (
	extraMu    sync.Mutex
	extraWords []string
)

// AddVocabulary adds the words of texts to the built-in vocabulary. Call it
// from an init function only: the vocabulary is fixed at first use.
func AddVocabulary(texts ...string) {
	extraMu.Lock()
	defer extraMu.Unlock()
	for _, t := range texts {
		extraWords = append(extraWords, tokenizer.Words(t)...)
	}
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
	extraMu.Lock()
	add(extraWords)
	extraMu.Unlock()
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

// Tokenizer returns the built-in WordLevel tokenizer.
func Tokenizer() (*tokenizer.WordLevel, error) {
	once.Do(func() {
		words, err := Vocabulary()
		if err != nil {
			tokErr = err
			return
		}
		tok = tokenizer.NewWordLevel(words)
	})
	return tok, tokErr
}

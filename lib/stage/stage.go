package stage

import (
	"fmt"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// Tokenizer opens the tokenizer that control and validate count tokens
// with (their --tokenizer option, tokenizer.Open): the built-in one when
// path is empty. A path that holds no usable tokenizer is a usage error.
func Tokenizer(path string) (tokenizer.Tokenizer, error) {
	t, err := tokenizer.Open(path)
	if err != nil {
		return nil, command.Usagef("--tokenizer: %v", err)
	}
	return t, nil
}

// ReadCards reads the cards of one iteration from the file path with their metadata// comma-separated list) with their metadata and returns that iteration;
// cards of several iterations, or none, are an input error naming path.
func ReadCards(path string) ([]table.Card, []table.Meta, int32, error) {
	cards, meta, err := table.ReadFiles[table.Card](path)
	if err != nil {
		return nil, nil, 0, err
	}
	k, err := cardsIteration(cards, path)
	if err != nil {
		return nil, nil, 0, err
	}
	return cards, meta, k, nil
}

// cardsIteration returns the one iteration of cards; cards of several
// iterations, or none, are an input error naming path.
func cardsIteration(cards []table.Card, path string) (int32, error) {
	if len(cards) == 0 {
		return 0, &table.InputError{Path: path, Problem: "no cards"}
	}
	k := cards[0].Iteration
	for _, c := range cards {
		if c.Iteration != k {
			return 0, &table.InputError{Path: path, Problem: fmt.Sprintf("cards of iterations %d and %d: give one iteration's cards", k, c.Iteration)}
		}
	}
	return k, nil
}

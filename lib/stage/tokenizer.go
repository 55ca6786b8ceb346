package stage

import (
	"github.com/pats-rl/pats/lib/command"
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

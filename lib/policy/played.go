package policy

import "github.com/pats-rl/pats/lib/tokenizer"

// What a stage that plays a policy asks of it once it is open, the same
// questions for a local checkpoint and a served one (the play stage's
// later jobs: the tokenizer, the prompt format, the answer cap).

// Folder is the checkpoint folder: its tokenizer file and chat template
// name the default prompt format.
func (p *Checkpoint) Folder() string { return p.Path }

// EndTokens are the end tokens of the folder's generation_config.json
// (none without one).
func (p *Checkpoint) EndTokens() []int32 { return p.Gen.EOS }

// SetAnswerCap sets the tokens one answer may take.
func (p *Checkpoint) SetAnswerCap(tokens int) { p.Opt.MaxActionTokens = tokens }

// Tokenizer is the tokenizer of the folder the server was started from.
func (s *Served) Tokenizer() tokenizer.Tokenizer { return s.Tok }

// Folder is the checkpoint folder the server was started from.
func (s *Served) Folder() string { return s.Dir }

// EndTokens are the end tokens of the folder's generation_config.json
// (none without one).
func (s *Served) EndTokens() []int32 { return s.Gen.EOS }

// SetAnswerCap sets the tokens one answer may take (each request's
// max_tokens).
func (s *Served) SetAnswerCap(tokens int) { s.Opt.MaxActionTokens = tokens }

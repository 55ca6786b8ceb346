package tokenizer

// Tokenizer is what the agent, rollout and learn need of a tokenizer.
type Tokenizer interface {
	// Encode returns the ids of text. Special tokens written literally in
	// text (e.g. "<|act|>") are recognised as themselves.
	Encode(text string) []int32
	// Decode turns ids back into text.
	Decode(ids []int32) string
	// TokenID returns the id of a token string (special tokens included).
	TokenID(tok string) (int32, bool)
	// VocabSize is the number of ids.
	VocabSize() int
	// Hash is a content hash of the tokenizer (stable across processes);
	// trajectories record it so learn can refuse another tokenizer's ids.
	Hash() string
	// JSON is the Hugging Face tokenizer.json form.
	JSON() ([]byte, error)
}

// Package tokenizer turns text into token ids and back, for the built-in
// vocabularies (WordLevel) and for Qwen2/Qwen3 checkpoints (byte-level BPE).
// Both read and write the Hugging Face tokenizer.json format, so a
// checkpoint folder's tokenizer.json is the single description of the ids.
//
// # Ids and special tokens
//
// Ids are int32 in [0, VocabSize()). Special tokens (Specials, and a BPE
// file's added_tokens) written literally in text are split out before
// anything else, leftmost-longest, case-sensitively, and each becomes one
// id; the text between them is tokenised normally.
//
// # WordLevel
//
// NewWordLevel gives the Specials ids 0..len(Specials)-1 in order, then the
// words sorted and deduplicated, so the same word set always gives the same
// ids. Text is lower-cased and split on white space; runs of letters,
// digits, marks and '_' are words, every other character is a token of its
// own (Words shows the cut). A word outside the vocabulary is Unk. Decode
// joins tokens with spaces except around punctuation (see WordLevel.Decode),
// so that for the environments' action strings Decode(Encode(a)) == a. The
// JSON form is deterministic (vocabulary in id order) and Hash is the
// SHA-256 of it: the same vocabulary gives the same hash in every process.
// In the JSON form the pre-tokenizer is a WhitespaceSplit followed by an
// isolating Split on [^\w\s], which Hugging Face tokenizers run to the same
// ids; its decoder (WordPiece with clean-up) only approximates Decode's
// spacing.
//
// # Byte-level BPE
//
// FromJSON/Load read a BPE tokenizer.json of the Qwen2 kind: NFC normaliser
// (or none), the Qwen2Pattern split followed by ByteLevel, merges as
// "a b" strings or ["a","b"] pairs. Any other pipeline is refused with an
// error rather than tokenised differently. Encoding: added tokens are split
// out of the raw text; each remaining run is NFC-normalised and cut into
// pre-tokens by a hand-written matcher of Qwen2Pattern (Go's regexp lacks
// the look-ahead of \s+(?!\S)); each pre-token's bytes are written in the
// GPT-2 byte-level alphabet and merged, lowest merge rank first (leftmost
// on ties), until no merge applies. Results are cached per pre-token.
// Decode maps tokens back to bytes and returns exactly those bytes; it does
// not replace a cut multi-byte character by U+FFFD, so decoding token by
// token and concatenating equals decoding all at once. AddSpecials adds the
// pats specials to a loaded BPE (new ids after the largest), and JSON then
// includes them.
//
// The character classes follow Unicode as Go's unicode package has it:
// \s is White_Space, \p{L} letters, \p{N} numbers; the case-insensitive
// contractions also accept U+017F (long s), which case-folds to 's'.
// lstrip, rstrip and single_word of added tokens are not applied (Qwen's
// files set them all false), and added tokens are always matched on the
// raw text.
//
// # Checked against an independent implementation
//
// testdata/qwen3 holds Qwen3's tokenizer.json and reference ids that
// another implementation (a port of transformers.js tokenizers) gives for
// several hundred awkward and random strings; testdata/wordlevel holds the
// golden WordLevel file and that implementation's ids for it. Every
// go test compares against them. scripts/tokref/gen.mjs regenerates both
// (see its header); with PATS_TOKREF=1 the tests run it first.
package tokenizer

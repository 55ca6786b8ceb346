package tokenizer

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/pats-rl/pats/lib/words"
)

// WordLevel is the tokenizer of the built-in vocabularies: one id per
// word, punctuation mark or special token. See Words for how text is cut.
// A WordLevel is immutable and safe for concurrent use.
type WordLevel struct {
	vocab     map[string]int32 // token -> id (words and specials)
	tokens    []string         // id -> token
	isSpecial []bool           // id -> added (special) token
	unk       int32
	matcher   *addedMatcher
	hash      string
}

// NewWordLevel builds the tokenizer of a vocabulary: the Specials take ids
// 0..len(Specials)-1 in their order, then the words follow sorted and
// without duplicates (empty strings and words equal to a special are
// dropped). Words should come from Words so that encoding can produce them.
func NewWordLevel(words []string) *WordLevel {
	specials := make(map[string]bool, len(Specials))
	tokens := make([]string, 0, len(Specials)+len(words))
	for _, s := range Specials {
		specials[s] = true
		tokens = append(tokens, s)
	}
	sorted := append([]string(nil), words...)
	sort.Strings(sorted)
	for i, w := range sorted {
		if w == "" || specials[w] || (i > 0 && w == sorted[i-1]) {
			continue
		}
		tokens = append(tokens, w)
	}
	isSpecial := make([]bool, len(tokens))
	for i := range Specials {
		isSpecial[i] = true
	}
	w, err := newWordLevel(tokens, isSpecial, Unk)
	if err != nil {
		panic(err) // cannot happen: Unk is among the Specials
	}
	return w
}

func newWordLevel(tokens []string, isSpecial []bool, unk string) (*WordLevel, error) {
	w := &WordLevel{
		vocab:     make(map[string]int32, len(tokens)),
		tokens:    tokens,
		isSpecial: isSpecial,
	}
	added := map[string]int32{}
	for i, t := range tokens {
		if t == "" {
			continue
		}
		if _, dup := w.vocab[t]; dup {
			return nil, fmt.Errorf("token %q has two ids", t)
		}
		w.vocab[t] = int32(i)
		if isSpecial[i] {
			added[t] = int32(i)
		}
	}
	id, ok := w.vocab[unk]
	if !ok {
		return nil, fmt.Errorf("unk_token %q is not in the vocabulary", unk)
	}
	w.unk = id
	w.matcher = newAddedMatcher(added)
	data, err := w.JSON()
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	w.hash = hex.EncodeToString(sum[:])
	return w, nil
}

// Words cuts text into the tokens of the built-in tokenizer: special
// tokens written literally (e.g. "<|act|>") are recognised first; the rest
// is lower-cased and split on white space, and within that, runs of
// letters, digits and '_' are words and every other character is a token
// of its own ("in/on" -> "in" "/" "on"; "$45.00" -> "$" "45" "." "00").
func Words(text string) []string {
	var out []string
	emit := func(s string) { out = append(out, s) }
	defaultMatcher.split(text, func(seg string) {
		words.Each(strings.ToLower(seg), emit)
	}, func(id int32) { out = append(out, Specials[id]) })
	return out
}

var defaultMatcher = func() *addedMatcher {
	ids := make(map[string]int32, len(Specials))
	for i, s := range Specials {
		ids[s] = int32(i)
	}
	return newAddedMatcher(ids)
}()

// Encode returns the ids of text; words outside the vocabulary are Unk.
func (w *WordLevel) Encode(text string) []int32 {
	var ids []int32
	w.matcher.split(text, func(seg string) {
		words.Each(strings.ToLower(seg), func(tok string) {
			id, ok := w.vocab[tok]
			if !ok {
				id = w.unk
			}
			ids = append(ids, id)
		})
	}, func(id int32) { ids = append(ids, id) })
	return ids
}

// Tokens separating rules of Decode.
var (
	noSpaceBefore = map[string]bool{".": true, ",": true, ";": true, ":": true, "!": true, "?": true,
		"]": true, ")": true, "'": true, "/": true, "-": true, "[": true, "%": true}
	noSpaceAfter = map[string]bool{"[": true, "(": true, "$": true, "/": true, "-": true, "'": true}
)

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// Decode joins the tokens of ids with single spaces, except: no space
// before . , ; : ! ? ] ) ' / - [ %, none after [ ( $ / - ', and none
// around a '.' or ',' between two runs of digits ("45.00", "1,000").
// Ids outside the vocabulary are skipped. For the action strings the
// built-in environments produce, Decode(Encode(a)) == a.
func (w *WordLevel) Decode(ids []int32) string {
	var sb strings.Builder
	var toks []string
	for _, id := range ids {
		if id >= 0 && int(id) < len(w.tokens) && w.tokens[id] != "" {
			toks = append(toks, w.tokens[id])
		}
	}
	for i, t := range toks {
		if i > 0 && !w.joined(toks, i) {
			sb.WriteByte(' ')
		}
		sb.WriteString(t)
	}
	return sb.String()
}

// joined reports whether toks[i] follows toks[i-1] without a space.
func (w *WordLevel) joined(toks []string, i int) bool {
	prev, cur := toks[i-1], toks[i]
	if noSpaceBefore[cur] || noSpaceAfter[prev] {
		return true
	}
	return (prev == "." || prev == ",") && i >= 2 && isDigits(toks[i-2]) && isDigits(cur)
}

// Token returns the token string of id.
func (w *WordLevel) Token(id int32) (string, bool) {
	if id < 0 || int(id) >= len(w.tokens) || w.tokens[id] == "" {
		return "", false
	}
	return w.tokens[id], true
}

// TokenID returns the id of a word or special token.
func (w *WordLevel) TokenID(tok string) (int32, bool) {
	id, ok := w.vocab[tok]
	return id, ok
}

// VocabSize is the number of ids.
func (w *WordLevel) VocabSize() int { return len(w.tokens) }

// Hash is the hex SHA-256 of JSON().
func (w *WordLevel) Hash() string { return w.hash }

// The normaliser and pre-tokenizer entries of a WordLevel tokenizer.json.
// Split isolates every character that is neither a word character nor
// white space, which is what words.Each does.
const (
	wordLevelNormalizer  = `{"type":"Lowercase"}`
	wordLevelPreTokenize = `{"type":"Sequence","pretokenizers":[{"type":"WhitespaceSplit"},{"type":"Split","pattern":{"Regex":"[^\\w\\s]"},"behavior":"Isolated","invert":false}]}`
	// The WordPiece decoder with clean-up is the closest Hugging Face
	// decoder; pats' own Decode (above) is the reference for spacing.
	wordLevelDecoder = `{"type":"WordPiece","prefix":"##","cleanup":true}`
)

// orderedVocab marshals token -> id in id order.
type orderedVocab []string

func (v orderedVocab) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	first := true
	for id, t := range v {
		if t == "" {
			continue
		}
		if !first {
			buf.WriteByte(',')
		}
		first = false
		k, err := marshalCanonical(t)
		if err != nil {
			return nil, err
		}
		buf.Write(k)
		fmt.Fprintf(&buf, ":%d", id)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// JSON writes the Hugging Face tokenizer.json form (model WordLevel,
// specials as special added tokens, Lowercase normaliser, white-space and
// punctuation pre-tokenizer). The output is deterministic.
func (w *WordLevel) JSON() ([]byte, error) {
	type model struct {
		Type     string       `json:"type"`
		Vocab    orderedVocab `json:"vocab"`
		UnkToken string       `json:"unk_token"`
	}
	type file struct {
		Version       string          `json:"version"`
		Truncation    json.RawMessage `json:"truncation"`
		Padding       json.RawMessage `json:"padding"`
		AddedTokens   []hfAdded       `json:"added_tokens"`
		Normalizer    json.RawMessage `json:"normalizer"`
		PreTokenizer  json.RawMessage `json:"pre_tokenizer"`
		PostProcessor json.RawMessage `json:"post_processor"`
		Decoder       json.RawMessage `json:"decoder"`
		Model         model           `json:"model"`
	}
	f := file{
		Version:       "1.0",
		Truncation:    json.RawMessage("null"),
		Padding:       json.RawMessage("null"),
		AddedTokens:   []hfAdded{},
		Normalizer:    json.RawMessage(wordLevelNormalizer),
		PreTokenizer:  json.RawMessage(wordLevelPreTokenize),
		PostProcessor: json.RawMessage("null"),
		Decoder:       json.RawMessage(wordLevelDecoder),
		Model:         model{Type: "WordLevel", Vocab: orderedVocab(w.tokens), UnkToken: w.tokens[w.unk]},
	}
	for id, t := range w.tokens {
		if w.isSpecial[id] {
			f.AddedTokens = append(f.AddedTokens, hfAdded{ID: int32(id), Content: t, Special: true})
		}
	}
	return marshalCanonical(f)
}

// sameJSON reports whether two JSON texts are equal as values.
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

func wordLevelFromJSON(f *hfFile) (*WordLevel, error) {
	var m struct {
		Vocab    map[string]int32 `json:"vocab"`
		UnkToken string           `json:"unk_token"`
	}
	if err := json.Unmarshal(f.Model, &m); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	if !sameJSON(f.Normalizer, []byte(wordLevelNormalizer)) {
		return nil, fmt.Errorf("unsupported normalizer %s (want %s)", f.Normalizer, wordLevelNormalizer)
	}
	if !sameJSON(f.PreTokenizer, []byte(wordLevelPreTokenize)) {
		return nil, fmt.Errorf("unsupported pre_tokenizer %s (want %s)", f.PreTokenizer, wordLevelPreTokenize)
	}
	size := 0
	for t, id := range m.Vocab {
		if id < 0 {
			return nil, fmt.Errorf("vocab: negative id %d for %q", id, t)
		}
		size = max(size, int(id)+1)
	}
	if size > 4*len(m.Vocab)+16 {
		return nil, fmt.Errorf("vocab: ids up to %d for %d tokens", size-1, len(m.Vocab))
	}
	tokens := make([]string, size)
	for t, id := range m.Vocab {
		if tokens[id] != "" {
			return nil, fmt.Errorf("vocab: id %d used by %q and %q", id, tokens[id], t)
		}
		tokens[id] = t
	}
	isSpecial := make([]bool, size)
	for _, raw := range f.AddedTokens {
		var a hfAdded
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, fmt.Errorf("added_tokens: %w", err)
		}
		if a.ID < 0 || int(a.ID) >= size || tokens[a.ID] != a.Content {
			return nil, fmt.Errorf("added token %q (id %d) does not match the vocabulary", a.Content, a.ID)
		}
		isSpecial[a.ID] = true
	}
	return newWordLevel(tokens, isSpecial, m.UnkToken)
}

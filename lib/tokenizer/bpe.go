package tokenizer

import (
	"container/heap"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"golang.org/x/text/unicode/norm"
)

// BPE is a byte-level BPE tokenizer as Qwen2 and Qwen3 use it, read from a
// Hugging Face tokenizer.json. Encoding: added tokens are split out of the
// raw text first; the rest is NFC-normalised (when the file says so), cut
// into pre-tokens by the Qwen2 pattern, written in the byte-level alphabet,
// and merged by rank. A BPE is safe for concurrent use.
type BPE struct {
	top map[string]json.RawMessage // the file's top-level members

	vocab   map[string]int32 // byte-level token -> id
	tokens  []string         // id -> token (vocabulary or added); "" for no token
	isAdded []bool           // id -> is an added token (decoded as its content)
	merges  map[uint64]mergeRule
	byteIDs [256]int32 // id of each single byte's token, -1 when missing
	unk     int32      // -1 when the model has no unknown token
	nfc     bool
	ignore  bool // ignore_merges: a pre-token that is a vocabulary entry is one token

	added    map[string]int32  // added token content -> id
	addedRaw []json.RawMessage // added_tokens entries as in the file, then ours
	matcher  *addedMatcher

	mu    sync.RWMutex
	cache map[string][]int32 // pre-token -> ids

	hashMu sync.Mutex
	hash   string
}

type mergeRule struct {
	rank int32
	id   int32 // id of the merged token
}

// cacheLimit bounds the per-pre-token cache; it is emptied when full.
const cacheLimit = 1 << 16

func pairKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// hfFile is the part of tokenizer.json that pats reads.
type hfFile struct {
	AddedTokens  []json.RawMessage `json:"added_tokens"`
	Normalizer   json.RawMessage   `json:"normalizer"`
	PreTokenizer json.RawMessage   `json:"pre_tokenizer"`
	Model        json.RawMessage   `json:"model"`
}

type hfAdded struct {
	ID         int32  `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
	Special    bool   `json:"special"`
}

type hfBPEModel struct {
	Type                    string           `json:"type"`
	Vocab                   map[string]int32 `json:"vocab"`
	Merges                  []any            `json:"merges"`
	UnkToken                *string          `json:"unk_token"`
	ContinuingSubwordPrefix *string          `json:"continuing_subword_prefix"`
	EndOfWordSuffix         *string          `json:"end_of_word_suffix"`
	ByteFallback            bool             `json:"byte_fallback"`
	IgnoreMerges            bool             `json:"ignore_merges"`
}

// hfPart is any normalizer, pre-tokenizer or decoder entry.
type hfPart struct {
	Type           string            `json:"type"`
	Normalizers    []json.RawMessage `json:"normalizers"`
	Pretokenizers  []json.RawMessage `json:"pretokenizers"`
	Pattern        *hfPattern        `json:"pattern"`
	Behavior       string            `json:"behavior"`
	Invert         bool              `json:"invert"`
	UseRegex       *bool             `json:"use_regex"`
	AddPrefixSpace bool              `json:"add_prefix_space"`
}

type hfPattern struct {
	Regex  *string `json:"Regex"`
	String *string `json:"String"`
}

func parsePart(raw json.RawMessage) (*hfPart, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var p hfPart
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// bpeNormalizer reports whether the normalizer is NFC (true) or absent.
func bpeNormalizer(raw json.RawMessage) (bool, error) {
	p, err := parsePart(raw)
	if err != nil || p == nil {
		return false, err
	}
	switch p.Type {
	case "NFC":
		return true, nil
	case "Sequence":
		nfc := false
		for _, r := range p.Normalizers {
			q, err := bpeNormalizer(r)
			if err != nil {
				return false, err
			}
			nfc = nfc || q
		}
		return nfc, nil
	}
	return false, fmt.Errorf("unsupported normalizer %q (supported: NFC or none)", p.Type)
}

// checkBPEPreTokenizer accepts the Qwen2 pipeline: a Split on Qwen2Pattern
// (Isolated) followed by ByteLevel without its own regex.
func checkBPEPreTokenizer(raw json.RawMessage) error {
	p, err := parsePart(raw)
	if err != nil {
		return err
	}
	const want = "pre_tokenizer must be Sequence[Split(Qwen2 pattern, Isolated), ByteLevel(use_regex=false, add_prefix_space=false)]"
	if p == nil || p.Type != "Sequence" || len(p.Pretokenizers) != 2 {
		return fmt.Errorf("unsupported pre_tokenizer: %s", want)
	}
	s, err := parsePart(p.Pretokenizers[0])
	if err != nil {
		return err
	}
	b, err := parsePart(p.Pretokenizers[1])
	if err != nil {
		return err
	}
	if s == nil || s.Type != "Split" || s.Pattern == nil || s.Pattern.Regex == nil ||
		*s.Pattern.Regex != Qwen2Pattern || s.Behavior != "Isolated" || s.Invert {
		return fmt.Errorf("unsupported pre_tokenizer split: %s", want)
	}
	if b == nil || b.Type != "ByteLevel" || b.AddPrefixSpace || (b.UseRegex != nil && *b.UseRegex) {
		return fmt.Errorf("unsupported pre_tokenizer byte level: %s", want)
	}
	return nil
}

func newBPE(top map[string]json.RawMessage, f *hfFile) (*BPE, error) {
	var m hfBPEModel
	if err := json.Unmarshal(f.Model, &m); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	if m.ContinuingSubwordPrefix != nil && *m.ContinuingSubwordPrefix != "" ||
		m.EndOfWordSuffix != nil && *m.EndOfWordSuffix != "" {
		return nil, fmt.Errorf("model: continuing_subword_prefix and end_of_word_suffix are not supported")
	}
	if m.ByteFallback {
		return nil, fmt.Errorf("model: byte_fallback is not supported (byte-level BPE needs none)")
	}
	nfc, err := bpeNormalizer(f.Normalizer)
	if err != nil {
		return nil, err
	}
	if err := checkBPEPreTokenizer(f.PreTokenizer); err != nil {
		return nil, err
	}
	b := &BPE{
		top:    top,
		vocab:  m.Vocab,
		merges: make(map[uint64]mergeRule, len(m.Merges)),
		unk:    -1,
		nfc:    nfc,
		ignore: m.IgnoreMerges,
		added:  map[string]int32{},
		cache:  map[string][]int32{},
	}
	size := 0
	for t, id := range m.Vocab {
		if id < 0 {
			return nil, fmt.Errorf("model: vocab: negative id %d for %q", id, t)
		}
		size = max(size, int(id)+1)
	}
	for _, raw := range f.AddedTokens {
		var a hfAdded
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, fmt.Errorf("added_tokens: %w", err)
		}
		if a.ID < 0 || a.Content == "" {
			return nil, fmt.Errorf("added_tokens: bad entry %s", raw)
		}
		size = max(size, int(a.ID)+1)
		b.added[a.Content] = a.ID
		b.addedRaw = append(b.addedRaw, raw)
	}
	if lim := maxTokenID(len(m.Vocab) + len(f.AddedTokens)); size > lim+1 {
		return nil, fmt.Errorf("model: token id %d is implausible for %d tokens (the limit is %d)", size-1, len(m.Vocab)+len(f.AddedTokens), lim)
	}
	b.tokens = make([]string, size)
	b.isAdded = make([]bool, size)
	for t, id := range m.Vocab {
		b.tokens[id] = t
	}
	for t, id := range b.added {
		b.tokens[id] = t
		b.isAdded[id] = true
	}
	for i := range b.byteIDs {
		b.byteIDs[i] = -1
		if id, ok := m.Vocab[string(byteToRune[i])]; ok {
			b.byteIDs[i] = id
		}
	}
	if m.UnkToken != nil {
		id, ok := m.Vocab[*m.UnkToken]
		if !ok {
			return nil, fmt.Errorf("model: unk_token %q is not in the vocabulary", *m.UnkToken)
		}
		b.unk = id
	}
	for rank, raw := range m.Merges {
		var l, r string
		switch v := raw.(type) {
		case string:
			var ok bool
			l, r, ok = strings.Cut(v, " ")
			if !ok {
				return nil, fmt.Errorf("model: merge %d %q has no space", rank, v)
			}
		case []any:
			if len(v) != 2 {
				return nil, fmt.Errorf("model: merge %d has %d parts, want 2", rank, len(v))
			}
			var ok1, ok2 bool
			l, ok1 = v[0].(string)
			r, ok2 = v[1].(string)
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("model: merge %d is not a pair of strings", rank)
			}
		default:
			return nil, fmt.Errorf("model: merge %d has type %T", rank, raw)
		}
		li, ok1 := m.Vocab[l]
		ri, ok2 := m.Vocab[r]
		ni, ok3 := m.Vocab[l+r]
		if !ok1 || !ok2 || !ok3 {
			return nil, fmt.Errorf("model: merge %d (%q %q) uses a token missing from the vocabulary", rank, l, r)
		}
		k := pairKey(li, ri)
		if _, dup := b.merges[k]; !dup { // the first (best) rank wins
			b.merges[k] = mergeRule{rank: int32(rank), id: ni}
		}
	}
	b.matcher = newAddedMatcher(b.added)
	return b, nil
}

// Encode returns the ids of text.
func (b *BPE) Encode(text string) []int32 {
	var ids []int32
	b.matcher.split(text, func(seg string) {
		if b.nfc {
			seg = norm.NFC.String(seg)
		}
		splitQwen2(seg, func(piece string) {
			ids = append(ids, b.word(piece)...)
		})
	}, func(id int32) { ids = append(ids, id) })
	return ids
}

// word returns the ids of one pre-token, from the cache when it is there.
func (b *BPE) word(piece string) []int32 {
	b.mu.RLock()
	ids, ok := b.cache[piece]
	b.mu.RUnlock()
	if ok {
		return ids
	}
	ids = b.merge(piece)
	b.mu.Lock()
	if len(b.cache) >= cacheLimit {
		clear(b.cache)
	}
	b.cache[piece] = ids
	b.mu.Unlock()
	return ids
}

// symbol is one part of a word being merged (a doubly linked list).
type symbol struct {
	id         int32
	prev, next int
	gone       bool
}

// candidate is a possible merge of symbols[pos] with its right neighbour.
type candidate struct {
	rank, id int32
	pos      int
}

type candidates []candidate

func (h candidates) Len() int { return len(h) }
func (h candidates) Less(i, j int) bool {
	if h[i].rank != h[j].rank {
		return h[i].rank < h[j].rank
	}
	return h[i].pos < h[j].pos
}
func (h candidates) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *candidates) Push(x any)   { *h = append(*h, x.(candidate)) }
func (h *candidates) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

// merge applies the merges to one pre-token: always the pair of lowest rank,
// the leftmost one on ties, until no pair of neighbours has a merge.
func (b *BPE) merge(piece string) []int32 {
	if b.ignore {
		if id, ok := b.vocab[byteLevel(piece)]; ok {
			return []int32{id}
		}
	}
	if len(piece) <= smallWord {
		return b.mergeSmall(piece)
	}
	return b.mergeHeap(piece)
}

// smallWord is the length in bytes up to which merge scans all pairs at
// each step instead of keeping a heap: fewer allocations for short words.
const smallWord = 48

// mergeSmall is merge for short pre-tokens: at each step it scans the
// neighbouring pairs for the lowest rank (leftmost on ties) and merges it.
func (b *BPE) mergeSmall(piece string) []int32 {
	var buf [smallWord]int32
	syms := buf[:0]
	for i := 0; i < len(piece); i++ {
		id := b.byteIDs[piece[i]]
		if id < 0 {
			id = b.unk
		}
		if id >= 0 {
			syms = append(syms, id)
		}
	}
	for len(syms) > 1 {
		best, at := mergeRule{rank: -1}, -1
		for i := 0; i+1 < len(syms); i++ {
			if m, ok := b.merges[pairKey(syms[i], syms[i+1])]; ok && (at < 0 || m.rank < best.rank) {
				best, at = m, i
			}
		}
		if at < 0 {
			break
		}
		syms[at] = best.id
		syms = append(syms[:at+1], syms[at+2:]...)
	}
	return append([]int32(nil), syms...)
}

// mergeHeap is merge for long pre-tokens, with a heap of candidate merges
// over a linked list of symbols: O(n log n) in the pre-token's length.
func (b *BPE) mergeHeap(piece string) []int32 {
	syms := make([]symbol, 0, len(piece))
	for i := 0; i < len(piece); i++ {
		id := b.byteIDs[piece[i]]
		if id < 0 {
			id = b.unk
		}
		if id < 0 {
			continue // no token for this byte and no unknown token: dropped
		}
		syms = append(syms, symbol{id: id, prev: len(syms) - 1, next: len(syms) + 1})
	}
	if len(syms) == 0 {
		return nil
	}
	syms[len(syms)-1].next = -1
	var h candidates
	for i := 0; i+1 < len(syms); i++ {
		if m, ok := b.merges[pairKey(syms[i].id, syms[i+1].id)]; ok {
			h = append(h, candidate{rank: m.rank, id: m.id, pos: i})
		}
	}
	heap.Init(&h)
	for h.Len() > 0 {
		c := heap.Pop(&h).(candidate)
		l := &syms[c.pos]
		if l.gone || l.next < 0 {
			continue
		}
		r := &syms[l.next]
		if m, ok := b.merges[pairKey(l.id, r.id)]; !ok || m.id != c.id {
			continue // stale: a neighbour changed since it was queued
		}
		l.id = c.id
		r.gone = true
		l.next = r.next
		if l.next >= 0 {
			syms[l.next].prev = c.pos
		}
		if l.prev >= 0 {
			p := syms[l.prev]
			if m, ok := b.merges[pairKey(p.id, l.id)]; ok {
				heap.Push(&h, candidate{rank: m.rank, id: m.id, pos: l.prev})
			}
		}
		if l.next >= 0 {
			if m, ok := b.merges[pairKey(l.id, syms[l.next].id)]; ok {
				heap.Push(&h, candidate{rank: m.rank, id: m.id, pos: c.pos})
			}
		}
	}
	ids := make([]int32, 0, 4)
	for i := 0; i >= 0; i = syms[i].next {
		ids = append(ids, syms[i].id)
	}
	return ids
}

// Decode turns ids back into text: added tokens as their content, other
// tokens through the byte-level alphabet. Ids outside the vocabulary are
// skipped. The result is the exact bytes; a cut through a multi-byte
// character (decoding a prefix) is not replaced by U+FFFD.
func (b *BPE) Decode(ids []int32) string {
	buf := make([]byte, 0, 4*len(ids))
	for _, id := range ids {
		if id < 0 || int(id) >= len(b.tokens) || b.tokens[id] == "" {
			continue
		}
		if b.isAdded[id] {
			buf = append(buf, b.tokens[id]...)
		} else {
			buf = unByteLevel(buf, b.tokens[id])
		}
	}
	return string(buf)
}

// Token returns the token string of id (byte-level form for vocabulary
// tokens) and whether id has one.
func (b *BPE) Token(id int32) (string, bool) {
	if id < 0 || int(id) >= len(b.tokens) || b.tokens[id] == "" {
		return "", false
	}
	return b.tokens[id], true
}

// TokenID returns the id of an added token or of a vocabulary entry
// (byte-level form).
func (b *BPE) TokenID(tok string) (int32, bool) {
	if id, ok := b.added[tok]; ok {
		return id, true
	}
	id, ok := b.vocab[tok]
	return id, ok
}

// VocabSize is one more than the largest id.
func (b *BPE) VocabSize() int { return len(b.tokens) }

// AddSpecials adds each token that is not an added token yet as a special
// added token: with its vocabulary id when the vocabulary has it, else
// with the next free id. It returns how many were added. The JSON form and
// the Hash change accordingly. Not safe concurrently with other calls.
func (b *BPE) AddSpecials(tokens []string) int {
	n := 0
	for _, t := range tokens {
		if t == "" {
			continue
		}
		if _, ok := b.added[t]; ok {
			continue
		}
		id, ok := b.vocab[t]
		if !ok {
			id = int32(len(b.tokens))
			b.tokens = append(b.tokens, t)
			b.isAdded = append(b.isAdded, true)
		} else {
			b.tokens[id] = t
			b.isAdded[id] = true
		}
		b.added[t] = id
		raw, _ := json.Marshal(hfAdded{ID: id, Content: t, Special: true})
		b.addedRaw = append(b.addedRaw, raw)
		n++
	}
	if n > 0 {
		b.matcher = newAddedMatcher(b.added)
		b.mu.Lock()
		clear(b.cache)
		b.mu.Unlock()
		b.hashMu.Lock()
		b.hash = ""
		b.hashMu.Unlock()
	}
	return n
}

// JSON is the tokenizer.json form: the file it was read from with its
// top-level members in sorted order, without insignificant white space,
// and with the added tokens (including any from AddSpecials).
func (b *BPE) JSON() ([]byte, error) {
	top := make(map[string]json.RawMessage, len(b.top))
	for k, v := range b.top {
		top[k] = v
	}
	added, err := json.Marshal(b.addedRaw)
	if err != nil {
		return nil, err
	}
	top["added_tokens"] = added
	return marshalCanonical(top)
}

// Hash is the hex SHA-256 of JSON().
func (b *BPE) Hash() string {
	b.hashMu.Lock()
	defer b.hashMu.Unlock()
	if b.hash == "" {
		data, err := b.JSON()
		if err != nil {
			panic(fmt.Sprintf("tokenizer: BPE JSON: %v", err))
		}
		sum := sha256.Sum256(data)
		b.hash = hex.EncodeToString(sum[:])
	}
	return b.hash
}

// MaxTokenIDs is the most ids a tokenizer may have (4 Mi; the largest
// vocabularies in use are about 260 Ki).
const MaxTokenIDs = 1 << 22

// maxTokenID is the largest id a tokenizer.json of n tokens may give: its
// ids are dense in practice (a model pads its embedding beyond them, not
// the tokenizer), so an id past twice the count plus 1024 or past
// MaxTokenIDs is refused before the id tables are sized from it.
func maxTokenID(n int) int {
	return min(2*n+1024, MaxTokenIDs) - 1
}

package tokenizer

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"golang.org/x/text/unicode/norm"
)

const qwen3Dir = "testdata/qwen3"

var (
	qwen3Once sync.Once
	qwen3Tok  *BPE
	qwen3Err  error
)

// loadQwen3 loads the committed Qwen3 tokenizer.json once per test binary.
// With PATS_TOKREF=1 it first regenerates the reference data with node.
func loadQwen3(t testing.TB) *BPE {
	t.Helper()
	qwen3Once.Do(func() {
		if os.Getenv("PATS_TOKREF") == "1" {
			cmd := exec.Command("node", "gen.mjs")
			cmd.Dir = filepath.Join("..", "..", "scripts", "tokref")
			if out, err := cmd.CombinedOutput(); err != nil {
				qwen3Err = err
				t.Logf("gen.mjs: %s", out)
				return
			}
		}
		path := filepath.Join(qwen3Dir, "tokenizer.json")
		if _, err := os.Stat(path); err != nil {
			path += ".gz"
		}
		tok, err := Load(path)
		if err != nil {
			qwen3Err = err
			return
		}
		b, ok := tok.(*BPE)
		if !ok {
			qwen3Err = os.ErrInvalid
			return
		}
		qwen3Tok = b
	})
	if qwen3Err != nil {
		t.Fatalf("load Qwen3 tokenizer: %v", qwen3Err)
	}
	return qwen3Tok
}

type refCase struct {
	Text string  `json:"text"`
	IDs  []int32 `json:"ids"`
}

func loadReference(t *testing.T) []refCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(qwen3Dir, "reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Cases []refCase `json:"cases"`
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Cases) < 50 {
		t.Fatalf("reference.json has only %d cases", len(ref.Cases))
	}
	return ref.Cases
}

// TestQwen3Reference checks every committed reference case: our ids equal
// the independent implementation's, and decoding gives the text back.
func TestQwen3Reference(t *testing.T) {
	tok := loadQwen3(t)
	for _, c := range loadReference(t) {
		got := tok.Encode(c.Text)
		if !slices.Equal(got, c.IDs) {
			t.Errorf("Encode(%q)\n got %v\nwant %v", c.Text, got, c.IDs)
			continue
		}
		// The normaliser is NFC, so the text comes back composed.
		want := norm.NFC.String(c.Text)
		if dec := tok.Decode(got); dec != want {
			t.Errorf("Decode(Encode(%q)) = %q", c.Text, dec)
		}
	}
}

func TestQwen3Properties(t *testing.T) {
	tok := loadQwen3(t)
	if got, want := tok.VocabSize(), 151669; got != want {
		t.Errorf("VocabSize = %d, want %d", got, want)
	}
	for tokStr, want := range map[string]int32{"<|endoftext|>": 151643, "<|im_start|>": 151644, "<|im_end|>": 151645, "<think>": 151667} {
		if id, ok := tok.TokenID(tokStr); !ok || id != want {
			t.Errorf("TokenID(%q) = %d, %v; want %d", tokStr, id, ok, want)
		}
	}
	// Encoding twice (the second time from the cache) gives the same ids.
	text := "The quick brown fox jumps over the lazy dog. 12345 你好"
	a, b := tok.Encode(text), tok.Encode(text)
	if !slices.Equal(a, b) || len(a) == 0 {
		t.Errorf("cached encode differs: %v vs %v", a, b)
	}
	h := tok.Hash()
	if len(h) != 64 || h != tok.Hash() {
		t.Errorf("Hash = %q", h)
	}
}

// TestQwen3JSONAndSpecials reads the JSON form back (same hash, same ids),
// then adds the pats specials to the copy and checks that they are split
// out, decoded, and kept by the JSON form.
func TestQwen3JSONAndSpecials(t *testing.T) {
	tok := loadQwen3(t)
	data, err := tok.JSON()
	if err != nil {
		t.Fatal(err)
	}
	tk, err := FromJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	b := tk.(*BPE)
	if b.Hash() != tok.Hash() {
		t.Errorf("hash changed across JSON round trip")
	}
	text := "<|im_start|>user\nI'll pay $3.14 for 你好 👍🏽<|im_end|>"
	if !slices.Equal(b.Encode(text), tok.Encode(text)) {
		t.Errorf("re-read tokenizer encodes differently")
	}

	h0, n0 := b.Hash(), b.VocabSize()
	if n := b.AddSpecials(Specials); n != len(Specials) {
		t.Fatalf("AddSpecials added %d, want %d", n, len(Specials))
	}
	if n := b.AddSpecials(Specials); n != 0 {
		t.Errorf("second AddSpecials added %d, want 0", n)
	}
	if b.VocabSize() != n0+len(Specials) {
		t.Errorf("VocabSize = %d, want %d", b.VocabSize(), n0+len(Specials))
	}
	if b.Hash() == h0 {
		t.Errorf("hash did not change after AddSpecials")
	}
	if tok.VocabSize() != n0 {
		t.Errorf("AddSpecials on a copy changed the original")
	}
	act, _ := b.TokenID(Act)
	end, _ := b.TokenID(End)
	ids := b.Encode(Act + "go to desk 1" + End)
	if len(ids) < 3 || ids[0] != act || ids[len(ids)-1] != end {
		t.Errorf("specials not split out: %v (act %d end %d)", ids, act, end)
	}
	if got := b.Decode(ids); got != Act+"go to desk 1"+End {
		t.Errorf("Decode = %q", got)
	}
	out, err := b.JSON()
	if err != nil {
		t.Fatal(err)
	}
	again, err := FromJSON(out)
	if err != nil {
		t.Fatal(err)
	}
	if id, ok := again.TokenID(Skill); !ok || id != int32(n0+len(Specials)-1) {
		t.Errorf("re-read TokenID(Skill) = %d, %v", id, ok)
	}
	if again.Hash() != b.Hash() {
		t.Errorf("hash differs after JSON round trip with added specials")
	}
}

// tinyBPE is a hand-made byte-level BPE: the vocabulary has the bytes of
// "a", "b", "c", "d", " " (as 'Ġ') and the merges below, in rank order.
func tinyBPE(t *testing.T, merges any) *BPE {
	t.Helper()
	vocab := map[string]int32{"a": 0, "b": 1, "c": 2, "d": 3, "Ġ": 4,
		"ab": 5, "bc": 6, "abc": 7, "Ġa": 8, "Ġabc": 9, "cd": 10, "aa": 11}
	file := map[string]any{
		"version":      "1.0",
		"added_tokens": []any{map[string]any{"id": 12, "content": "<|x|>", "special": true}},
		"normalizer":   map[string]any{"type": "NFC"},
		"pre_tokenizer": map[string]any{"type": "Sequence", "pretokenizers": []any{
			map[string]any{"type": "Split", "pattern": map[string]any{"Regex": Qwen2Pattern}, "behavior": "Isolated", "invert": false},
			map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false},
		}},
		"decoder": map[string]any{"type": "ByteLevel"},
		"model":   map[string]any{"type": "BPE", "vocab": vocab, "merges": merges},
	}
	data, err := json.Marshal(file)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := FromJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	return tok.(*BPE)
}

func TestTinyBPE(t *testing.T) {
	// Ranks: 0 "b c", 1 "a b", 2 "a bc", 3 "Ġ a", 4 "Ġa bc", 5 "c d", 6 "a a".
	strMerges := []string{"b c", "a b", "a bc", "Ġ a", "Ġa bc", "c d", "a a"}
	pairMerges := [][2]string{{"b", "c"}, {"a", "b"}, {"a", "bc"}, {"Ġ", "a"}, {"Ġa", "bc"}, {"c", "d"}, {"a", "a"}}
	cases := []struct {
		text string
		want []int32
	}{
		{"abc", []int32{7}},        // b c (rank 0) first, then a bc
		{"ab", []int32{5}},         // a b
		{"abcd", []int32{7, 3}},    // bc wins over cd (rank 0 < 5), then abc
		{"bcd", []int32{6, 3}},     // bc before cd
		{"cd", []int32{10}},        // c d
		{" abc", []int32{4, 7}},    // bc (0), then a bc (2) beats Ġ a (3); no "Ġ abc" merge
		{" abd", []int32{4, 5, 3}}, // a b (1) beats Ġ a (3)
		{" acd", []int32{8, 10}},   // Ġ a (3) before c d (5)
		{" a", []int32{8}},
		{"aaa", []int32{11, 0}},   // leftmost pair first on equal rank
		{"aaaa", []int32{11, 11}}, // non-overlapping left to right
		{"ab<|x|>cd", []int32{5, 12, 10}},
		{"a b", []int32{0, 4, 1}},     // " b" has no merge
		{"dcba", []int32{3, 2, 1, 0}}, // no merges apply
	}
	for name, merges := range map[string]any{"strings": strMerges, "pairs": pairMerges} {
		tok := tinyBPE(t, merges)
		for _, c := range cases {
			got := tok.Encode(c.text)
			if !slices.Equal(got, c.want) {
				t.Errorf("%s: Encode(%q) = %v, want %v", name, c.text, got, c.want)
			}
			if dec := tok.Decode(got); dec != c.text {
				t.Errorf("%s: Decode(Encode(%q)) = %q", name, c.text, dec)
			}
		}
	}
}

func TestTinyBPEDropsUnknownBytes(t *testing.T) {
	tok := tinyBPE(t, []string{"a b"})
	// 'z' has no token and the model no unknown token: it is dropped
	// before merging, so its neighbours merge (as Hugging Face BPE does).
	if got := tok.Encode("azb"); !slices.Equal(got, []int32{5}) {
		t.Errorf("Encode(azb) = %v, want [5]", got)
	}
	if got := tok.Encode("zz"); len(got) != 0 {
		t.Errorf("Encode(zz) = %v, want none", got)
	}
}

func TestFromJSONErrors(t *testing.T) {
	good := func() map[string]any {
		return map[string]any{
			"normalizer": nil,
			"pre_tokenizer": map[string]any{"type": "Sequence", "pretokenizers": []any{
				map[string]any{"type": "Split", "pattern": map[string]any{"Regex": Qwen2Pattern}, "behavior": "Isolated"},
				map[string]any{"type": "ByteLevel", "use_regex": false},
			}},
			"model": map[string]any{"type": "BPE", "vocab": map[string]int32{"a": 0, "b": 1, "ab": 2}, "merges": []string{"a b"}},
		}
	}
	cases := []struct {
		name   string
		mutate func(m map[string]any)
		want   string
	}{
		{"unknown model", func(m map[string]any) { m["model"] = map[string]any{"type": "Unigram"} }, "unsupported model type"},
		{"no model", func(m map[string]any) { delete(m, "model") }, "no model"},
		{"gpt2 regex", func(m map[string]any) {
			m["pre_tokenizer"] = map[string]any{"type": "ByteLevel", "use_regex": true}
		}, "unsupported pre_tokenizer"},
		{"normalizer", func(m map[string]any) { m["normalizer"] = map[string]any{"type": "NFKC"} }, "unsupported normalizer"},
		{"merge missing", func(m map[string]any) {
			m["model"] = map[string]any{"type": "BPE", "vocab": map[string]int32{"a": 0, "b": 1}, "merges": []string{"a b"}}
		}, "missing from the vocabulary"},
		{"bad merge", func(m map[string]any) {
			m["model"] = map[string]any{"type": "BPE", "vocab": map[string]int32{"a": 0}, "merges": []string{"ab"}}
		}, "has no space"},
	}
	m := good()
	data, _ := json.Marshal(m)
	if _, err := FromJSON(data); err != nil {
		t.Fatalf("good file: %v", err)
	}
	for _, c := range cases {
		m := good()
		c.mutate(m)
		data, _ := json.Marshal(m)
		_, err := FromJSON(data)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := FromJSON([]byte("not json")); err == nil {
		t.Errorf("FromJSON(not json) succeeded")
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Errorf("Load(missing) succeeded")
	}
}

// TestQwen2Split checks the hand-written pre-tokenizer on pieces whose
// boundaries follow from the pattern's alternatives.
func TestQwen2Split(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"Hello world", []string{"Hello", " world"}},
		{"hello  world", []string{"hello", " ", " world"}},
		{"a   ", []string{"a", "   "}},
		{"a\n\n b", []string{"a", "\n\n", " b"}},
		{"x \n  y", []string{"x", " \n", " ", " y"}},
		{"12345", []string{"1", "2", "3", "4", "5"}},
		{"3.14", []string{"3", ".", "1", "4"}},
		{"I'll WE'RE it's", []string{"I", "'ll", " WE", "'RE", " it", "'s"}},
		{"'sun", []string{"'s", "un"}},
		{"!!!hi", []string{"!!!", "hi"}},
		{".hi", []string{".hi"}},
		{" !?\n\nx", []string{" !?\n\n", "x"}},
		{"\tfoo", []string{"\tfoo"}},
		{"你好世界", []string{"你好世界"}},
		{"a\r\nb", []string{"a", "\r\n", "b"}},
		{"end \n", []string{"end", " \n"}},
	}
	for _, c := range cases {
		var got []string
		splitQwen2(c.in, func(p string) { got = append(got, p) })
		if !slices.Equal(got, c.want) {
			t.Errorf("split(%q) = %q, want %q", c.in, got, c.want)
		}
		if strings.Join(got, "") != c.in {
			t.Errorf("split(%q) pieces do not concatenate back", c.in)
		}
	}
}

func BenchmarkQwen3Encode(b *testing.B) {
	tok := loadQwen3(b)
	text := strings.Repeat("You are in the middle of a room. Looking quickly around you, you see a cabinet 6, a cabinet 5, "+
		"a countertop 3, a drawer 2, a fridge 1. Your task is to: put a clean apple in the fridge.\n"+
		"<|im_start|>assistant\ngo to countertop 1<|im_end|>\n", 20)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tok.Encode(text)
	}
}

func BenchmarkQwen3EncodeUncached(b *testing.B) {
	tok := loadQwen3(b)
	// 300 distinct pseudo-random words, so that every pre-token is merged.
	r := rand.New(rand.NewPCG(1, 2))
	var sb strings.Builder
	for i := 0; i < 300; i++ {
		sb.WriteByte(' ')
		for n := 3 + r.IntN(8); n > 0; n-- {
			sb.WriteByte(byte('a' + r.IntN(26)))
		}
	}
	text := sb.String()
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tok.mu.Lock()
		clear(tok.cache)
		tok.mu.Unlock()
		tok.Encode(text)
	}
}
func BenchmarkQwen3Load(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(qwen3Dir, "tokenizer.json"))
	if err != nil {
		b.Skip(err)
	}
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		if _, err := FromJSON(data); err != nil {
			b.Fatal(err)
		}
	}
}

// TestQwen3Concurrent encodes from several goroutines at once (the cache is
// shared) and checks every result against a sequential encoding.
func TestQwen3Concurrent(t *testing.T) {
	tok := loadQwen3(t)
	cases := loadReference(t)
	var wg sync.WaitGroup
	errs := make(chan string, 4*len(cases))
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := range cases {
				c := cases[(i+g*17)%len(cases)]
				if got := tok.Encode(c.Text); !slices.Equal(got, c.IDs) {
					errs <- c.Text
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for text := range errs {
		t.Errorf("concurrent Encode(%q) differs from the reference", text)
	}
}

// TestMergePathsAgree checks the scanning merge (short pre-tokens) against
// the heap merge (long ones) on every pre-token of the reference texts and
// on long repetitive words.
func TestMergePathsAgree(t *testing.T) {
	tok := loadQwen3(t)
	var pieces []string
	for _, c := range loadReference(t) {
		splitQwen2(norm.NFC.String(c.Text), func(p string) { pieces = append(pieces, p) })
	}
	pieces = append(pieces, strings.Repeat("ab", 24), strings.Repeat(" ", 48), "internationalization", "Ġ你好世界😀")
	n := 0
	for _, p := range pieces {
		if len(p) > smallWord {
			continue
		}
		n++
		if s, h := tok.mergeSmall(p), tok.mergeHeap(p); !slices.Equal(s, h) {
			t.Errorf("merge(%q): scan %v, heap %v", p, s, h)
		}
	}
	if n < 100 {
		t.Errorf("only %d pre-tokens compared", n)
	}
}

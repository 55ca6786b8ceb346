package tokenizer

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

func TestWords(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"go to countertop 1", []string{"go", "to", "countertop", "1"}},
		{"put apple 1 in/on countertop 2", []string{"put", "apple", "1", "in", "/", "on", "countertop", "2"}},
		{"search[red shoes]", []string{"search", "[", "red", "shoes", "]"}},
		{"$45.00", []string{"$", "45", ".", "00"}},
		{"can't", []string{"can", "'", "t"}},
		{"read_skill heat-then-place", []string{"read_skill", "heat", "-", "then", "-", "place"}},
		{"click[< prev]", []string{"click", "[", "<", "prev", "]"}},
		{"Hello,  WORLD!", []string{"hello", ",", "world", "!"}},
		{"<|act|>go north<|end|>", []string{Act, "go", "north", End}},
		{"<|obs|>You see: a desk.", []string{Obs, "you", "see", ":", "a", "desk", "."}},
		{"<|ACT|>", []string{"<", "|", "act", "|", ">"}}, // specials are case-sensitive
		{"<|act", []string{"<", "|", "act"}},
		{"\t a \n\n b ", []string{"a", "b"}},
		{"Café Über", []string{"café", "über"}},
		{"", nil},
		{"   ", nil},
	}
	for _, c := range cases {
		if got := Words(c.in); !slices.Equal(got, c.want) {
			t.Errorf("Words(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestNewWordLevelIDs(t *testing.T) {
	w := NewWordLevel([]string{"zebra", "apple", "mango", "apple", "", Act, "mango"})
	for i, s := range Specials {
		if id, ok := w.TokenID(s); !ok || id != int32(i) {
			t.Errorf("TokenID(%q) = %d, %v; want %d", s, id, ok, i)
		}
	}
	n := int32(len(Specials))
	for i, word := range []string{"apple", "mango", "zebra"} {
		if id, ok := w.TokenID(word); !ok || id != n+int32(i) {
			t.Errorf("TokenID(%q) = %d, %v; want %d", word, id, ok, n+int32(i))
		}
	}
	if w.VocabSize() != len(Specials)+3 {
		t.Errorf("VocabSize = %d, want %d", w.VocabSize(), len(Specials)+3)
	}
	if tok, ok := w.Token(n + 1); !ok || tok != "mango" {
		t.Errorf("Token(%d) = %q, %v", n+1, tok, ok)
	}
	if _, ok := w.Token(int32(w.VocabSize())); ok {
		t.Errorf("Token(VocabSize) exists")
	}
}

// actions are strings of the shapes the built-in environments produce.
var actions = []string{
	"go to countertop 1",
	"take apple 1 from countertop 2",
	"put apple 1 in/on countertop 2",
	"open fridge 1",
	"close drawer 12",
	"heat potato 1 with microwave 1",
	"cool mug 2 with fridge 1",
	"clean knife 3 with sinkbasin 1",
	"use desklamp 1",
	"examine cd 1",
	"inventory",
	"look",
	"search[red shoes]",
	"search[men's running shoes size 10 under 50 dollars]",
	"click[b07xyz1234]",
	"click[< prev]",
	"click[next >]",
	"click[back to search]",
	"click[buy now]",
	"click[description]",
	"click[size: 10]",
	"click[$45.00]",
	"click[x-large]",
	"click[red, blue]",
	"search[shoes (men)]",
	"read_skill heat-then-place",
	"read_skill clean-then-place",
	"read_skill pick-two-and-place",
	"read_skill look_at_obj_in_light",
	"answer[new york]",
	"answer[1,000]",
	"answer[3.14]",
	"answer[50%]",
	"search[who wrote the old man and the sea?]",
	"search[st. louis cardinals]",
	"answer[it's a trap]",
	Act + "go to desk 1" + End,
	Skill + "heat then place" + End,
}

func TestWordLevelRoundTrip(t *testing.T) {
	var words []string
	for _, a := range actions {
		words = append(words, Words(a)...)
	}
	w := NewWordLevel(words)
	unk, _ := w.TokenID(Unk)
	for _, a := range actions {
		ids := w.Encode(a)
		if slices.Contains(ids, unk) {
			t.Errorf("Encode(%q) has unknown words: %v", a, ids)
		}
		want := strings.ReplaceAll(strings.ReplaceAll(a, Act, Act+" "), End, " "+End)
		want = strings.ReplaceAll(want, Skill, Skill+" ")
		if got := w.Decode(ids); got != want {
			t.Errorf("Decode(Encode(%q)) = %q, want %q", a, got, want)
		}
	}
}

func TestWordLevelEncode(t *testing.T) {
	w := NewWordLevel(Words("go to the desk 1 and open it"))
	id := func(s string) int32 {
		i, ok := w.TokenID(s)
		if !ok {
			t.Fatalf("no id for %q", s)
		}
		return i
	}
	cases := []struct {
		in   string
		want []int32
	}{
		{"go to desk 1", []int32{id("go"), id("to"), id("desk"), id("1")}},
		{"GO To Desk 1", []int32{id("go"), id("to"), id("desk"), id("1")}},
		{"go to sofa 2", []int32{id("go"), id("to"), id(Unk), id(Unk)}},
		{"<|act|>open it<|end|>", []int32{id(Act), id("open"), id("it"), id(End)}},
		{"<|obs|><|act|>", []int32{id(Obs), id(Act)}},
		{"open<|pad|>it", []int32{id("open"), id(Pad), id("it")}},
		{"open!", []int32{id("open"), id(Unk)}},
		{"", nil},
	}
	for _, c := range cases {
		if got := w.Encode(c.in); !slices.Equal(got, c.want) {
			t.Errorf("Encode(%q) = %v, want %v", c.in, got, c.want)
		}
	}
	// Decode skips ids outside the vocabulary.
	if got := w.Decode([]int32{id("go"), -1, int32(w.VocabSize()), id("to")}); got != "go to" {
		t.Errorf("Decode with bad ids = %q", got)
	}
}

func TestWordLevelJSONRoundTrip(t *testing.T) {
	w := NewWordLevel(Words("put apple 1 in/on countertop 2; search[red shoes] $45.00 can't"))
	data, err := w.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var parsed map[string]any
	if err := json.Unmarshal(data, &parsed); err != nil {
		t.Fatalf("JSON is not valid: %v", err)
	}
	model := parsed["model"].(map[string]any)
	if model["type"] != "WordLevel" || model["unk_token"] != Unk {
		t.Errorf("model = %v", model)
	}
	if added := parsed["added_tokens"].([]any); len(added) != len(Specials) {
		t.Errorf("%d added tokens, want %d", len(added), len(Specials))
	}
	tok, err := FromJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	if tok.Hash() != w.Hash() {
		t.Errorf("hash changed across the JSON round trip")
	}
	again, _ := tok.JSON()
	if !bytes.Equal(again, data) {
		t.Errorf("JSON differs after a round trip")
	}
	if tok.VocabSize() != w.VocabSize() {
		t.Errorf("VocabSize %d, want %d", tok.VocabSize(), w.VocabSize())
	}
	text := "<|act|>put apple 1 in/on countertop 2<|end|> and more"
	if !slices.Equal(tok.Encode(text), w.Encode(text)) {
		t.Errorf("re-read tokenizer encodes differently")
	}
	path := filepath.Join(t.TempDir(), "tokenizer.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	loaded, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Hash() != w.Hash() {
		t.Errorf("Load gives another hash")
	}
}

func TestWordLevelHash(t *testing.T) {
	a := NewWordLevel([]string{"b", "a", "c"})
	b := NewWordLevel([]string{"c", "c", "a", "b"})
	c := NewWordLevel([]string{"a", "b", "d"})
	if a.Hash() != b.Hash() {
		t.Errorf("same vocabulary, different hashes")
	}
	if a.Hash() == c.Hash() {
		t.Errorf("different vocabularies, same hash")
	}
	if len(a.Hash()) != 64 {
		t.Errorf("Hash %q is not hex SHA-256", a.Hash())
	}
}

// TestWordLevelGolden pins the tokenizer.json form (and so the Hash) of a
// small vocabulary: a change to it changes every trajectory's tokenizer
// hash, so it must be deliberate (go test -update rewrites the file).
func TestWordLevelGolden(t *testing.T) {
	w := NewWordLevel(goldenWords())
	data, err := w.JSON()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "wordlevel", "tokenizer.json")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(append(data, '\n'), want) {
		t.Errorf("tokenizer.json differs from %s (run go test -update if intended)", path)
	}
}

func goldenWords() []string {
	var words []string
	for _, a := range actions {
		words = append(words, Words(a)...)
	}
	return words
}

// TestWordLevelReference checks the golden WordLevel tokenizer.json against
// the ids an independent Hugging Face-compatible implementation gives for it
// (scripts/tokref writes testdata/wordlevel/reference.json).
func TestWordLevelReference(t *testing.T) {
	tok, err := Load(filepath.Join("testdata", "wordlevel", "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("testdata", "wordlevel", "reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Cases []refCase `json:"cases"`
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Cases) < 10 {
		t.Fatalf("only %d reference cases", len(ref.Cases))
	}
	for _, c := range ref.Cases {
		if got := tok.Encode(c.Text); !slices.Equal(got, c.IDs) {
			t.Errorf("Encode(%q) = %v, reference %v", c.Text, got, c.IDs)
		}
	}
}

func TestWordLevelFromJSONErrors(t *testing.T) {
	w := NewWordLevel([]string{"a"})
	data, _ := w.JSON()
	cases := []struct {
		name, old, new, want string
	}{
		{"normalizer", `"normalizer":{"type":"Lowercase"}`, `"normalizer":null`, "unsupported normalizer"},
		{"pre_tokenizer", `{"type":"WhitespaceSplit"},`, ``, "unsupported pre_tokenizer"},
		{"unk", `"unk_token":"<|unk|>"`, `"unk_token":"<|nope|>"`, "not in the vocabulary"},
		{"duplicate id", `"a":11`, `"a":10`, "id 10 used by"},
	}
	for _, c := range cases {
		bad := strings.Replace(string(data), c.old, c.new, 1)
		if bad == string(data) {
			t.Fatalf("%s: %q not found in the JSON", c.name, c.old)
		}
		_, err := FromJSON([]byte(bad))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}

func BenchmarkWordLevelEncode(b *testing.B) {
	w := NewWordLevel(goldenWords())
	text := strings.Repeat("put apple 1 in/on countertop 2 search[red shoes] click[< prev] ", 50)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w.Encode(text)
	}
}

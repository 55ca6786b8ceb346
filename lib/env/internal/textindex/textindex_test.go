package textindex

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pats-rl/pats/lib/words"
)

func TestWords(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"   \t\n ", nil},
		{"Red Cup", []string{"red", "cup"}},
		{"$45.99", []string{"$", "45", ".", "99"}},
		{"in/on, (x)", []string{"in", "/", "on", ",", "(", "x", ")"}},
		{"a_b", []string{"a", "_", "b"}},
		{"Café ÜBER-cool", []string{"café", "über", "-", "cool"}},
		{"search[red cup]", []string{"search", "[", "red", "cup", "]"}},
		{"x2 2x", []string{"x2", "2x"}},
	}
	for _, c := range cases {
		if got := words.Alnum(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("words.Alnum(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestPhrases(t *testing.T) {
	cases := []struct {
		text, phrase string
		want         bool
	}{
		{"a red cup", "red", true},
		{"a reddish cup", "red", false},
		{"A Red  Cup!", "red cup", true},
		{"a red cup", "cup red", false},
		{"size: large", "size : large", true},
		{"size: large", "size large", false},
		{"anything", "", false},
		{"", "", true},
		{"", "x", false},
	}
	for _, c := range cases {
		if got := HasPhrase(PhraseText(c.text), c.phrase); got != c.want {
			t.Errorf("HasPhrase(PhraseText(%q), %q) = %v, want %v", c.text, c.phrase, got, c.want)
		}
	}
	if got := PhraseText("A  b,c"); got != " a b , c " {
		t.Errorf("PhraseText = %q", got)
	}
}

// small is a corpus whose rankings can be worked out by hand.
var small = []string{
	"red cup",      // 0
	"red red cup",  // 1
	"blue plate",   // 2
	"the red cup",  // 3: same kept words as 0 once "the" is a stop word
	"green bowl !", // 4
}

func TestSearchHandWorked(t *testing.T) {
	ix := New(small, Options{Stop: map[string]bool{"the": true}})
	cases := []struct {
		query string
		k     int
		want  []int
	}{
		// "red": doc 1 (tf 2) beats the tf-1 documents, which tie (same
		// length) and go by index.
		{"red", 10, []int{1, 0, 3}},
		{"red", 2, []int{1, 0}},
		{"RED red, red", 10, []int{1, 0, 3}},
		// "plate" is rarer than "cup": doc 2 first.
		{"cup plate", 10, []int{2, 0, 3, 1}},
		{"plate", 0, []int{}},
		{"the", 10, []int{}},
		{"yellow", 10, []int{}},
		{"!", 10, []int{4}},
		{"", 3, []int{}},
	}
	for _, c := range cases {
		if got := ix.Search(c.query, c.k); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Search(%q, %d) = %v, want %v", c.query, c.k, got, c.want)
		}
	}
	if ix.Len() != len(small) {
		t.Errorf("Len = %d", ix.Len())
	}
	// "plate": df 1 of 5 documents, so idf = ln(1 + 4.5/1.5) = ln 4; its
	// document keeps 2 words, the mean is 12/5 (2, 3, 2, 2 and 3 kept).
	dl, avg := 2.0, 12.0/5
	want := math.Log(4) * (1 * 2.2 / (1 + 1.2*(0.25+0.75*dl/avg)))
	if got := ix.post["plate"][0].weight; math.Abs(got-want) > 1e-12 {
		t.Errorf("weight of plate = %v, want %v", got, want)
	}
}

// corpus returns n pseudo-random documents over a small vocabulary, so that
// many scores tie.
func corpus(n int, seed uint64) []string {
	vocab := strings.Fields("a b c d e f g h i j k l m n o p the of")
	s := seed
	next := func() uint64 {
		s = s*6364136223846793005 + 1442695040888963407
		return s >> 33
	}
	out := make([]string, n)
	for i := range out {
		m := 1 + int(next()%9)
		ws := make([]string, m)
		for j := range ws {
			ws[j] = vocab[next()%uint64(len(vocab))]
		}
		out[i] = strings.Join(ws, " ")
	}
	return out
}

// reference scores every document from the definition, one at a time, and
// returns all with a positive score, best first.
func reference(texts []string, stop map[string]bool, order Order, query string) []int {
	kept := make([][]string, len(texts))
	df := map[string]int{}
	total := 0.0
	for d, t := range texts {
		seen := map[string]bool{}
		for _, w := range words.Alnum(t) {
			if stop[w] {
				continue
			}
			kept[d] = append(kept[d], w)
			if !seen[w] {
				seen[w] = true
				df[w]++
			}
		}
		total += float64(len(kept[d]))
	}
	avg := total / float64(len(texts))
	var qw []string
	for _, w := range words.Alnum(query) {
		if !stop[w] && !slices.Contains(qw, w) {
			qw = append(qw, w)
		}
	}
	type hit struct {
		d int
		s float64
	}
	var hits []hit
	n := float64(len(texts))
	for d := range texts {
		s := 0.0
		for _, w := range qw {
			tf := 0.0
			for _, x := range kept[d] {
				if x == w {
					tf++
				}
			}
			if tf == 0 {
				continue
			}
			f := float64(df[w])
			idf := math.Log(1 + (n-f+0.5)/(f+0.5))
			den := tf + float64(K1*(1-B+B*float64(len(kept[d]))/avg))
			if order == LeftToRight {
				s += idf * tf * (K1 + 1) / den
			} else {
				s += idf * (tf * (K1 + 1) / den)
			}
		}
		if s > 0 {
			hits = append(hits, hit{d, s})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int {
		switch {
		case a.s > b.s:
			return -1
		case a.s < b.s:
			return 1
		}
		return 0
	})
	out := []int{}
	for _, h := range hits {
		out = append(out, h.d)
	}
	return out
}

func TestSearchMatchesReference(t *testing.T) {
	texts := corpus(300, 7)
	stop := map[string]bool{"the": true, "of": true}
	queries := append(corpus(200, 11), "", "the of", "a a a", "p o n m l k j i h g f e d c b a")
	for _, order := range []Order{Grouped, LeftToRight} {
		ix := New(texts, Options{Stop: stop, Order: order})
		for _, q := range queries {
			all := reference(texts, stop, order, q)
			for _, k := range []int{0, 1, 2, 3, 10, 16, 17, 50, 1000} {
				got, want := ix.Search(q, k), all[:min(k, len(all))]
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("order %d, Search(%q, %d) = %v, want %v", order, q, k, got, want)
				}
			}
		}
	}
}

func TestWeightsPositiveAndOrdersClose(t *testing.T) {
	texts := corpus(500, 3)
	g := New(texts, Options{Order: Grouped})
	l := New(texts, Options{Order: LeftToRight})
	differ := 0
	for w, ps := range g.post {
		for i, p := range ps {
			q := l.post[w][i]
			if p.weight <= 0 || q.weight <= 0 {
				t.Fatalf("weight of %q in %d not positive: %v %v", w, p.doc, p.weight, q.weight)
			}
			if p.doc != q.doc || math.Abs(p.weight-q.weight) > 1e-15*p.weight {
				t.Fatalf("orders disagree on %q: %+v %+v", w, p, q)
			}
			if p.weight != q.weight {
				differ++
			}
		}
	}
	t.Logf("%d term weights differ in the last bits between the orders", differ)
}

func TestDeterministicAndConcurrent(t *testing.T) {
	texts := corpus(400, 5)
	a, b := New(texts, Options{}), New(texts, Options{})
	if !reflect.DeepEqual(a.post, b.post) {
		t.Fatal("two builds differ")
	}
	queries := corpus(64, 9)
	want := make([][]int, len(queries))
	for i, q := range queries {
		want[i] = a.Search(q, 5)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < 20; r++ {
				for i, q := range queries {
					if got := a.Search(q, 5); !reflect.DeepEqual(got, want[i]) {
						errs <- fmt.Sprintf("concurrent Search(%q) = %v, want %v", q, got, want[i])
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}

func TestEmptyIndex(t *testing.T) {
	ix := New(nil, Options{})
	if got := ix.Search("anything", 3); len(got) != 0 || got == nil {
		t.Fatalf("empty index: %v", got)
	}
}

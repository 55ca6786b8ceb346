package textindex

import (
	"math"
	"slices"
	"sync"

	"github.com/pats-rl/pats/lib/words"
)

// BM25 parameters.
const (
	K1 = 1.2
	B  = 0.75
)

// Order is the order in which a term weight's arithmetic is evaluated (see
// the package documentation).
type Order int

const (
	// Grouped evaluates idf * (tf*(K1+1) / (tf + K1*(1-B+B*dl/avgdl))).
	Grouped Order = iota
	// LeftToRight evaluates idf * tf * (K1+1) / (tf + K1*(1-B+B*dl/avgdl))
	// from left to right.
	LeftToRight
)

// Options configure New.
type Options struct {
	// Stop holds the words dropped from documents and queries; nil keeps
	// every word. New does not copy it: it must not change afterwards.
	Stop map[string]bool
	// Order is the evaluation order of term weights.
	Order Order
}

type posting struct {
	doc    int32
	weight float64
}

// Index is a BM25 inverted index over a fixed list of documents. It is
// read-only after New and safe for concurrent use.
type Index struct {
	stop map[string]bool
	post map[string][]posting
	n    int
	pool sync.Pool // *[]float64 score buffers of length n, all zero when put back
}

// New indexes texts; document i is texts[i].
func New(texts []string, opt Options) *Index {
	ix := &Index{stop: opt.Stop, post: map[string][]posting{}, n: len(texts)}
	type count struct {
		doc int32
		tf  int32
	}
	counts := map[string][]count{}
	var order []string // words in order of first occurrence, for a deterministic build
	dl := make([]float64, len(texts))
	total := 0.0
	for d, t := range texts {
		tf := map[string]int32{}
		var first []string
		for _, w := range words.Alnum(t) {
			if ix.stop[w] {
				continue
			}
			if tf[w] == 0 {
				first = append(first, w)
			}
			tf[w]++
			dl[d]++
		}
		for _, w := range first {
			if counts[w] == nil {
				order = append(order, w)
			}
			counts[w] = append(counts[w], count{int32(d), tf[w]})
		}
		total += dl[d]
	}
	avgdl := 0.0
	if len(texts) > 0 {
		avgdl = total / float64(len(texts))
	}
	for _, w := range order {
		cs := counts[w]
		df := float64(len(cs))
		idf := math.Log(1 + (float64(ix.n)-df+0.5)/(df+0.5))
		ps := make([]posting, len(cs))
		for i, c := range cs {
			// The float64 conversion rounds K1*(...) before the addition, so
			// no architecture fuses them into one multiply-add.
			tf := float64(c.tf)
			var wt float64
			if opt.Order == LeftToRight {
				wt = idf * tf * (K1 + 1) / (tf + float64(K1*(1-B+B*dl[c.doc]/avgdl)))
			} else {
				wt = idf * (tf * (K1 + 1) / (tf + float64(K1*(1-B+B*dl[c.doc]/avgdl))))
			}
			ps[i] = posting{c.doc, wt}
		}
		ix.post[w] = ps
	}
	ix.pool.New = func() any { b := make([]float64, ix.n); return &b }
	return ix
}

// Len is the number of documents.
func (ix *Index) Len() int { return ix.n }

// Search returns the indices of at most k documents that share a kept word
// with query, by descending BM25 score, equal scores by ascending index.
// Repeated query words count once.
func (ix *Index) Search(query string, k int) []int {
	if k <= 0 || ix.n == 0 {
		return []int{}
	}
	buf := ix.pool.Get().(*[]float64)
	scores := *buf
	var touched []int32
	seen := map[string]bool{}
	for _, w := range words.Alnum(query) {
		if ix.stop[w] || seen[w] {
			continue
		}
		seen[w] = true
		for _, p := range ix.post[w] {
			if scores[p.doc] == 0 {
				touched = append(touched, p.doc)
			}
			scores[p.doc] += p.weight
		}
	}
	better := func(a, b int32) bool {
		if scores[a] != scores[b] {
			return scores[a] > scores[b]
		}
		return a < b
	}
	var top []int32
	if k >= len(touched) || k > 16 {
		// Many results wanted: sort everything.
		top = touched
		slices.SortFunc(top, func(a, b int32) int {
			if better(a, b) {
				return -1
			}
			if better(b, a) {
				return 1
			}
			return 0
		})
		if len(top) > k {
			top = top[:k]
		}
	} else {
		// A few results wanted: keep the k best by insertion.
		top = make([]int32, 0, k+1)
		for _, d := range touched {
			pos := len(top)
			for pos > 0 && better(d, top[pos-1]) {
				pos--
			}
			if pos >= k {
				continue
			}
			top = append(top, 0)
			copy(top[pos+1:], top[pos:])
			top[pos] = d
			if len(top) > k {
				top = top[:k]
			}
		}
	}
	out := make([]int, len(top))
	for i, d := range top {
		out[i] = int(d)
	}
	for _, d := range touched {
		scores[d] = 0
	}
	ix.pool.Put(buf)
	return out
}

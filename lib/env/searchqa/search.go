package searchqa

import (
	"math"
	"sync"
)

// TopK is the number of passages a search returns (Search-R1's top 3).
const TopK = 3

// stopWords are dropped from passages and queries before ranking.
var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "in": true, "is": true, "was": true,
	"by": true, "and": true, "at": true, "as": true, "its": true, "for": true, "to": true,
	"which": true, "what": true, "who": true, "where": true, "did": true, "does": true,
	"?": true, ".": true, ",": true,
}

const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

type posting struct {
	doc int32
	tf  int32
}

// index is a BM25 inverted index over the passages.
type index struct {
	post  map[string][]posting
	dl    []float64
	avgdl float64
	n     int
	pool  sync.Pool // *[]float64 score buffers, all zero when returned
}

func newIndex(texts []string) *index {
	ix := &index{post: map[string][]posting{}, dl: make([]float64, len(texts)), n: len(texts)}
	total := 0.0
	for d, t := range texts {
		tf := map[string]int32{}
		var order []string
		for _, w := range words(t) {
			if stopWords[w] {
				continue
			}
			if tf[w] == 0 {
				order = append(order, w)
			}
			tf[w]++
			ix.dl[d]++
		}
		for _, w := range order {
			ix.post[w] = append(ix.post[w], posting{int32(d), tf[w]})
		}
		total += ix.dl[d]
	}
	if len(texts) > 0 {
		ix.avgdl = total / float64(len(texts))
	}
	ix.pool.New = func() any { b := make([]float64, ix.n); return &b }
	return ix
}

// search returns the indices of the k best passages for query by BM25
// (repeated query words count once), best first; ties go to the lower
// index. Passages that share no word with the query are never returned.
func (ix *index) search(query string, k int) []int {
	buf := ix.pool.Get().(*[]float64)
	scores := *buf
	var touched []int32
	seen := map[string]bool{}
	for _, w := range words(query) {
		if stopWords[w] || seen[w] {
			continue
		}
		seen[w] = true
		ps := ix.post[w]
		if len(ps) == 0 {
			continue
		}
		df := float64(len(ps))
		idf := math.Log(1 + (float64(ix.n)-df+0.5)/(df+0.5))
		for _, p := range ps {
			tf := float64(p.tf)
			if scores[p.doc] == 0 {
				touched = append(touched, p.doc)
			}
			scores[p.doc] += idf * tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B*ix.dl[p.doc]/ix.avgdl))
		}
	}
	better := func(a, b int32) bool {
		if scores[a] != scores[b] {
			return scores[a] > scores[b]
		}
		return a < b
	}
	var top []int32
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

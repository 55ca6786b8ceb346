package shop

import (
	"math"
	"slices"
)

// stopWords are dropped from documents and queries before ranking.
var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "and": true, "of": true, "in": true, "with": true,
	"for": true, "i": true, "need": true, "am": true, "looking": true, "want": true, "to": true,
	"buy": true, "find": true, "me": true, "price": true, "lower": true, "than": true,
	"dollars": true, "size": true, "model": true, "flavor": true, "scent": true, ",": true, ".": true,
}

// BM25 parameters (the usual defaults).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

type posting struct {
	doc int32
	tf  int32
}

// index is a BM25 inverted index over product texts.
type index struct {
	post  map[string][]posting
	dl    []float64
	avgdl float64
	n     int
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
	return ix
}

// search ranks documents for query by BM25 and returns at most limit
// document indices with a positive score, best first; ties go to the lower
// index. Repeated query words count once.
func (ix *index) search(query string, limit int) []int {
	scores := make([]float64, ix.n)
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
			norm := tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B*ix.dl[p.doc]/ix.avgdl))
			if scores[p.doc] == 0 {
				touched = append(touched, p.doc)
			}
			scores[p.doc] += idf * norm
		}
	}
	type hit struct {
		doc   int
		score float64
	}
	hits := make([]hit, 0, len(touched))
	for _, d := range touched {
		if scores[d] > 0 {
			hits = append(hits, hit{int(d), scores[d]})
		}
	}
	slices.SortFunc(hits, func(a, b hit) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return a.doc - b.doc
	})
	if len(hits) > limit {
		hits = hits[:limit]
	}
	out := make([]int, len(hits))
	for i, h := range hits {
		out[i] = h.doc
	}
	return out
}

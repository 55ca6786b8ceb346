package shop

import "github.com/pats-rl/pats/lib/env/internal/textindex"

// stopWords are dropped from product texts and queries before ranking.
var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "and": true, "of": true, "in": true, "with": true,
	"for": true, "i": true, "need": true, "am": true, "looking": true, "want": true, "to": true,
	"buy": true, "find": true, "me": true, "price": true, "lower": true, "than": true,
	"dollars": true, "size": true, "model": true, "flavor": true, "scent": true, ",": true, ".": true,
}

// newIndex builds the BM25 index over the product texts. The shop's
// rankings were first generated with the Grouped evaluation order.
func newIndex(texts []string) *textindex.Index {
	return textindex.New(texts, textindex.Options{Stop: stopWords, Order: textindex.Grouped})
}

package searchqa

import "github.com/pats-rl/pats/lib/env/internal/textindex"

// TopK is the number of passages a search returns (Search-R1's top 3).
const TopK = 3

// stopWords are dropped from passages and queries before ranking.
var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "in": true, "is": true, "was": true,
	"by": true, "and": true, "at": true, "as": true, "its": true, "for": true, "to": true,
	"which": true, "what": true, "who": true, "where": true, "did": true, "does": true,
	"?": true, ".": true, ",": true,
}

// newIndex builds the BM25 index over the passages. The searchqa rankings
// were first generated with the LeftToRight evaluation order.
func newIndex(texts []string) *textindex.Index {
	return textindex.New(texts, textindex.Options{Stop: stopWords, Order: textindex.LeftToRight})
}

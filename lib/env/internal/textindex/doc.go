// Package textindex is the text retrieval the built-in search environments
// (shop, searchqa) share: the word splitter their search boxes, goal parsers
// and query diagnostics use, and a BM25 inverted index over a fixed list of
// documents.
//
// # Words
//
// Documents, queries and phrases are cut with words.Alnum (lib/words): a
// maximal run of letters and digits is one word (numbers are words), every
// other character that is not white space is a word of its own ("$45.99" ->
// "$" "45" "." "99"). It differs from the tokenizer's rule (words.Split) in
// two ways that the environments' generated data depends on: '_' is not a
// letter here, and special tokens get no treatment. PhraseText and
// HasPhrase build a word-boundary phrase test on it.
//
// # Index
//
// New indexes documents 0..n-1 once; the index is then read-only and safe
// for concurrent use. Documents and queries are cut with words.Alnum and the
// caller's stop words are dropped from both. A document d scores, for a
// query,
//
//	sum over distinct query words w of  idf(w) * tf*(K1+1) / (tf + K1*(1-B+B*dl/avgdl))
//	idf(w) = ln(1 + (n - df + 0.5)/(df + 0.5))
//
// with tf the count of w in d, dl the number of kept words of d, avgdl their
// mean over the documents, df the number of documents containing w, and the
// usual K1 = 1.2, B = 0.75. Every term weight is strictly positive, so a
// document scores above 0 exactly when it shares a kept word with the query.
// Search returns at most k such documents, best first; equal scores go to
// the lower index. The result is a pure function of the documents, the stop
// words, the evaluation order (below) and the query.
//
// # Evaluation order
//
// The weight of a term can be evaluated as idf * (tf*(K1+1)/denominator)
// (Grouped) or as ((idf*tf)*(K1+1))/denominator (LeftToRight). The two are
// the same real number but may differ in the last bit, and a one-bit
// difference can swap two nearly tied documents. Each environment keeps the
// order its rankings were first published with, so its search results stay
// byte-for-byte the same; a new index should use Grouped.
//
// Term weights are computed once per (word, document) when the index is
// built; a search only adds them up, in the order the distinct query words
// first occur, so the floating-point sums do not depend on scheduling. The
// weight's arithmetic is written so that no multiply is fused with an add,
// which keeps the rankings the same on every architecture.
package textindex

// Package words is the one home of word splitting: the rule of the
// built-in WordLevel tokenizer (Split, Each), and the letters-and-digits
// rule of the search indexes and the scaffold's word sets (Alnum, Set).
// It imports nothing of the project, so the tokenizer, the environments,
// the skill library and the scaffold all split text the same way.
package words

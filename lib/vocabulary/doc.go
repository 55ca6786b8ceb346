// Package vocabulary computes the built-in tokenizer's vocabulary from its
// sources: every word the built-in environments, the shipped skill
// libraries, the agent's prompt, the scaffold's headings and the rule-based
// refiner can write. The tokenizer itself reads the result from
// lib/tokenizer/vocabulary.txt (tokenizer.ShippedWordLevel); this package's test
// keeps that file in step with the sources. It imports the environments,
// the skill libraries, the agent and the refiner, so nothing but tests
// imports it.
package vocabulary

// Package control is the stage of the command control: one controller step
// (lib/control) and the refiner (lib/refiner, builtin or an OpenAI-
// compatible endpoint) on the cards of iteration k and snapshot k; writes
// the proposals and the controller state. See lib/stage for the layer's
// rule.
package control

// Package stage is the layer between the commands (cmd/*) and the domain
// packages: one file per stage (rollout, evaluate, cards, control,
// validate, learn, audit, report) that checks the options a command was
// given, reads the input tables, calls the domain packages and writes the
// output tables with their metadata.
//
// The layer rule: a command is a flag table and one call of this package;
// this package may import every domain package and lib/command (the
// exit-point package, for its usage errors and progress writer); no domain
// package (env, skill, scaffold, card, control, refiner, validate, rl,
// model, policy, agent, rollout, eval, audit, report, table, tokenizer)
// imports this package, lib/command or a CLI package. docs/architecture.md
// lists the layers; lib/stage's architecture test keeps the rule.
package stage

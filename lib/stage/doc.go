// Package stage is the root of the stage layer, the layer between the
// commands (cmd/*) and the domain packages. Each stage is a package of its
// own under lib/stage, named after its command (rollout, evaluate, cards,
// control, validate, learn, audit, report), so that a binary links only the
// domain packages its stage uses. A stage checks the options its command
// was given, reads the input tables, calls the domain packages and writes
// the output tables with their metadata. Inside a stage package the domain
// package of the same name (lib/rollout in lib/stage/rollout) is imported
// under its own name; the stage's own identifiers are Options and Run
// (RunSFT, RunGRPO, ... where a command has subcommands), all of one shape:
// Run(ctx, Options, Streams) error (see Streams).
// This package holds what several stages share (Tokenizer, ReadCards);
// lib/stage/play the episode options of rollout, evaluate and audit
// reading, lib/stage/deviceflag the --device option. No command stage
// imports another.
//
// The layer rule: a command is a flag table and one call of its stage; a
// stage may import the domain packages, this package and lib/command (the
// exit-point package, for its usage errors and progress writer); no domain
// package (env, skill, scaffold, card, control, refiner, validate, rl,
// model, policy, agent, rollout, eval, audit, report, table, tokenizer,
// words) imports a stage, lib/command or a CLI package.
// docs/architecture.md lists the layers and what each may import; the
// architecture test in lib/stage keeps the rule.
package stage

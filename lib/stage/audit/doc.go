// Package audit is the stage of the command audit, its two subcommands: credit
// (selector credit starvation by horizon, from trajectories and learn grpo's
// advantages) and scaffold (how much of the scaffold the checkpoints have
// absorbed); each writes its table, an optional plot, and prints the
// Markdown table (lib/audit computes them). See lib/stage for the layer's
// rule.
package audit

// Package command is the one exit point of every pats binary: it runs a
// urfave/cli application and maps what went wrong to an exit code and one
// line on stderr.
//
// Exit codes: 0 success; 1 failure while running; 2 usage or bad input
// (unknown flag or value, a missing, empty, truncated or foreign input
// file). Errors of kind 2 are made with Usagef or come from lib/table's
// input errors, or are refusals of lib/output, or are errors of any
// package that say so with a method BadInput() bool returning true (the
// BadInput interface; skill.SlateError is one) anywhere in the error's
// chain: a domain package marks bad input without importing this one. An interrupted command
// (SIGINT, SIGTERM) exits 130 or 143 with nothing written, from the first
// instant: Run stops lib/output from making or committing any output
// (output.Interrupt), cancels its context, ends the children and removes
// the temporaries registered with lib/cleanup, and exits after Grace if
// the command is blocked where no context reaches. Whatever is still
// registered with lib/cleanup when the command returns (an exec:
// environment an error path left open) is ended then. Only a signal that
// comes after the outputs are in place leaves them, and the exit 0.
//
// It holds the exit point, the signals and the argument helpers every
// command uses, and nothing else: the options that several commands share
// live in the stage layer (stage.LoopFlags, deviceflag.Flag), so that a
// binary links only what its stage uses (docs/architecture.md). It imports
// no stage, domain package or model; no domain package imports it.
package command

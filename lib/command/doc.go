// Package command is the one exit point of every pats binary: it runs a
// urfave/cli application and maps what went wrong to an exit code and one
// line on stderr.
//
// Exit codes: 0 success; 1 failure while running; 2 usage or bad input
// (unknown flag or value, a missing, empty, truncated or foreign input
// file). Errors of kind 2 are made with Usagef or come from lib/table's
// input errors, or are refusals of lib/output. An interrupted command
// (SIGINT, SIGTERM) exits 130 or 143: Run cancels its context, ends the
// children and removes the temporaries registered with lib/cleanup, and
// exits after Grace if the command is blocked where no context reaches.
//
// It is the CLI side of the stage layer (docs/architecture.md): besides the
// exit point it holds the flag tables that more than one command shares
// (CLIFlags, SettingsFrom and LoopHelp: the scaffold loop's settings of
// control and validate). No domain package imports it.
package command

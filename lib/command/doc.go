// Package command is the one exit point of every pats binary: it runs a
// urfave/cli application and maps what went wrong to an exit code and one
// line on stderr.
//
// Exit codes: 0 success; 1 failure while running; 2 usage or bad input
// (unknown flag or value, a missing, empty, truncated or foreign input
// file). Errors of kind 2 are made with Usagef or come from lib/table's
// input errors.
package command

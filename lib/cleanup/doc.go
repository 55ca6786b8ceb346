// Package cleanup keeps the process-wide list of things to undo when a
// command is interrupted: child processes to end (the exec: environment's
// process group) and temporary outputs to remove (lib/output). Whoever
// makes such a thing adds an undo function and removes it once the thing
// is gone or committed; lib/command runs the list when SIGINT or SIGTERM
// arrives, so that an interrupted command leaves no child and no output
// behind even while it is blocked, and again when the command returns, so
// that no child (an exec: environment an error return left open, with its
// whole process group) outlives the command on any exit path.
package cleanup

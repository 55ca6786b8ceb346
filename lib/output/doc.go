// Package output is the one output discipline of every pats command: what
// may be written where, and how a run's outputs reach their names.
//
//   - Check refuses, before any work starts, an output path that names an
//     input (by resolved path or the same file under another name; the file
//     behind stdin when stdin is a regular file; any file under an input
//     folder), a path inside an input folder even when nothing is there
//     yet (a checkpoint or trajectory folder being read: a later run would
//     read the output as an input), another output of the run, an existing
//     file that is not a
//     regular file (device, FIFO, socket, a symbolic link to one), a
//     checkpoint folder named by an existing regular file, an existing
//     folder that is not a checkpoint, or a checkpoint folder that also
//     holds entries that are no checkpoint files (IsCheckpointFile: the
//     folder is replaced as a whole, so they would be lost), and stdout
//     ("-") when it is a terminal. A refusal is a *Refusal: bad usage, exit
//     code 2.
//   - A Unit writes all outputs of a run as one: every output is first
//     written in full to a hidden temporary sibling (".NAME.tmp-PID-*"),
//     synced, and only when all are complete are they renamed into place
//     (Commit). Abort removes the temporaries; a failed run leaves nothing.
//   - A checkpoint folder that exists is replaced so that a kill at any
//     instant leaves the old or the new folder under its name: on Linux by
//     exchanging the two folders in one renameat2(RENAME_EXCHANGE); where
//     that is not available the old folder is renamed aside
//     (".NAME.old-PID-*") and the new one renamed in, and Recover, which
//     every loader calls, renames an aside copy back when the name is
//     missing.
//   - A symbolic link to a regular file is written through: the file it
//     points to is replaced and the link is kept.
//   - Interrupt (called by lib/command on SIGINT or SIGTERM) ends the
//     run's writing: from then on no temporary is made and no Unit
//     commits, so a signal at any instant before the commit leaves
//     nothing written, whether or not a temporary existed yet.
//   - RemoveStale removes the temporaries a killed writer of the same name
//     left behind (its process is gone, or they are older than a day).
package output

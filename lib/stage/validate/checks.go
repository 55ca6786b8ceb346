package validate

import "github.com/pats-rl/pats/lib/command"

// The checkers of validate's option sets, one each, run first in their
// Run (and in InitFrom and ShowFrom before the tokenizer is loaded): no
// file is read before them.

var errSnapshotStdout = command.Usagef("-o: a snapshot is written to a file, not stdout")

// Check is validate's checker (Run): the required files, the output
// apart from the input snapshot, then the loop's caps.
func (f Options) Check() error {
	switch {
	case f.Scaffold == "":
		return command.Usagef("--scaffold is required (snapshot k)")
	case f.Proposals == "":
		return command.Usagef("--proposals is required")
	case f.Cards == "":
		return command.Usagef("--cards is required")
	case f.Output == "":
		return command.Usagef("-o is required (snapshot k+1)")
	case f.Decisions == "":
		return command.Usagef("--decisions is required")
	case f.Output == "-":
		return errSnapshotStdout
	case f.Output == f.Scaffold:
		return command.Usagef("-o %s would overwrite the input snapshot: write snapshot k+1 to a new file", f.Output)
	}
	if err := f.Limits.Validate(); err != nil {
		return command.Usagef("%v", err)
	}
	return nil
}

// Check is validate init's checker (RunInit).
func (f InitOptions) Check() error {
	switch {
	case f.Output == "":
		return command.Usagef("-o is required (snapshot 0)")
	case f.Output == "-":
		return errSnapshotStdout
	}
	return nil
}

// Check is validate diff's checker (RunDiff).
func (f DiffOptions) Check() error {
	switch {
	case f.Old == "" || f.New == "":
		return command.Usagef("validate diff wants two snapshots, the old and the new")
	case (f.Proposals == "") != (f.Decisions == ""):
		return command.Usagef("--proposals and --decisions go together")
	}
	return nil
}

// Check is validate show's checker (RunShow).
func (f ShowOptions) Check() error {
	switch {
	case f.Snapshot == "":
		return command.Usagef("validate show wants a snapshot")
	case f.Budget < 0:
		return command.Usagef("--budget must not be negative, got %d", f.Budget)
	}
	return nil
}

package audit

import (
	"math"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/device"
	"github.com/pats-rl/pats/lib/stage"
)

// The checkers of audit's option sets, one each, run first in their Run:
// no file is read and no model loaded before them. audit reading's is
// beside its options (ReadingOptions.Check).

var errOutputRequired = command.Usagef("-o is required")

// Check is audit credit's checker (RunCredit).
func (f CreditOptions) Check() error {
	switch {
	case f.Output == "":
		return errOutputRequired
	case len(f.Traj) == 0:
		return stage.ErrNoTraj
	case f.Advantages == "":
		return command.Usagef("--advantages is required (learn grpo --advantages)")
	case f.Bins < 1:
		return command.Usagef("--bins must be at least 1, got %d", f.Bins)
	}
	return nil
}

// Check is audit scaffold's checker (RunScaffold): the required inputs,
// then the --device name (the device itself is opened by RunScaffold).
func (f ScaffoldOptions) Check() error {
	switch {
	case f.Output == "":
		return errOutputRequired
	case len(f.Checkpoints) == 0:
		return command.Usagef("--policy is required (checkpoint folders, the first the baseline)")
	case len(f.Traj) == 0:
		return stage.ErrNoTraj
	}
	if f.Device != "" {
		if _, err := device.Parse(f.Device); err != nil {
			return command.Usagef("--device: %v", err)
		}
	}
	return nil
}

// Check is audit lift's checker (RunLift).
func (f LiftOptions) Check() error {
	switch {
	case f.Output == "":
		return errOutputRequired
	case len(f.With) == 0:
		return stage.ErrNoTraj
	case len(f.Without) == 0:
		return command.Usagef("--without is required (the same groups played with no scaffold)")
	}
	return nil
}

// Check is audit truth's checker (RunTruth).
func (f TruthOptions) Check() error {
	switch {
	case f.Output == "":
		return errOutputRequired
	case f.Scaffold == "":
		return command.Usagef("--scaffold is required (the snapshot to judge)")
	case f.Env == "":
		return command.Usagef("--env is required (the environment whose rules judge the items)")
	case f.Iteration < 0 || f.Iteration > math.MaxInt32:
		return command.Usagef("--iteration %d: want a snapshot's iteration, 0 or more", f.Iteration)
	}
	return nil
}

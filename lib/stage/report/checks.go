package report

import (
	"strconv"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/report"
	"github.com/pats-rl/pats/lib/stage"
)

// The checkers of report's option sets, one each, run first in their
// Run: no file is read before them. What depends on an input (whether
// report plots' argument is a run or a sweep folder) is checked where it
// is read.

// Check is report mix's checker (RunMix).
func (f MixOptions) Check() error {
	switch {
	case f.Output == "":
		return command.Usagef("-o is required")
	case len(f.Inputs) == 0:
		return stage.ErrNoTraj
	}
	return nil
}

// Check is report iteration's checker (RunIteration).
func (f IterationOptions) Check() error {
	if f.Run == "" {
		return command.Usagef("report iteration wants a run folder")
	}
	if _, err := f.iteration(); err != nil {
		return err
	}
	if f.Iterations < 0 {
		return command.Usagef("--of must not be negative (0: not said), got %d", f.Iterations)
	}
	return nil
}

// iteration is K as a count.
func (f IterationOptions) iteration() (int, error) {
	n, err := strconv.Atoi(f.K)
	if err != nil || n < 0 {
		return 0, command.Usagef("iteration %q is not a count", f.K)
	}
	return n, nil
}

// Check is report groups' checker (RunGroups).
func (f GroupsOptions) Check() error {
	if len(f.Inputs) == 0 {
		return stage.ErrNoTraj
	}
	return nil
}

// Check is report run's checker (RunSummary).
func (f SummaryOptions) Check() error {
	if f.Run == "" {
		return command.Usagef("report run wants a run folder")
	}
	return nil
}

// Check is report compare's checker (RunCompare): every entry parses.
func (f CompareOptions) Check() error {
	_, err := f.entries()
	return err
}

// entries are the parsed LABEL=RUN[@K][+scaffold] entries.
func (f CompareOptions) entries() ([]report.Entry, error) {
	if len(f.Entries) == 0 {
		return nil, command.Usagef("report compare wants at least one LABEL=RUN[@K][+scaffold]")
	}
	var es []report.Entry
	for _, a := range f.Entries {
		e, err := report.ParseEntry(a)
		if err != nil {
			return nil, command.Usagef("%v", err)
		}
		es = append(es, e)
	}
	return es, nil
}

// Check is report sweep's checker (RunSweep): --variants given, and its
// rows and --variant-seeds well formed (sweepRows).
func (f SweepOptions) Check() error {
	if len(f.Variants) == 0 {
		return command.Usagef("--variants is required")
	}
	_, err := sweepRows(f)
	return err
}

// Check is report plots' checker (RunPlots): a folder, and a sweep's
// --variants with --seeds.
func (f PlotsOptions) Check() error {
	switch {
	case f.Run == "":
		return command.Usagef("report plots wants a run or sweep folder")
	case len(f.Variants) > 0 && len(f.Seeds) == 0:
		return command.Usagef("a sweep's --variants need --seeds")
	}
	return nil
}

// Check is report tensorboard's checker (RunTensorboard). An --iteration
// below 0 given on the command line is refused by TensorboardFrom; here
// it means every file.
func (f TensorboardOptions) Check() error {
	if f.Run == "" {
		return command.Usagef("report tensorboard wants a run folder")
	}
	return nil
}

// Check is report settings' checker (RunSettings): to write, --from and
// -o; to print, a run folder.
func (f SettingsOptions) Check() error {
	switch {
	case f.Write && (f.From == "" || f.Output == ""):
		return command.Usagef("writing a settings file needs --from and -o")
	case !f.Write && f.Run == "":
		return command.Usagef("report settings wants a run folder, or --from and -o")
	}
	return nil
}

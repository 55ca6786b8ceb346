package stage

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/command"
)

// The flag convention of every command: a list option repeats and also
// takes comma-separated values (--traj a.parquet --traj b.parquet is
// --traj a.parquet,b.parquet); a list of names (variants, seeds, splits)
// also takes them space separated, as one quoted word ('pats grpo'). An
// old spelling of an option is a hidden alias for a release (its values
// join the new name's).

// ListFlag declares a list option and its old spellings, hidden.
func ListFlag(name, usage string, old ...string) []cli.Flag {
	fs := []cli.Flag{&cli.StringSliceFlag{Name: name, Usage: usage + " (repeat it, or give a comma-separated list)"}}
	for _, o := range old {
		fs = append(fs, &cli.StringSliceFlag{Name: o, Hidden: true, Usage: "old spelling of --" + name})
	}
	return fs
}

// List returns the values of a list option (ListFlag) and of its old
// spellings, empty items left out.
func List(c *cli.Context, name string, old ...string) []string {
	var out []string
	for _, n := range append([]string{name}, old...) {
		for _, v := range c.StringSlice(n) {
			if v = strings.TrimSpace(v); v != "" {
				out = append(out, v)
			}
		}
	}
	return out
}

// Names returns a list of names (ListFlag): the values of List, each also
// split at spaces.
func Names(c *cli.Context, name string, old ...string) []string {
	var out []string
	for _, v := range List(c, name, old...) {
		out = append(out, strings.Fields(v)...)
	}
	return out
}

// TrajFlags declares the trajectory inputs of a command that takes them
// as arguments: --traj, a list option, with the old spellings given.
func TrajFlags(usage string, old ...string) []cli.Flag {
	return ListFlag("traj", usage+"; also as arguments", old...)
}

// ErrNoTraj is every stage's refusal of a run without trajectory inputs
// where it needs them.
var ErrNoTraj = command.Usagef("want at least one trajectory file: as arguments or --traj (see --help)")

// Traj returns the trajectory inputs: --traj (and its old spellings),
// then the arguments. None is a usage error when atLeastOne (ErrNoTraj).
func Traj(c *cli.Context, atLeastOne bool, old ...string) ([]string, error) {
	in := append(List(c, "traj", old...), c.Args().Slice()...)
	if atLeastOne && len(in) == 0 {
		return nil, ErrNoTraj
	}
	return in, nil
}

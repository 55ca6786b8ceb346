package report

import (
	"strings"

	"context"

	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/stage"
)

// The options of report's subcommands are declared here once (name,
// type, default, help) and read here (MixFrom, IterationFrom, ...).

// MixFlags declares report mix's options.
func MixFlags() []cli.Flag {
	return append(stage.TrajFlags("trajectory files"), &cli.StringFlag{Name: "output", Aliases: []string{"o"}, Required: true, Usage: "trajectory file to write"},
		&cli.BoolFlag{Name: "apart", Usage: "keep each file's groups apart: the group ids of the n-th file (n >= 2) get the suffix #n, so the same task played twice makes two groups"})
}

// MixFrom reads report mix's options.
func MixFrom(c *cli.Context) (MixOptions, error) {
	in, err := stage.Traj(c, true)
	if err != nil {
		return MixOptions{}, err
	}
	return MixOptions{Inputs: in, Output: c.String("output"), Apart: c.Bool("apart")}, nil
}

// IterationFlags declares report iteration's options.
func IterationFlags() []cli.Flag {
	return []cli.Flag{&cli.StringFlag{Name: "scaffold", Usage: "the snapshot the iteration's rollout used"},
		&cli.IntFlag{Name: "of", Usage: "the run's iterations, to say how far the loop has got (0: not said)"}}
}

// IterationFrom reads report iteration's options: the run folder and the
// iteration are its arguments.
func IterationFrom(c *cli.Context) (IterationOptions, error) {
	if err := command.Args(c, 2, 2); err != nil {
		return IterationOptions{}, err
	}
	return IterationOptions{Run: c.Args().Get(0), K: c.Args().Get(1),
		Scaffold: c.String("scaffold"), Iterations: c.Int("of")}, nil
}

// SettingsOptions are report settings' options: with From (and Output)
// it writes a settings file, else it prints Run's.
type SettingsOptions struct {
	Run                string // run folder to print the settings of
	From, Base, Output string // NAME=VALUE lines, base checkpoint, settings file to write
	Write              bool   // write (From, Base, Output) rather than print (Run)
}

// SettingsFlags declares report settings' options.
func SettingsFlags() []cli.Flag {
	return []cli.Flag{&cli.StringFlag{Name: "from", Usage: "NAME=VALUE lines to record"},
		&cli.StringFlag{Name: "base", Usage: "the base checkpoint whose weights hash to record"},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "settings file to write"}}
}

// SettingsFrom reads report settings' options: a run folder as the
// argument, or --from and -o.
func SettingsFrom(c *cli.Context) (SettingsOptions, error) {
	if c.IsSet("from") || c.IsSet("output") {
		if err := command.Args(c, 0, 0); err != nil {
			return SettingsOptions{}, err
		}
		return SettingsOptions{From: c.String("from"), Base: c.String("base"), Output: c.String("output"), Write: true}, nil
	}
	if err := command.Args(c, 1, 1); err != nil {
		return SettingsOptions{}, err
	}
	return SettingsOptions{Run: c.Args().First()}, nil
}

// RunSettings writes a settings file (WriteSettings) or prints a run's
// (ShowSettings), the options checked first (Check).
func RunSettings(_ context.Context, f SettingsOptions, std stage.Streams) error {
	if err := f.Check(); err != nil {
		return err
	}
	if f.Write {
		return WriteSettings(f.From, f.Base, f.Output)
	}
	return ShowSettings(f.Run, std.Stdout)
}

// SummaryFrom reads report run's options: the run folder is its argument.
func SummaryFrom(c *cli.Context) (SummaryOptions, error) {
	if err := command.Args(c, 1, 1); err != nil {
		return SummaryOptions{}, err
	}
	return SummaryOptions{Run: c.Args().First()}, nil
}

// CompareFlags declares report compare's options.
func CompareFlags() []cli.Flag {
	return stage.ListFlag("splits", "splits to compare; default valid_seen,valid_unseen")
}

// CompareFrom reads report compare's options: the entries are its
// arguments.
func CompareFrom(c *cli.Context) (CompareOptions, error) {
	if err := command.Args(c, 1, -1); err != nil {
		return CompareOptions{}, err
	}
	return CompareOptions{Entries: c.Args().Slice(), Splits: stage.Names(c, "splits")}, nil
}

// GroupsFlags declares report groups' options.
func GroupsFlags() []cli.Flag { return stage.TrajFlags("trajectory files") }

// GroupsFrom reads report groups' options.
func GroupsFrom(c *cli.Context) (GroupsOptions, error) {
	in, err := stage.Traj(c, true)
	if err != nil {
		return GroupsOptions{}, err
	}
	return GroupsOptions{Inputs: in}, nil
}

// SweepFlags declares report sweep's options.
func SweepFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "root", Value: "runs/sweep", Usage: "folder holding VARIANT-sSEED run folders"},
		&cli.StringSliceFlag{Name: "variants", Required: true, Usage: "the table's rows (repeat it, or give a list separated by commas or spaces): VARIANT (its runs under --root), ROOT:VARIANT (under another sweep folder) or LABEL=ROOT:VARIANT (the row named LABEL, which --baseline and --variant-seeds take)"},
		&cli.StringSliceFlag{Name: "seeds", Required: true, Usage: "seeds (repeat it, or give a list separated by commas or spaces)"},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the aggregated rows (sweep_result) here"},
		&cli.StringFlag{Name: "runs", Usage: "write the per-run rows (sweep_run) here"},
		&cli.StringFlag{Name: "credit", Usage: "write the credit audits of the runs that have one (RUN/audit/credit.parquet), aggregated per variant and horizon bin (sweep_credit), here"},
		&cli.BoolFlag{Name: "partial", Usage: "leave out unfinished runs (listed under the table) instead of failing"},
		&cli.StringFlag{Name: "variant-seeds", Usage: "variants with their own seeds: 'VARIANT:S,S,S VARIANT:S,S' (the others take --seeds)"},
		&cli.StringFlag{Name: "baseline", Usage: "also print each row's paired difference from this row (same seeds), with a 95% bootstrap interval: in success and tokens, and in skill reads at evaluation (reads per episode, misleading exposure, right reads) where either reads"},
	}
}

// SweepFrom reads report sweep's options.
func SweepFrom(c *cli.Context) (SweepOptions, error) {
	seeds, own, err := seedsFrom(c)
	if err != nil {
		return SweepOptions{}, err
	}
	return SweepOptions{Root: c.String("root"), Variants: stage.Names(c, "variants"),
		Seeds: seeds, Output: c.String("output"), Runs: c.String("runs"), Credit: c.String("credit"), Partial: c.Bool("partial"),
		VariantSeeds: own, Baseline: c.String("baseline")}, nil
}

// PlotsFlags declares report plots' options.
func PlotsFlags() []cli.Flag {
	return []cli.Flag{&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "folder for the PNG files (default RUN/plots or SWEEP/plots)"},
		&cli.StringSliceFlag{Name: "variants", Usage: "a sweep's variants (repeat it, or give a list separated by commas or spaces); default: the run folders found"},
		&cli.StringSliceFlag{Name: "seeds", Usage: "a sweep's seeds, with --variants (repeat it, or give a list separated by commas or spaces)"},
		&cli.StringFlag{Name: "variant-seeds", Usage: "variants with their own seeds: 'VARIANT:S,S,S VARIANT:S,S' (the others take --seeds)"},
		&cli.BoolFlag{Name: "partial", Usage: "a sweep: draw unfinished runs as far as they go (named on stderr; the titles say partial) instead of failing"}}
}

// PlotsFrom reads report plots' options: the run or sweep folder is its
// argument.
func PlotsFrom(c *cli.Context) (PlotsOptions, error) {
	if err := command.Args(c, 1, 1); err != nil {
		return PlotsOptions{}, err
	}
	seeds, own, err := seedsFrom(c)
	if err != nil {
		return PlotsOptions{}, err
	}
	return PlotsOptions{Run: c.Args().First(), Output: c.String("output"),
		Variants: stage.Names(c, "variants"), Seeds: seeds, VariantSeeds: own,
		Partial: c.Bool("partial")}, nil
}

// seedsFrom reads a sweep's --seeds and --variant-seeds.
func seedsFrom(c *cli.Context) ([]int64, map[string][]int64, error) {
	seeds, err := parseSeeds("--seeds", strings.Join(stage.Names(c, "seeds"), " "), " ")
	if err != nil {
		return nil, nil, err
	}
	own, err := parseVariantSeeds(c.String("variant-seeds"))
	return seeds, own, err
}

// TensorboardFlags declares report tensorboard's options.
func TensorboardFlags() []cli.Flag {
	return []cli.Flag{&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "folder for the event files (default RUN/tb)"},
		&cli.IntFlag{Name: "iteration", Value: -1, Usage: "write iteration K's files only (pipelines/pats.mk, as K ends): traj/K's, and the other files of iterations up to K not written yet; default: every file of the run"}}
}

// TensorboardFrom reads report tensorboard's options: the run folder is
// its argument.
func TensorboardFrom(c *cli.Context) (TensorboardOptions, error) {
	if err := command.Args(c, 1, 1); err != nil {
		return TensorboardOptions{}, err
	}
	k := c.Int("iteration")
	if c.IsSet("iteration") && k < 0 {
		return TensorboardOptions{}, command.Usagef("--iteration %d: want an iteration (0 or more)", k)
	}
	return TensorboardOptions{Run: c.Args().First(), Output: c.String("output"), Iteration: k}, nil
}

// Command report prints and plots what a pipelines/pats.mk run folder or a
// sweep holds, and mixes trajectory files into shared groups (the
// evidence behind the initial scaffold).
package main

import (
	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/stage/report"
)

func main() { command.Main(app()) }

func app() *cli.App {
	return &cli.App{
		Name:  "report",
		Usage: "summaries, tables and plots of pipeline runs",
		Description: "Examples:\n" +
			"  report mix boot/oracle.parquet boot/weak.parquet -o boot/traj.parquet\n" +
			"  report iteration runs/pats-s1 3 --scaffold runs/pats-s1/snap/3.parquet\n" +
			"  report run runs/pats-s1\n" +
			"  report groups runs/pats-s1/traj/0.parquet\n" +
			"  report settings runs/pats-s1\n" +
			"  report compare warm-up=runs/demo/pats@0 pats=runs/demo/pats grpo=runs/demo/grpo\n" +
			"  report sweep --root runs/sweep --variants 'pats grpo' --seeds '1 2 3' -o runs/sweep/results.parquet\n" +
			"  report plots runs/pats-s1\n" +
			"  report plots runs/sweep -o runs/sweep/plots",
		HideHelpCommand: true,
		Commands: []*cli.Command{
			{
				Name:      "mix",
				Usage:     "concatenate trajectory files so that episodes of one task form one group (samples renumbered)",
				UsageText: "report mix TRAJ... -o OUT",
				Flags:     append(stage.TrajFlags("trajectory files"), &cli.StringFlag{Name: "output", Aliases: []string{"o"}, Required: true, Usage: "trajectory file to write"}),
				Action: func(c *cli.Context) error {
					in, err := stage.Traj(c, true)
					if err != nil {
						return err
					}
					return report.RunMix(c.Context, report.MixOptions{Inputs: in, Output: c.String("output")}, stage.CLI(c))
				},
			},
			{
				Name:      "iteration",
				Usage:     "one line on a finished iteration: success, scaffold items and tokens, loss, KL, seconds",
				UsageText: "report iteration RUN K [--scaffold SNAP] [--of ITERS]",
				Flags: []cli.Flag{&cli.StringFlag{Name: "scaffold", Usage: "the snapshot the iteration's rollout used"},
					&cli.IntFlag{Name: "of", Usage: "the run's iterations, to say how far the loop has got (0: not said)"}},
				Action: func(c *cli.Context) error {
					if err := command.Args(c, 2, 2); err != nil {
						return err
					}
					return report.RunIteration(c.Context, report.IterationOptions{Run: c.Args().Get(0), K: c.Args().Get(1),
						Scaffold: c.String("scaffold"), Iterations: c.Int("of")}, stage.CLI(c))
				},
			},
			{
				Name:      "settings",
				Usage:     "a run's record of its settings (settings.json): print it, or write it from resolved NAME=VALUE lines",
				UsageText: "report settings RUN | report settings --from VARS [--base CKPT] -o RUN/settings.json",
				Description: "pipelines/pats.mk writes RUN/settings.json before a run starts: every variable and resolved\n" +
					"variant setting and flag of the run, its seeds, the base policy and its weights hash, and the\n" +
					"toolkit's version and commit. With a run folder, prints it as a table.\n\n" +
					"Examples:\n" +
					"  report settings runs/pats-s1\n" +
					"  report settings --from runs/pats-s1/.settings -o runs/pats-s1/settings.json",
				Flags: []cli.Flag{&cli.StringFlag{Name: "from", Usage: "NAME=VALUE lines to record"},
					&cli.StringFlag{Name: "base", Usage: "the base checkpoint whose weights hash to record"},
					&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "settings file to write"}},
				Action: func(c *cli.Context) error {
					if c.IsSet("from") || c.IsSet("output") {
						if err := command.Args(c, 0, 0); err != nil {
							return err
						}
						if c.String("from") == "" || c.String("output") == "" {
							return command.Usagef("writing a settings file needs --from and -o")
						}
						return report.WriteSettings(c.String("from"), c.String("base"), c.String("output"))
					}
					if err := command.Args(c, 1, 1); err != nil {
						return err
					}
					return report.ShowSettings(c.Args().First(), c.App.Writer)
				},
			},
			{
				Name:      "run",
				Usage:     "a run's evaluations by iteration as a Markdown table",
				UsageText: "report run RUN",
				Action: func(c *cli.Context) error {
					if err := command.Args(c, 1, 1); err != nil {
						return err
					}
					return report.RunSummary(c.Context, report.SummaryOptions{Run: c.Args().First()}, stage.CLI(c))
				},
			},
			{
				Name:      "compare",
				Usage:     "compare checkpoints of runs: success per split, score, tokens per episode",
				UsageText: "report compare LABEL=RUN[@K][+scaffold]... [--splits valid_seen,valid_unseen]",
				Flags:     stage.ListFlag("splits", "splits to compare; default valid_seen,valid_unseen"),
				Action: func(c *cli.Context) error {
					if err := command.Args(c, 1, -1); err != nil {
						return err
					}
					return report.RunCompare(c.Context, report.CompareOptions{Entries: c.Args().Slice(), Splits: stage.Names(c, "splits")}, stage.CLI(c))
				},
			},
			{
				Name:      "groups",
				Usage:     "GRPO groups of rollouts: success, and the groups with equal rewards (no gradient) and with every episode failed",
				UsageText: "report groups TRAJ...",
				Flags:     stage.TrajFlags("trajectory files"),
				Action: func(c *cli.Context) error {
					in, err := stage.Traj(c, true)
					if err != nil {
						return err
					}
					return report.RunGroups(c.Context, report.GroupsOptions{Inputs: in}, stage.CLI(c))
				},
			},
			{
				Name:      "sweep",
				Usage:     "mean and spread over seeds of each variant's final zero-scaffold evaluation, beside the paper's figures",
				UsageText: "report sweep --root runs/sweep --variants '...' --seeds '1 2 3' [-o results.parquet] [--runs runs.parquet] [--credit credit.parquet] [--partial]",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "root", Value: "runs/sweep", Usage: "folder holding VARIANT-sSEED run folders"},
					&cli.StringSliceFlag{Name: "variants", Required: true, Usage: "variants (repeat it, or give a list separated by commas or spaces)"},
					&cli.StringSliceFlag{Name: "seeds", Required: true, Usage: "seeds (repeat it, or give a list separated by commas or spaces)"},
					&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the aggregated rows (sweep_result) here"},
					&cli.StringFlag{Name: "runs", Usage: "write the per-run rows (sweep_run) here"},
					&cli.StringFlag{Name: "credit", Usage: "write the credit audits of the runs that have one (RUN/audit/credit.parquet), aggregated per variant and horizon bin (sweep_credit), here"},
					&cli.BoolFlag{Name: "partial", Usage: "leave out unfinished runs (listed under the table) instead of failing"},
					&cli.StringFlag{Name: "variant-seeds", Usage: "variants with their own seeds: 'VARIANT:S,S,S VARIANT:S,S' (the others take --seeds)"},
					&cli.StringFlag{Name: "baseline", Usage: "also print each variant's paired difference from this variant (same seeds), with a 95% bootstrap interval"},
				},
				Action: sweep,
			},
			{
				Name:      "plots",
				Usage:     "PNG plots of a run (success, scaffold size, zero-variance groups, NLL gap, primitives) or of a sweep (the same per variant: mean over seeds with a band of ± 1 sd)",
				UsageText: "report plots RUN [-o DIR] | report plots SWEEP [--variants '...' --seeds '...' [--variant-seeds ...]] [--partial] [-o DIR]",
				Description: "A run folder (eval/, snap/, traj/ or summary.md) gets success.png, scaffold.png, zero-variance.png,\n" +
					"nll-gap.png (when RUN/audit/scaffold-traj*.parquet exist) and primitives.png. Any other folder is a\n" +
					"sweep: its VARIANT-sSEED run folders (warm-ups left out), or those of --variants and --seeds as\n" +
					"report sweep takes them; it gets success-SPLIT.png, zero-variance.png, scaffold.png and nll-gap.png,\n" +
					"each variant's line the mean over its seeds and its band the mean ± 1 sample sd. A plot without\n" +
					"data is left out (with a note line for a sweep's NLL gap). Legends sit beside the plot area.\n\n" +
					"Examples:\n" +
					"  report plots runs/pats-s1\n" +
					"  report plots runs/s32 -o docs/plots/s32\n" +
					"  report plots runs/sweep --variants 'pats grpo' --seeds '1 2 3'",
				Flags: []cli.Flag{&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "folder for the PNG files (default RUN/plots or SWEEP/plots)"},
					&cli.StringSliceFlag{Name: "variants", Usage: "a sweep's variants (repeat it, or give a list separated by commas or spaces); default: the run folders found"},
					&cli.StringSliceFlag{Name: "seeds", Usage: "a sweep's seeds, with --variants (repeat it, or give a list separated by commas or spaces)"},
					&cli.StringFlag{Name: "variant-seeds", Usage: "variants with their own seeds: 'VARIANT:S,S,S VARIANT:S,S' (the others take --seeds)"},
					&cli.BoolFlag{Name: "partial", Usage: "a sweep: leave out unfinished runs (named in a note line) instead of failing"}},
				Action: func(c *cli.Context) error {
					if err := command.Args(c, 1, 1); err != nil {
						return err
					}
					return report.RunPlots(c.Context, report.PlotsOptions{Run: c.Args().First(), Output: c.String("output"),
						Variants: stage.Names(c, "variants"), Seeds: stage.Names(c, "seeds"), VariantSeeds: c.String("variant-seeds"),
						Partial: c.Bool("partial")}, stage.CLI(c))
				},
			},
		},
	}
}

func sweep(c *cli.Context) error {
	return report.RunSweep(c.Context, report.SweepOptions{Root: c.String("root"), Variants: stage.Names(c, "variants"),
		Seeds: stage.Names(c, "seeds"), Output: c.String("output"), Runs: c.String("runs"), Credit: c.String("credit"), Partial: c.Bool("partial"),
		VariantSeeds: c.String("variant-seeds"), Baseline: c.String("baseline")}, stage.CLI(c))
}

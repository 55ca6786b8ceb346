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
			"  report sweep --root runs/sgs --variants 'gigpo runs/sg:broadcast nb=runs/sg-nobaseline:skillgate' --seeds '1 2 3' --baseline broadcast\n" +
			"  report plots runs/pats-s1\n" +
			"  report plots runs/sweep -o runs/sweep/plots\n" +
			"  report tensorboard runs/pats-s1",
		HideHelpCommand: true,
		Commands: []*cli.Command{
			{
				Name:      "mix",
				Usage:     "concatenate trajectory files so that episodes of one task form one group (samples renumbered)",
				UsageText: "report mix TRAJ... -o OUT [--apart]",
				Flags:     report.MixFlags(),
				Action:    stage.Action(report.MixFrom, report.RunMix),
			},
			{
				Name:      "iteration",
				Usage:     "one line on a finished iteration: success, scaffold items and tokens, loss, KL, seconds",
				UsageText: "report iteration RUN K [--scaffold SNAP] [--of ITERS]",
				Flags:     report.IterationFlags(),
				Action:    stage.Action(report.IterationFrom, report.RunIteration),
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
				Flags:  report.SettingsFlags(),
				Action: stage.Action(report.SettingsFrom, report.RunSettings),
			},
			{
				Name:      "run",
				Usage:     "a run's evaluations by iteration as a Markdown table",
				UsageText: "report run RUN",
				Action:    stage.Action(report.SummaryFrom, report.RunSummary),
			},
			{
				Name:      "compare",
				Usage:     "compare checkpoints of runs: success per split, score, tokens per episode",
				UsageText: "report compare LABEL=RUN[@K][+scaffold]... [--splits valid_seen,valid_unseen]",
				Flags:     report.CompareFlags(),
				Action:    stage.Action(report.CompareFrom, report.RunCompare),
			},
			{
				Name:      "groups",
				Usage:     "GRPO groups of rollouts: success, and the groups with equal rewards (no gradient) and with every episode failed",
				UsageText: "report groups TRAJ...",
				Flags:     report.GroupsFlags(),
				Action:    stage.Action(report.GroupsFrom, report.RunGroups),
			},
			{
				Name:      "sweep",
				Usage:     "mean and spread over seeds of each variant's final zero-scaffold evaluation, beside the paper's figures",
				UsageText: "report sweep --root runs/sweep --variants 'VARIANT ROOT:VARIANT LABEL=ROOT:VARIANT ...' --seeds '1 2 3' [--variant-seeds ...] [--baseline ROW] [-o results.parquet] [--runs runs.parquet] [--credit credit.parquet] [--partial]",
				Flags:     report.SweepFlags(),
				Action:    stage.Action(report.SweepFrom, report.RunSweep),
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
				Flags:  report.PlotsFlags(),
				Action: stage.Action(report.PlotsFrom, report.RunPlots),
			},
			{
				Name:      "tensorboard",
				Usage:     "TensorBoard event files of a run (finished, in progress or archived): training success, zero-variance share, scaffold size, GRPO loss, KL and clip fraction, the mechanism audits, evaluations, and one episode per iteration as text",
				UsageText: "report tensorboard RUN [-o DIR] [--iteration K]",
				Description: "Writes one event file per input of the run folder into RUN/tb (or -o): traj/K (with metrics/grpo-K and\n" +
					"the snapshot the rollout used), lift/K and eval/K/KIND-SPLIT, each at step K, a file only when its bytes\n" +
					"change, and prints the paths written. The wall times are the input files' own pats.time stamps, so the\n" +
					"same run gives the same bytes. pipelines/pats.mk runs it with --iteration K as each iteration ends, and\n" +
					"for the whole run with its summary. Watch runs with `tensorboard --logdir runs/`.\n\n" +
					"Examples:\n" +
					"  report tensorboard runs/pats-s1\n" +
					"  report tensorboard results/s32/pats-s1 -o /tmp/tb/pats-s1",
				Flags:  report.TensorboardFlags(),
				Action: stage.Action(report.TensorboardFrom, report.RunTensorboard),
			},
		},
	}
}

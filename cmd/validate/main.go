// Command validate is the PATS validator: it checks refiner proposals and
// commits the accepted ones as the next scaffold snapshot; its subcommands
// make the first snapshot, compare snapshots and show the rendered
// scaffold.
package main

import (
	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/stage/validate"
)

func main() { command.Main(app()) }

func app() *cli.App {
	return &cli.App{
		Name:  "validate",
		Usage: "check proposals and commit the accepted ones as the next scaffold snapshot",
		UsageText: "validate --scaffold SNAP_K --proposals PROPOSALS --cards CARDS -o SNAP_K+1 --decisions DECISIONS [options]\n" +
			"validate init [--from items.yaml] -o SNAP_0\n" +
			"validate diff SNAP_A SNAP_B [--proposals PROPOSALS --decisions DECISIONS]\n" +
			"validate show SNAP [--budget N] [--type T]",
		Description: "Applies the proposals in proposal-id order, each checked by fixed rules (an addition needs\n" +
			"--min-support cards of its type; edits, merges and deletions name existing items; the primitive's\n" +
			"direction holds; caps and the EXPAND quota hold) and writes one decision per proposal (accepted,\n" +
			"or the rule it broke) and snapshot k+1: version k+1, parent = content hash of snapshot k. The\n" +
			"snapshot is written last, atomically: a killed validate leaves snapshot k as it was and no\n" +
			"snapshot k+1 (at most a hidden temporary file, removed by the next run). With no accepted\n" +
			"proposal snapshot k+1 has k's items. It takes the same loop flags as control (thresholds and\n" +
			"the smoothing factor are accepted and unused) so that one set of flags serves both.\n\n" +
			"Examples:\n" +
			"  validate init -o snap/0.parquet\n" +
			"  validate init --from items.yaml -o snap/0.parquet\n" +
			"  validate --scaffold snap/3.parquet --proposals proposals/3.parquet --cards cards/3.parquet \\\n" +
			"      -o snap/4.parquet --decisions decisions/3.parquet\n" +
			"  validate diff snap/3.parquet snap/4.parquet --proposals proposals/3.parquet --decisions decisions/3.parquet\n" +
			"  validate show snap/4.parquet --budget 400 --type pick_and_place_simple",
		HideHelpCommand: true,
		Flags:           validate.Flags(),
		Action:          stage.Action(validate.From, validate.Run),
		Commands: []*cli.Command{
			{
				Name:      "init",
				Usage:     "write snapshot 0: empty, or seeded from a hand-written items file",
				UsageText: "validate init [--from items.yaml] -o snap/0.parquet",
				Description: "items.yaml lists items with layer (general, task, mistake), task_type (task and mistake\n" +
					"items only), text (one line) and an optional id (YAML; lib/scaffold ParseItems):\n\n" +
					"  items:\n" +
					"    - layer: general\n" +
					"      text: Read the task and plan before acting.\n" +
					"    - layer: mistake\n" +
					"      task_type: pick_heat_then_place_in_recep\n" +
					"      text: Do not put the object away before heating it.\n\n" +
					"Token counts use the built-in tokenizer, or --tokenizer.\n\n" +
					"Examples:\n" +
					"  validate init -o snap/0.parquet\n" +
					"  validate init --from items.yaml -o snap/0.parquet",
				Flags:  validate.InitFlags(),
				Action: stage.Action(validate.InitFrom, validate.RunInit),
			},
			{
				Name:      "diff",
				Usage:     "print what changed between two snapshots",
				UsageText: "validate diff SNAP_A SNAP_B [--proposals PROPOSALS --decisions DECISIONS]",
				Description: "One line per added (+), changed (~), merged (>) and removed (-) item, then the counts. With\n" +
					"the step's proposals and decisions, merges are the accepted merge proposals; without, a removed\n" +
					"item counts as merged when a new or changed item of its layer and type covers its support or words.\n\n" +
					"Examples:\n" +
					"  validate diff snap/3.parquet snap/4.parquet\n" +
					"  validate diff snap/3.parquet snap/4.parquet --proposals proposals/3.parquet --decisions decisions/3.parquet\n" +
					"  validate diff snap/0.parquet snap/6.parquet",
				Flags:  validate.DiffFlags(),
				Action: stage.Action(validate.DiffFrom, validate.RunDiff),
			},
			{
				Name:      "show",
				Usage:     "print the scaffold as rendered for each task type",
				UsageText: "validate show SNAP [--budget N] [--type T]...",
				Description: "Renders the snapshot as rollout puts it into the context: general rules, task rules and\n" +
					"mistakes of the type, within --budget tokens (items dropped lowest priority first).\n\n" +
					"Examples:\n" +
					"  validate show snap/4.parquet\n" +
					"  validate show snap/4.parquet --budget 100 --type pick_heat_then_place_in_recep",
				Flags:  validate.ShowFlags(),
				Action: stage.Action(validate.ShowFrom, validate.RunShow),
			},
		},
	}
}

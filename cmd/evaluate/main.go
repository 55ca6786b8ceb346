// Command evaluate summarises episodes by task type: from trajectory files,
// or by running a policy first.
package main

import (
	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/stage/evaluate"
)

func main() { command.Main(app()) }

func app() *cli.App {
	return &cli.App{
		Name:      "evaluate",
		Usage:     "summarise episodes: success, score, steps and tokens per episode, by task type",
		UsageText: "evaluate [options] TRAJ... | evaluate --policy POLICY --env ENV --split SPLIT [options]",
		Description: "Prints a Markdown table (overall and by task type); -o writes the metrics rows as Parquet.\n" +
			"Inputs may be files, folders of shards, or - (an Arrow stream on stdin).\n\n" +
			"Examples:\n" +
			"  evaluate traj.parquet\n" +
			"  evaluate traj/ -o metrics.parquet\n" +
			"  evaluate traj-a/ traj-b/ --group-by policy -o metrics.parquet\n" +
			"  evaluate --policy ckpt/0 --env household --split valid_seen --greedy",
		HideHelpCommand: true,
		Flags:           evaluate.Flags(),
		Action:          stage.Action(evaluate.From, evaluate.Run),
	}
}

// Command cards builds PATS evidence cards from trajectories: one card per
// group (or per episode), and optionally the type evidence.
package main

import (
	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/stage/cards"
)

func main() { command.Main(app()) }

func app() *cli.App {
	return &cli.App{
		Name:      "cards",
		Usage:     "build evidence cards (success rate, success/failure contrast, representatives) from trajectories",
		UsageText: "cards TRAJ... (or --traj TRAJ,...) -o CARDS [--evidence EVIDENCE] [--per group|trajectory] [--top N] [--group-by env,policy,run]",
		Description: "Reads the trajectories of one iteration (files, folders of shards, or - for an Arrow stream) and\n" +
			"writes one card per group: its success rate, each feature's frequency among the successful and\n" +
			"the failed episodes, the --top features separating them most, the failure modes, and one\n" +
			"representative episode of each side. --per trajectory makes one card per episode (an ablation).\n" +
			"--evidence also writes the type evidence (the cards aggregated per task type, plus one row over\n" +
			"all types for the general layer); control does not need it: it aggregates the cards itself\n" +
			"with the same --top, which the cards file records.\n\n" +
			"Examples:\n" +
			"  cards traj/3.parquet -o cards/3.parquet\n" +
			"  cards traj/3/ -o cards/3.parquet --evidence evidence/3.parquet\n" +
			"  rollout --policy random --tasks 12 --group 4 -o - | cards - --per trajectory -o cards.parquet",
		HideHelpCommand: true,
		Flags:           cards.Flags(),
		Action:          stage.Action(cards.From, cards.Run),
	}
}

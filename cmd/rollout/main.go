// Command rollout plays episodes of an environment with a policy and writes
// one trajectory row per episode.
package main

import (
	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/stage/rollout"
)

func main() { command.Main(app()) }

func app() *cli.App {
	return &cli.App{
		Name:      "rollout",
		Usage:     "play episodes with a policy and write trajectories",
		UsageText: "rollout --env household --split train --tasks 32 --group 8 --policy oracle --seed 1 -o traj.parquet",
		Description: "Runs --group episodes of each of --tasks tasks drawn (seeded) from a split and writes one\n" +
			"trajectory row per episode (Parquet, or an Arrow IPC stream when -o is -).\n\n" +
			"Examples:\n" +
			"  rollout --env household --split train --tasks 32 --group 8 --policy oracle --seed 1 -o traj.parquet\n" +
			"  rollout --env shop --split test --policy random --group 1 --skills -o - | evaluate -\n" +
			"  rollout --env household --split train --tasks 64 --group 8 --policy ckpt/3 --scaffold snap/3.parquet --shard 0/4 -o traj/3/part0.parquet",
		HideHelpCommand: true,
		Flags:           rollout.Flags(),
		Action:          stage.Action(rollout.From, rollout.Run),
	}
}

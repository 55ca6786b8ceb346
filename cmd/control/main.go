// Command control runs the PATS controller and the refiner for one
// iteration: a primitive per task type from the smoothed success rate, and
// the refiner's proposals under it.
package main

import (
	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/stage/control"
)

func main() { command.Main(app()) }

func app() *cli.App {
	return &cli.App{
		Name:      "control",
		Usage:     "pick a primitive per task type and propose scaffold edits under it",
		UsageText: "control --cards CARDS --scaffold SNAP [--state STATE] -o PROPOSALS --state-out STATE [options]",
		Description: "Per task type (and the general layer) it smooths the success rate of the cards' iteration k\n" +
			"with the earlier state (EMA) and picks a primitive: EXPAND below --rho-r, REVISE up to --rho-c,\n" +
			"COMPRESS above, FORCED_PRUNE when a cap is reached. The refiner (read-only) then proposes edits\n" +
			"under it: builtin (deterministic, contrastive) or openai (any OpenAI-compatible chat endpoint;\n" +
			"the key comes from OPENAI_API_KEY). An unusable model answer yields no proposal for that type\n" +
			"and its reason in the files' metadata (pats.extra.reason.<type>), never a failed pipeline.\n" +
			"Writes the proposals and the controller state after k. Only validate changes the scaffold.\n\n" +
			stage.LoopHelp + "\n\n" +
			"Examples:\n" +
			"  control --cards cards/0.parquet --scaffold snap/0.parquet -o proposals/0.parquet --state-out state/0.parquet\n" +
			"  control --cards cards/3.parquet --scaffold snap/3.parquet --state state/2.parquet -o proposals/3.parquet --state-out state/3.parquet\n" +
			"  control --cards cards/3.parquet --scaffold snap/3.parquet --state state/2.parquet -o proposals/3.parquet \\\n" +
			"      --state-out state/3.parquet --refiner openai --endpoint http://127.0.0.1:8000 --model qwen2.5-7b-instruct\n" +
			"  control ... --primitives no-revise      (an ablation: REVISE becomes NONE)",
		HideHelpCommand: true,
		Flags:           control.Flags(),
		Action:          stage.Action(control.From, control.Run),
	}
}

// Command control runs the PATS controller and the refiner for one
// iteration: a primitive per task type from the smoothed success rate, and
// the refiner's proposals under it.
package main

import (
	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/refiner"
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
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "cards", Usage: "cards of iteration k (from cards)"},
			&cli.StringFlag{Name: "scaffold", Usage: "snapshot k"},
			&cli.StringFlag{Name: "state", Usage: "controller state of the previous iteration; none at the start"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "proposals file"},
			&cli.StringFlag{Name: "state-out", Usage: "controller state after iteration k"},
			&cli.StringFlag{Name: "refiner", Value: "builtin", Usage: "builtin or openai"},
			&cli.StringFlag{Name: "endpoint", Usage: "openai: base URL of the chat-completions server"},
			&cli.StringFlag{Name: "model", Usage: "openai: model name"},
			&cli.DurationFlag{Name: "timeout", Value: refiner.NewOpenAI("", "").Timeout, Usage: "openai: time limit per request"},
			&cli.IntFlag{Name: "retries", Value: refiner.NewOpenAI("", "").Retries, Usage: "openai: extra attempts after a transport error, timeout, 429 or 5xx"},
			&cli.Int64Flag{Name: "seed", Value: 1, Usage: "openai: request seed (servers that honour it answer reproducibly)"},
			&cli.StringFlag{Name: "on-refiner-failure", Value: "stop", Usage: "when the refiner cannot be asked after its retries (unreachable or failing endpoint): stop (exit 1, nothing written) or continue (no proposals for that scope this iteration, said on stderr)"},
		}, stage.LoopFlags()...),
		Action: func(c *cli.Context) error {
			if err := command.Args(c, 0, 0); err != nil {
				return err
			}
			loop, err := stage.LoopFrom(c)
			if err != nil {
				return err
			}
			tok, err := stage.Tokenizer(loop.Tokenizer)
			if err != nil {
				return err
			}
			onFail := c.String("on-refiner-failure")
			if onFail != "stop" && onFail != "continue" {
				return command.Usagef("--on-refiner-failure %q: want stop or continue", onFail)
			}
			return control.Run(c.Context, control.Options{
				Cards: c.String("cards"), Scaffold: c.String("scaffold"), State: c.String("state"),
				Output: c.String("output"), StateOut: c.String("state-out"), Loop: loop,
				Refiner: c.String("refiner"), Endpoint: c.String("endpoint"), Model: c.String("model"),
				Timeout: c.Duration("timeout"), Retries: c.Int("retries"), Seed: c.Int64("seed"),
				Tok: tok, Progress: command.Progress(),
				ContinueOnFailure: onFail == "continue",
			}, stage.CLI(c))
		},
	}
}

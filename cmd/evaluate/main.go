// Command evaluate summarises episodes by task type: from trajectory files,
// or by running a policy first.
package main

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/eval"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/stage/deviceflag"
	"github.com/pats-rl/pats/lib/stage/evaluate"
	"github.com/pats-rl/pats/lib/stage/rollout"
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
		Flags: append(append(stage.TrajFlags("trajectory files, folders of shards, or - (an Arrow stream on stdin) to summarise"),
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the metrics rows here (- for an Arrow stream)"},
			&cli.StringFlag{Name: "policy", Usage: "run this policy first: oracle, random, or a checkpoint folder"},
			&cli.StringFlag{Name: "run", Usage: "run name recorded in the metrics (and the episodes it plays); unset: the trajectories' run, else NULL"},
			&cli.IntFlag{Name: "iteration", Usage: "training iteration recorded in the episodes it plays (with --policy)"},
			deviceflag.Flag(),
			&cli.StringFlag{Name: "env", Value: "household", Usage: "environment (with --policy)"},
			&cli.StringFlag{Name: "split", Value: "valid_seen", Usage: "split (with --policy)"},
			&cli.IntFlag{Name: "tasks", Usage: "tasks drawn from the split; 0: the whole split (with --policy)"},
			&cli.IntFlag{Name: "group", Value: 1, Usage: "episodes per task (with --policy)"},
			&cli.Int64Flag{Name: "seed", Value: 1, Usage: "seed (with --policy)"},
			&cli.StringFlag{Name: "scaffold", Usage: "scaffold snapshot in the context (with --policy); none by default"},
			&cli.IntFlag{Name: "scaffold-budget", Value: 400, Usage: "token budget of the rendered scaffold"},
			&cli.BoolFlag{Name: "skills", Usage: "show a skill slate (with --policy)"},
			&cli.IntFlag{Name: "slate", Value: 16, Usage: "candidates per slate"},
			&cli.Float64Flag{Name: "temperature", Value: rollout.EvalTemperature, Usage: "sampling temperature (unset: the checkpoint's generation_config.json, else 0.4)"},
			&cli.Float64Flag{Name: "top-p", Value: 1.0, Usage: "nucleus sampling mass (unset: the checkpoint's generation_config.json, else 1)"},
			&cli.IntFlag{Name: "top-k", Usage: "sample among the k most probable tokens only (checkpoint policies; unset: the checkpoint's generation_config.json, else 0: no cut)"},
			&cli.Float64Flag{Name: "repetition-penalty", Value: 1.0, Usage: "divide the logits of tokens already in the context by this (checkpoint policies; unset: the checkpoint's generation_config.json, else 1: none)"},
			&cli.StringFlag{Name: "prompt-format", Usage: "builtin or chatml; unset: the checkpoint's agent.json, else chatml for a checkpoint whose chat template has <|im_start|>, else builtin"},
			&cli.IntFlag{Name: "max-action-tokens", Usage: "tokens per answer; 0: 32 under builtin, 512 under chatml; unset: the checkpoint's agent.json, if it has one"},
			&cli.BoolFlag{Name: "greedy", Usage: "greedy decoding"},
			&cli.IntFlag{Name: "history", Usage: "turns an answer sees in full; older ones are replaced by one marker line; 0: the whole episode; unset: the checkpoint's agent.json, if it has one"},
			&cli.StringFlag{Name: "admissible", Value: "none", Usage: "the admissible actions each observation in the context lists after it: none, here (those that change something at the current place: no go to, look, examine or inventory) or all; unset: the checkpoint's agent.json, if it has one"},
			&cli.DurationFlag{Name: "step-timeout", Usage: "exec: environments: the longest wait for one answer, e.g. 30s (0: no limit)"},
			&cli.IntFlag{Name: "max-context", Value: 4096, Usage: "context limit in tokens"},
			&cli.StringFlag{Name: "trajectories", Usage: "also keep the episodes it ran in this file (with --policy)"},
		), append(stage.ListFlag("group-by", "summarise each env, policy or run apart (any of env, policy, run) instead of refusing trajectory files that mix them"),
			command.ProgressFlags()...)...),
		Action: func(c *cli.Context) error {
			in, _ := stage.Traj(c, false)
			if len(in) > 0 && c.IsSet("policy") {
				return command.Usagef("give trajectory files or --policy, not both")
			}
			prog, err := command.ProgressSettings(c)
			if err != nil {
				return err
			}
			by, err := eval.ParseGroupBy(strings.Join(stage.List(c, "group-by"), ","))
			if err != nil {
				return command.Usagef("%v", err)
			}
			f := evaluate.Options{
				Run: c.String("run"), GroupBy: by,
				Inputs:  in,
				Output:  c.String("output"),
				Trajout: c.String("trajectories"),
				Rollout: rollout.Options{Batch: rollout.DefaultBatch,
					Env: c.String("env"), Split: c.String("split"), Tasks: c.Int("tasks"), Group: c.Int("group"),
					Seed: c.Int64("seed"), Policy: c.String("policy"), Iteration: c.Int("iteration"), Skills: c.Bool("skills"), Slate: c.Int("slate"),
					Scaffold: c.String("scaffold"), ScaffoldBudget: c.Int("scaffold-budget"),
					Temperature: c.Float64("temperature"), TopP: c.Float64("top-p"), Greedy: c.Bool("greedy"),
					TemperatureSet: c.IsSet("temperature"), TopPSet: c.IsSet("top-p"),
					TopK: c.Int("top-k"), RepPenalty: c.Float64("repetition-penalty"), TopKSet: c.IsSet("top-k"), RepPenaltySet: c.IsSet("repetition-penalty"),
					HistorySet: c.IsSet("history"), AdmissibleSet: c.IsSet("admissible"), MaxActionTokensSet: c.IsSet("max-action-tokens"), PromptFormat: c.String("prompt-format"),
					MaxActionTokens: c.Int("max-action-tokens"), InvalidPenalty: 0.1,
					MaxContext: c.Int("max-context"), StepTimeout: c.Duration("step-timeout"), History: c.Int("history"), Admissible: c.String("admissible"), Progress: prog,
					Device: c.String("device"),
				},
			}
			if c.IsSet("policy") {
				if err := f.Rollout.Check(); err != nil {
					return err
				}
			}
			return evaluate.Run(c.Context, f, stage.CLI(c))
		},
	}
}

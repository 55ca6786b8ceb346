// Command rollout plays episodes of an environment with a policy and writes
// one trajectory row per episode.
package main

import (
	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/stage/deviceflag"
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
		Flags: append([]cli.Flag{
			deviceflag.Flag(),
			&cli.StringFlag{Name: "env", Value: "household", Usage: "environment: household, shop, searchqa, or exec:COMMAND"},
			&cli.StringFlag{Name: "split", Value: "train", Usage: "task split: train, valid_seen, valid_unseen (shop and searchqa: also test)"},
			&cli.IntFlag{Name: "tasks", Value: 0, Usage: "tasks drawn from the split with --seed; 0 runs the whole split in order"},
			&cli.IntFlag{Name: "group", Value: 1, Usage: "episodes per task (a GRPO group)"},
			&cli.Int64Flag{Name: "seed", Value: 1, Usage: "seed of task draw, environments and sampling"},
			&cli.StringFlag{Name: "shard", Usage: "run part i of n of the tasks, as i/n (0-based)"},
			&cli.StringFlag{Name: "policy", Value: "oracle", Usage: "oracle, random, or a checkpoint folder"},
			&cli.StringFlag{Name: "tokenizer", Usage: "a checkpoint folder whose tokenizer (and chat template) the oracle and random policies write with; default: the built-in one"},
			&cli.StringFlag{Name: "run", Usage: "run name recorded in every row"},
			&cli.IntFlag{Name: "iteration", Usage: "training iteration k recorded in every row"},
			&cli.BoolFlag{Name: "skills", Usage: "show a slate of skills from the environment's built-in library"},
			&cli.StringFlag{Name: "skills-dir", Usage: "a folder of SKILL.md folders to draw slates from (implies --skills)"},
			&cli.StringFlag{Name: "text-read", Usage: "with skills on, the skill oracle and random policies read first: right, random (drawn from the slate) or none; unset: right for the oracle, random for the random policy"},
			&cli.StringFlag{Name: "preread", Value: "none", Usage: "without --skills, a library skill's body before the first action, as if read: none, right (the type's right skill) or random (a library skill drawn per task); demonstrations for a base that reads"},
			&cli.StringFlag{Name: "hints", Value: "none", Usage: "rules about each task in the scaffold's place: none, right, misleading, irrelevant, or mixed (demonstrations for a base that reads; the household worlds)"},
			&cli.IntFlag{Name: "slate", Value: 16, Usage: "candidates per slate"},
			&cli.StringFlag{Name: "scaffold", Usage: "scaffold snapshot rendered into the context; without it no scaffold (deployment)"},
			&cli.IntFlag{Name: "scaffold-budget", Value: 400, Usage: "token budget of the rendered scaffold"},
			&cli.Float64Flag{Name: "temperature", Value: 1.0, Usage: "sampling temperature (checkpoint policies; unset: the checkpoint's generation_config.json, else 1)"},
			&cli.Float64Flag{Name: "top-p", Value: 1.0, Usage: "nucleus sampling mass (checkpoint policies; unset: the checkpoint's generation_config.json, else 1)"},
			&cli.IntFlag{Name: "top-k", Usage: "sample among the k most probable tokens only (checkpoint policies; unset: the checkpoint's generation_config.json, else 0: no cut)"},
			&cli.Float64Flag{Name: "repetition-penalty", Value: 1.0, Usage: "divide the logits of tokens already in the context by this (checkpoint policies; unset: the checkpoint's generation_config.json, else 1: none)"},
			&cli.StringFlag{Name: "prompt-format", Usage: "builtin or chatml; unset: the checkpoint's agent.json, else chatml for a checkpoint whose chat template has <|im_start|> (Qwen2/2.5/3), else builtin"},
			&cli.Float64Flag{Name: "invalid-penalty", Value: 0.1, Usage: "subtracted from the episode's reward for each answer without a well-formed <action> (chatml)"},
			&cli.IntFlag{Name: "max-action-tokens", Usage: "tokens per answer (checkpoint policies); 0: 32 under builtin, 512 under chatml; unset: the checkpoint's agent.json, if it has one"},
			&cli.BoolFlag{Name: "greedy", Usage: "pick the most likely token (checkpoint policies)"},
			&cli.IntFlag{Name: "batch", Value: 32, Usage: "episodes that decode together, one batched forward per token (checkpoint policies)"},
			&cli.IntFlag{Name: "history", Usage: "turns an answer sees in full; older ones are replaced by one marker line; 0: the whole episode; unset: the checkpoint's agent.json, if it has one"},
			&cli.StringFlag{Name: "admissible", Value: "none", Usage: "the admissible actions each observation in the context lists after it: none, here (those that change something at the current place: no go to, look, examine or inventory) or all; unset: the checkpoint's agent.json, if it has one"},
			&cli.DurationFlag{Name: "step-timeout", Usage: "exec: environments: the longest wait for one answer, e.g. 30s (0: no limit)"},
			&cli.IntFlag{Name: "max-context", Value: 4096, Usage: "context limit in tokens; an episode stops there"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "output file, or - for an Arrow stream on stdout"},
		}, command.ProgressFlags()...),
		Action: func(c *cli.Context) error {
			if err := command.Args(c, 0, 0); err != nil {
				return err
			}
			prog, err := command.ProgressSettings(c)
			if err != nil {
				return err
			}
			f := rollout.Options{
				Env: c.String("env"), Split: c.String("split"), Tasks: c.Int("tasks"), Group: c.Int("group"),
				Seed: c.Int64("seed"), Shard: c.String("shard"), Policy: c.String("policy"), Tokenizer: c.String("tokenizer"), Run: c.String("run"),
				Iteration: c.Int("iteration"), Skills: c.Bool("skills"), SkillsDir: c.String("skills-dir"),
				Slate: c.Int("slate"), TextRead: c.String("text-read"), Hints: c.String("hints"), Preread: c.String("preread"), Scaffold: c.String("scaffold"), ScaffoldBudget: c.Int("scaffold-budget"),
				Temperature: c.Float64("temperature"), TopP: c.Float64("top-p"), Greedy: c.Bool("greedy"),
				TemperatureSet: c.IsSet("temperature"), TopPSet: c.IsSet("top-p"),
				TopK: c.Int("top-k"), RepPenalty: c.Float64("repetition-penalty"), TopKSet: c.IsSet("top-k"), RepPenaltySet: c.IsSet("repetition-penalty"),
				HistorySet: c.IsSet("history"), AdmissibleSet: c.IsSet("admissible"), MaxActionTokensSet: c.IsSet("max-action-tokens"), PromptFormat: c.String("prompt-format"),
				InvalidPenalty: c.Float64("invalid-penalty"), MaxActionTokens: c.Int("max-action-tokens"),
				MaxContext: c.Int("max-context"), StepTimeout: c.Duration("step-timeout"), History: c.Int("history"), Admissible: c.String("admissible"), Batch: c.Int("batch"), Output: c.String("output"), Progress: prog,
				Device: c.String("device"),
			}
			if err := f.Check(); err != nil {
				return err
			}
			return rollout.Run(c.Context, f, stage.CLI(c))
		},
	}
}

// Command learn trains a policy checkpoint: supervised fine-tuning on
// demonstrations (learn sft) or a GRPO update on rollouts (learn grpo).
package main

import (
	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/rl"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/stage/deviceflag"
	"github.com/pats-rl/pats/lib/stage/learn"
)

func main() { command.Main(app()) }

// optimFlags are shared by both subcommands; defaults differ.
func optimFlags(o rl.OptimConfig, schedule string) []cli.Flag {
	return []cli.Flag{
		&cli.Float64Flag{Name: "lr", Value: o.LR, Usage: "peak learning rate"},
		&cli.Float64Flag{Name: "warmup", Value: o.Warmup, Usage: "share of the steps spent warming the learning rate up linearly from 0"},
		&cli.StringFlag{Name: "schedule", Value: schedule, Usage: "after warmup: cosine (decay to --min-lr-ratio times --lr) or constant"},
		&cli.Float64Flag{Name: "min-lr-ratio", Value: o.MinLRRatio, Usage: "final learning rate of the cosine schedule, as a share of --lr"},
		&cli.Float64Flag{Name: "max-grad-norm", Value: o.MaxGradNorm, Usage: "clip the global gradient norm to this (0: no clipping)"},
		&cli.Float64Flag{Name: "weight-decay", Value: 0.01, Usage: "AdamW decoupled weight decay (for a fresh optimizer)"},
		&cli.Int64Flag{Name: "seed", Value: 1, Usage: "seed of initialisation (tiny, small) and minibatch shuffling"},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "checkpoint folder to write (replaced atomically)"},
		&cli.StringFlag{Name: "metrics", Usage: "write one training-metrics row per optimizer step to this file"},
	}
}

func optim(c *cli.Context) (rl.OptimConfig, error) {
	o := rl.OptimConfig{LR: c.Float64("lr"), Warmup: c.Float64("warmup"), MinLRRatio: c.Float64("min-lr-ratio"),
		MaxGradNorm: c.Float64("max-grad-norm")}
	switch c.String("schedule") {
	case "cosine":
		o.Cosine = true
	case "constant":
	default:
		return o, command.Usagef("unknown --schedule %q: want cosine or constant", c.String("schedule"))
	}
	return o, nil
}

func app() *cli.App {
	sft, grpo := rl.DefaultSFT(), rl.DefaultGRPO()
	return &cli.App{
		Name:  "learn",
		Usage: "train a checkpoint: sft on demonstrations, grpo on rollouts",
		Description: "Examples:\n" +
			"  learn sft --init tiny --demos demos.parquet -o ckpt/0 --metrics metrics/sft.parquet\n" +
			"  learn grpo --init ckpt/3 --ref ckpt/0 traj/3.parquet -o ckpt/4 --metrics metrics/4.parquet --credit skillgate",
		HideHelpCommand: true,
		Commands: []*cli.Command{
			{
				Name:      "sft",
				Usage:     "supervised fine-tuning on the policy-written tokens of trajectories",
				UsageText: "learn sft --init tiny|small|CKPT --demos demos.parquet -o ckpt/0 [--epochs N --batch-tokens N --lr X --seed N --metrics m.parquet]",
				Description: "Minimises the next-token loss of the policy-written tokens (roles action and skill name)\n" +
					"of the given trajectories; every other token is context. Minibatches hold whole sequences up\n" +
					"to --batch-tokens tokens in all, in a seeded shuffle per epoch; AdamW with gradient clipping,\n" +
					"linear warmup then cosine decay. Writes a Hugging Face checkpoint folder with tokenizer.json\n" +
					"(the built-in tokenizer for tiny and small, else the init checkpoint's) and optimizer state.\n" +
					"Trajectories made with another tokenizer are refused.\n\n" +
					"Examples:\n" +
					"  rollout --env household --tasks 64 --group 1 --policy oracle -o demos.parquet\n" +
					"  learn sft --init tiny --demos demos.parquet -o ckpt/0 --epochs 3 --metrics sft.parquet\n" +
					"  learn sft --init ckpt/0 --demos more.parquet --lr 3e-4 -o ckpt/0b",
				Flags: append([]cli.Flag{
					&cli.StringFlag{Name: "init", Usage: "tiny, small (fresh models over the built-in tokenizer) or a checkpoint folder"},
					&cli.StringSliceFlag{Name: "demos", Usage: "trajectory file(s) to imitate (also as arguments)"},
					&cli.IntFlag{Name: "epochs", Value: sft.Epochs, Usage: "passes over the demonstrations"},
					&cli.IntFlag{Name: "batch-tokens", Value: sft.BatchTokens, Usage: "tokens per minibatch (whole sequences)"},
					deviceflag.Flag(),
				}, append(optimFlags(sft.Optim, "cosine"), command.ProgressFlags()...)...),
				Action: func(c *cli.Context) error {
					o, err := optim(c)
					if err != nil {
						return err
					}
					prog, err := command.ProgressSettings(c)
					if err != nil {
						return err
					}
					cfg := sft
					cfg.Epochs, cfg.BatchTokens, cfg.Optim, cfg.Progress = c.Int("epochs"), c.Int("batch-tokens"), o, prog
					return learn.RunSFT(c.Context, learn.SFTOptions{Init: c.String("init"),
						Demos:  append(c.StringSlice("demos"), c.Args().Slice()...),
						Output: c.String("output"), Metrics: c.String("metrics"), Seed: c.Int64("seed"),
						Config: cfg, WeightDecay: c.Float64("weight-decay"), Device: c.String("device")}, stage.CLI(c))
				},
			},
			{
				Name:      "grpo",
				Usage:     "one GRPO update of a checkpoint on its own rollouts",
				UsageText: "learn grpo --init ckpt/k --ref ckpt/0 traj/k.parquet... -o ckpt/k+1 [--metrics m.parquet --advantages adv.parquet --credit broadcast|skillgate ...]",
				Description: "Group-relative advantages (episodes with one group_id normalised by the group's mean and\n" +
					"std; --adv-norm mean: mean only; a group whose rewards are all equal gives no outcome\n" +
					"credit), a PPO clipped surrogate on the policy-written tokens with the ratio taken against\n" +
					"the trajectories' behaviour log-probabilities, plus --kl times the k3 KL estimate to --ref.\n" +
					"--credit skillgate sends the outcome advantage to execution tokens only and a selection\n" +
					"advantage to skill-name tokens only: with --select-baseline group (the default) each read\n" +
					"action's utility (1 when the episode's single read is the right skill, else 0) minus the\n" +
					"mean utility of the group's read actions, its loss term scaled by --select-coef; with\n" +
					"--select-baseline none +select-coef for a single right read, -select-coef otherwise. With\n" +
					"--select-norm channel (the default) the selection tokens form a loss term of their own,\n" +
					"averaged apart from the execution tokens. --drop-flat-groups leaves groups whose rewards\n" +
					"are all equal out of the update.\n" +
					"--credit gigpo (or --step-credit gigpo beside --credit skillgate) adds GiGPO's step-level\n" +
					"advantage: each turn's discounted return (--gamma) relative to the group's turns that\n" +
					"acted from the same state (step_keys), normalised as --adv-norm says, times --step-weight,\n" +
					"on the execution tokens of that turn (never on skill-name tokens under skillgate).\n" +
					"The optimizer state of --init carries over.\n" +
					"Log-probabilities are taken under the rule the trajectories record (temperature, top_p,\n" +
					"top_k, repetition_penalty): log softmax(logits / temperature) over the whole vocabulary, as\n" +
					"rollout recorded them, so the first step's ratio is 1; trajectories sampled under different\n" +
					"rules are refused. Trajectories played by other weights than --init's (policy_hash) are\n" +
					"refused unless --off-policy.\n\n" +
					"Examples:\n" +
					"  learn grpo --init ckpt/0 --ref ckpt/0 traj/0.parquet -o ckpt/1 --metrics metrics/1.parquet\n" +
					"  learn grpo --init ckpt/3 --ref ckpt/0 traj/3/ -o ckpt/4 --credit skillgate --advantages adv/3.parquet\n" +
					"  learn grpo --init ckpt/3 --ref ckpt/0 traj/3/ -o ckpt/4 --credit gigpo --gamma 0.95 --advantages adv/3.parquet\n" +
					"  learn grpo --init ckpt/3 --ref ckpt/0 traj/3/ -o ckpt/4 --credit skillgate --step-credit gigpo\n" +
					"  learn grpo --init ckpt/3 --ref ckpt/0 traj/3.parquet -o ckpt/4 --loss-agg token-mean --epochs 2 --minibatch 16",
				Flags: append([]cli.Flag{
					&cli.StringFlag{Name: "init", Usage: "checkpoint folder of the policy that made the trajectories"},
					&cli.StringFlag{Name: "ref", Usage: "reference checkpoint of the KL term (required unless --kl 0)"},
					deviceflag.Flag(),
					&cli.StringFlag{Name: "advantages", Usage: "write the per-token advantages and channels used to this file"},
					&cli.StringFlag{Name: "credit", Value: "broadcast", Usage: "broadcast, skillgate, or gigpo (broadcast plus GiGPO's step credit)"},
					&cli.StringFlag{Name: "step-credit", Value: "none", Usage: "none or gigpo: the step-level credit added to the episode advantage"},
					&cli.Float64Flag{Name: "gamma", Value: grpo.Gamma, Usage: "gigpo: discount of the per-turn returns"},
					&cli.Float64Flag{Name: "step-weight", Value: grpo.StepWeight, Usage: "gigpo: weight of the step advantage added to the episode advantage"},
					&cli.StringFlag{Name: "select-baseline", Value: "group", Usage: "skillgate: group (utility minus the group's mean over read actions) or none (+/-select-coef)"},
					&cli.BoolFlag{Name: "drop-flat-groups", Usage: "leave groups whose rewards are all equal out of the update"},
					&cli.BoolFlag{Name: "off-policy", Usage: "train on trajectories another checkpoint than --init played (recorded in the metrics' metadata)"},
					&cli.StringFlag{Name: "adv-norm", Value: "std", Usage: "std: (r-mean)/std within a group; mean: r-mean"},
					&cli.Float64Flag{Name: "clip", Value: grpo.Clip, Usage: "PPO ratio clip range"},
					&cli.Float64Flag{Name: "kl", Value: grpo.KL, Usage: "coefficient of the k3 KL penalty to --ref"},
					&cli.StringFlag{Name: "loss-agg", Value: "seq-mean", Usage: "seq-mean (per sequence, then over sequences) or token-mean"},
					&cli.IntFlag{Name: "epochs", Value: grpo.Epochs, Usage: "passes over the trajectories"},
					&cli.IntFlag{Name: "minibatch", Value: 0, Usage: "sequences per optimizer step (0: all in one step)"},
					&cli.Float64Flag{Name: "select-coef", Value: grpo.SelectCoef, Usage: "skillgate: scale of the selection loss term (baseline group) or magnitude of the selection advantage (baseline none)"},
					&cli.StringFlag{Name: "select-norm", Value: "channel", Usage: "skillgate: channel (the selection tokens averaged as a loss term of their own) or sequence (inside their episode's average, as broadcast)"},
				}, append(optimFlags(grpo.Optim, "constant"), command.ProgressFlags()...)...),
				Action: func(c *cli.Context) error {
					if err := command.Args(c, 1, -1); err != nil {
						return err
					}
					o, err := optim(c)
					if err != nil {
						return err
					}
					cfg := grpo
					if cfg.Progress, err = command.ProgressSettings(c); err != nil {
						return err
					}
					cfg.Optim = o
					if cfg.Credit, cfg.Step, err = rl.ParseCredits(c.String("credit"), c.String("step-credit")); err != nil {
						return command.Usagef("%v", err)
					}
					if cfg.SelectBaseline, err = rl.ParseSelectBaseline(c.String("select-baseline")); err != nil {
						return command.Usagef("%v", err)
					}
					cfg.Gamma, cfg.StepWeight, cfg.DropFlat = c.Float64("gamma"), c.Float64("step-weight"), c.Bool("drop-flat-groups")
					if cfg.Norm, err = rl.ParseAdvNorm(c.String("adv-norm")); err != nil {
						return command.Usagef("%v", err)
					}
					if cfg.Agg, err = rl.ParseAgg(c.String("loss-agg")); err != nil {
						return command.Usagef("%v", err)
					}
					if cfg.SelectNorm, err = rl.ParseSelectNorm(c.String("select-norm")); err != nil {
						return command.Usagef("%v", err)
					}
					cfg.Clip, cfg.KL, cfg.Epochs = c.Float64("clip"), c.Float64("kl"), c.Int("epochs")
					cfg.Minibatch, cfg.SelectCoef = c.Int("minibatch"), c.Float64("select-coef")
					return learn.RunGRPO(c.Context, learn.GRPOOptions{Init: c.String("init"), Ref: c.String("ref"),
						Traj: c.Args().Slice(), Output: c.String("output"), Metrics: c.String("metrics"),
						Advantages: c.String("advantages"), Seed: c.Int64("seed"), Config: cfg,
						WeightDecay: c.Float64("weight-decay"), Device: c.String("device"), OffPolicy: c.Bool("off-policy")}, stage.CLI(c))
				},
			},
		},
	}
}

package learn

import (
	"errors"

	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/rl"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/stage/deviceflag"
)

// The options of learn sft and learn grpo are declared here once (name,
// type, default, help) and read here (SFTFrom, GRPOFrom): the enum
// options are parsed into lib/rl's typed values, and a value lib/rl
// refuses is reported under its flag (stage.FlagError). RunSFT and RunGRPO
// check the ranges.

// optimFlags are the options both subcommands share; the defaults differ.
func optimFlags(o rl.OptimConfig, schedule string) []cli.Flag {
	return []cli.Flag{
		&cli.Float64Flag{Name: "lr", Value: o.LR, Usage: "peak learning rate"},
		&cli.Float64Flag{Name: "warmup", Value: o.Warmup, Usage: "share of the steps spent warming the learning rate up linearly from 0"},
		&cli.StringFlag{Name: "schedule", Value: schedule, Usage: "after warmup: cosine (decay to --min-lr-ratio times --lr) or constant"},
		&cli.Float64Flag{Name: "min-lr-ratio", Value: o.MinLRRatio, Usage: "final learning rate of the cosine schedule, as a share of --lr"},
		&cli.Float64Flag{Name: "max-grad-norm", Value: o.MaxGradNorm, Usage: "clip the global gradient norm to this (0: no clipping)"},
		&cli.Float64Flag{Name: "weight-decay", Value: 0.01, Usage: "AdamW decoupled weight decay, from 0 to 1 (for a fresh optimizer)"},
		&cli.Int64Flag{Name: "seed", Value: 1, Usage: "seed of initialisation (tiny, small) and minibatch shuffling"},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Required: true, Usage: "checkpoint folder to write (replaced atomically)"},
		&cli.StringFlag{Name: "metrics", Usage: "write one training-metrics row per optimizer step to this file"},
	}
}

func optimFrom(c *cli.Context) (rl.OptimConfig, error) {
	o := rl.OptimConfig{LR: c.Float64("lr"), Warmup: c.Float64("warmup"), MinLRRatio: c.Float64("min-lr-ratio"),
		MaxGradNorm: c.Float64("max-grad-norm")}
	switch s := c.String("schedule"); s {
	case "cosine":
		o.Cosine = true
	case "constant":
	default:
		return o, command.Usagef("--schedule %q: want cosine or constant", s)
	}
	return o, nil
}

// SFTFlags declares learn sft's options.
func SFTFlags() []cli.Flag {
	sft := rl.DefaultSFT()
	return append([]cli.Flag{
		&cli.StringFlag{Name: "init", Required: true, Usage: "tiny, small (fresh models over the built-in tokenizer) or a checkpoint folder"},
	}, append(append(stage.TrajFlags("trajectory files to imitate", "demos"),
		&cli.IntFlag{Name: "epochs", Value: sft.Epochs, Usage: "passes over the demonstrations"},
		&cli.IntFlag{Name: "batch-tokens", Value: sft.BatchTokens, Usage: "tokens per minibatch (whole sequences)"},
		deviceflag.Flag()), append(loraFlags(),
		append(optimFlags(sft.Optim, "cosine"), stage.ProgressFlags()...)...)...)...)
}

// SFTFrom reads learn sft's options.
func SFTFrom(c *cli.Context) (SFTOptions, error) {
	o, err := optimFrom(c)
	if err != nil {
		return SFTOptions{}, err
	}
	prog, err := stage.ProgressSettings(c)
	if err != nil {
		return SFTOptions{}, err
	}
	cfg := rl.DefaultSFT()
	cfg.Epochs, cfg.BatchTokens, cfg.Optim, cfg.Progress = c.Int("epochs"), c.Int("batch-tokens"), o, prog
	demos, _ := stage.Traj(c, false, "demos")
	lo, err := loraFrom(c)
	if err != nil {
		return SFTOptions{}, err
	}
	return SFTOptions{Init: c.String("init"),
		Demos:  demos,
		Output: c.String("output"), Metrics: c.String("metrics"), Seed: c.Int64("seed"),
		Config: cfg, WeightDecay: c.Float64("weight-decay"), Device: c.String("device"), LoRA: lo}, nil
}

// GRPOFlags declares learn grpo's options.
func GRPOFlags() []cli.Flag {
	grpo := rl.DefaultGRPO()
	return append(append(stage.TrajFlags("trajectory files"),
		&cli.StringFlag{Name: "init", Required: true, Usage: "checkpoint folder of the policy that made the trajectories"},
		&cli.StringFlag{Name: "ref", Usage: "reference checkpoint of the KL term (required unless --kl 0 or LoRA, whose reference is the base with the adapter off)"},
		deviceflag.Flag(),
		&cli.StringFlag{Name: "advantages", Usage: "write the per-token advantages and channels used to this file"},
		&cli.StringFlag{Name: "credit", Value: "broadcast", Usage: "broadcast, skillgate, or gigpo (broadcast with --step-credit gigpo; any other --step-credit beside it is refused)"},
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
	), append(loraFlags(), append(optimFlags(grpo.Optim, "constant"), stage.ProgressFlags()...)...)...)
}

// GRPOFrom reads learn grpo's options. --credit gigpo is broadcast with
// --step-credit gigpo; a --step-credit none given beside it is refused
// (rl.ParseCredits), never silently overridden.
func GRPOFrom(c *cli.Context) (GRPOOptions, error) {
	o, err := optimFrom(c)
	if err != nil {
		return GRPOOptions{}, err
	}
	cfg := rl.DefaultGRPO()
	if cfg.Progress, err = stage.ProgressSettings(c); err != nil {
		return GRPOOptions{}, err
	}
	cfg.Optim = o
	step := ""
	if c.IsSet("step-credit") {
		step = c.String("step-credit")
	}
	if cfg.Credit, cfg.Step, err = ParseCredits(c.String("credit"), step); err != nil {
		return GRPOOptions{}, err
	}
	if cfg.SelectBaseline, err = rl.ParseSelectBaseline(c.String("select-baseline")); err != nil {
		return GRPOOptions{}, stage.FlagError(err, nil)
	}
	if cfg.Norm, err = rl.ParseAdvNorm(c.String("adv-norm")); err != nil {
		return GRPOOptions{}, stage.FlagError(err, nil)
	}
	if cfg.Agg, err = rl.ParseAgg(c.String("loss-agg")); err != nil {
		return GRPOOptions{}, stage.FlagError(err, nil)
	}
	if cfg.SelectNorm, err = rl.ParseSelectNorm(c.String("select-norm")); err != nil {
		return GRPOOptions{}, stage.FlagError(err, nil)
	}
	cfg.Gamma, cfg.StepWeight, cfg.DropFlat = c.Float64("gamma"), c.Float64("step-weight"), c.Bool("drop-flat-groups")
	cfg.Clip, cfg.KL, cfg.Epochs = c.Float64("clip"), c.Float64("kl"), c.Int("epochs")
	cfg.Minibatch, cfg.SelectCoef = c.Int("minibatch"), c.Float64("select-coef")
	traj, err := stage.Traj(c, true)
	if err != nil {
		return GRPOOptions{}, err
	}
	lo, err := loraFrom(c)
	if err != nil {
		return GRPOOptions{}, err
	}
	return GRPOOptions{LoRA: lo, Init: c.String("init"), Ref: c.String("ref"),
		Traj: traj, Output: c.String("output"), Metrics: c.String("metrics"),
		Advantages: c.String("advantages"), Seed: c.Int64("seed"), Config: cfg,
		WeightDecay: c.Float64("weight-decay"), Device: c.String("device"), OffPolicy: c.Bool("off-policy")}, nil
}

// ParseCredits reads --credit and --step-credit (step "" when the flag was
// not given) as rl.ParseCredits does, naming the flags in its errors.
func ParseCredits(credit, step string) (rl.Credit, rl.StepCredit, error) {
	c, s, err := rl.ParseCredits(credit, step)
	var conflict *rl.CreditConflict
	if errors.As(err, &conflict) {
		return c, s, command.Usagef("--credit gigpo is broadcast with --step-credit gigpo; it conflicts with --step-credit %s: leave --step-credit out, or give --credit broadcast", conflict.Step)
	}
	return c, s, stage.FlagError(err, nil)
}

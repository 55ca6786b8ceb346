package learn

import (
	"math"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/rl"
	"github.com/pats-rl/pats/lib/stage"
)

// The messages of the failures learn's subcommands share, one each.
var (
	errOutputRequired = command.Usagef("-o is required (the checkpoint folder to write)")
	errRefRequired    = command.Usagef("--ref is required when --kl is not 0 (a LoRA adapter's reference is its base: give --lora-rank, or an adapter --init)")
)

// Check is learn sft's checker, run before any file is read or model
// loaded (RunSFT): the required inputs first, then every range.
func (f SFTOptions) Check() error {
	switch {
	case f.Output == "":
		return errOutputRequired
	case f.Init == "":
		return command.Usagef("--init is required: tiny, small or a checkpoint folder")
	case len(f.Demos) == 0:
		return stage.ErrNoTraj
	}
	if err := checkOptim(f.Config.Optim); err != nil {
		return err
	}
	if err := checkTraining(f.Config.Epochs, f.WeightDecay); err != nil {
		return err
	}
	if f.Config.BatchTokens < 1 {
		return command.Usagef("--batch-tokens must be at least 1, got %d", f.Config.BatchTokens)
	}
	return f.LoRA.check()
}

// Check is learn grpo's checker, run before any file is read or model
// loaded (RunGRPO): the required inputs first (--ref's included: the KL
// term needs a reference unless the policy is a LoRA adapter, whose
// reference is its base), then every range.
func (f GRPOOptions) Check() error {
	c := f.Config
	switch {
	case f.Output == "":
		return errOutputRequired
	case f.Init == "":
		return command.Usagef("--init is required: the checkpoint folder of the policy that made the trajectories")
	case f.Init == "tiny" || f.Init == "small":
		return command.Usagef("--init must be a checkpoint folder (the policy that made the trajectories)")
	case len(f.Traj) == 0:
		return stage.ErrNoTraj
	}
	// The LoRA options before --ref: whether --ref is needed depends on them.
	if err := f.LoRA.check(); err != nil {
		return err
	}
	if c.KL != 0 && f.Ref == "" && f.LoRA.Rank == 0 && !model.IsAdapter(f.Init) {
		return errRefRequired
	}
	if err := checkOptim(c.Optim); err != nil {
		return err
	}
	if err := checkTraining(c.Epochs, f.WeightDecay); err != nil {
		return err
	}
	switch {
	case c.Minibatch < 0:
		return command.Usagef("--minibatch must not be negative, got %d", c.Minibatch)
	case !(c.Clip > 0) || c.KL < 0 || c.SelectCoef < 0 || notFinite(c.Clip, c.KL, c.SelectCoef):
		return command.Usagef("--clip must be positive, --kl and --select-coef not negative")
	case c.Gamma < 0 || c.Gamma > 1 || c.StepWeight < 0 || notFinite(c.Gamma, c.StepWeight):
		return command.Usagef("--gamma must be in [0, 1] and --step-weight not negative")
	}
	return nil
}

// Check is learn merge's checker, run before the adapter is read
// (RunMerge): the required folders, then --dtype.
func (f MergeOptions) Check() error {
	switch {
	case f.Output == "":
		return errOutputRequired
	case f.Adapter == "":
		return command.Usagef("--adapter is required (a LoRA adapter checkpoint folder)")
	}
	if _, ok := mergeDTypes[f.DType]; !ok {
		return command.Usagef("--dtype %q: want f32 or bf16", f.DType)
	}
	return nil
}

// notFinite reports whether any x is NaN or infinite.
func notFinite(xs ...float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return true
		}
	}
	return false
}

func checkOptim(o rl.OptimConfig) error {
	if !(o.LR > 0) || notFinite(o.LR) {
		return command.Usagef("--lr must be positive, got %v", o.LR)
	}
	if !(o.Warmup >= 0 && o.Warmup <= 1) {
		return command.Usagef("--warmup must be a share of the steps in [0, 1], got %v", o.Warmup)
	}
	if !(o.MaxGradNorm >= 0) || notFinite(o.MaxGradNorm) {
		return command.Usagef("--max-grad-norm must be a finite number, 0 or more (0: no clipping), got %v", o.MaxGradNorm)
	}
	if !(o.MinLRRatio >= 0 && o.MinLRRatio <= 1) {
		return command.Usagef("--min-lr-ratio must be a share of --lr in [0, 1], got %v", o.MinLRRatio)
	}
	return nil
}

// MaxEpochs bounds --epochs, so that a mistyped count is refused before
// the schedule for it is built.
const MaxEpochs = 100000

func checkTraining(epochs int, weightDecay float64) error {
	if epochs < 1 || epochs > MaxEpochs {
		return command.Usagef("--epochs must be from 1 to %d, got %d", MaxEpochs, epochs)
	}
	if !(weightDecay >= 0 && weightDecay <= model.MaxWeightDecay) {
		return command.Usagef("--weight-decay must be a number from 0 to %v, got %v", model.MaxWeightDecay, weightDecay)
	}
	return nil
}

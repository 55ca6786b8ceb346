package learn

import (
	"context"
	"fmt"
	"strconv"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/output"
	"github.com/pats-rl/pats/lib/rl"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/stage/deviceflag"
	"github.com/pats-rl/pats/lib/table"
)

// GRPOOptions are learn grpo's options.
type GRPOOptions struct {
	Init        string   // checkpoint folder of the policy that rolled out
	Ref         string   // reference checkpoint for the KL term
	Traj        []string // trajectory files
	Output      string
	Metrics     string
	Advantages  string // optional per-token advantages file
	Seed        int64
	Config      rl.GRPOConfig
	WeightDecay float64
	Device      string // cpu (or "") or cuda
	// OffPolicy trains on trajectories that another checkpoint than --init
	// played (their policy_hash differs from its weights'); recorded in
	// the metrics' metadata.
	OffPolicy bool
	LoRA      LoRAOptions
}

// RunGRPO runs learn grpo: the options checked (Check), the policy and
// its trajectories opened and checked together (grpoInputs), the
// reference's log-probabilities (reference), then the update and the
// checkpoint, metrics and advantages written as one unit.
func RunGRPO(ctx context.Context, f GRPOOptions, std stage.Streams) error {
	if err := f.Check(); err != nil {
		return err
	}
	if err := output.Check(append([]string{f.Init, f.Ref}, f.Traj...), output.Checkpoint("-o", f.Output),
		output.File("--metrics", f.Metrics), output.File("--advantages", f.Advantages)); err != nil {
		return err
	}
	c := f.Config
	dev, err := deviceflag.Open(f.Device)
	if err != nil {
		return err
	}
	g, err := f.inputs(std)
	if err != nil {
		return err
	}
	in := g.in
	prep, advRows := rl.Credits(g.rows, c)
	rl.CutTails(prep, in.Model.Cfg.MaxPositionEmbeddings)
	if err := f.reference(ctx, g, prep, dev.Attach); err != nil {
		return err
	}
	// The advisory comes after every check of the inputs (--ref's
	// included), so that a refused run prints its one line only.
	if groups, flat := flatGroups(g.rows); flat == groups && std.Stderr != nil && len(prep) > 0 {
		fmt.Fprintf(std.Stderr, "learn grpo: every group's rewards are equal (%d of %d groups): the advantages are all 0 and only the KL term moves the policy\n", flat, groups)
	}
	opt := in.Opt
	if opt == nil {
		opt = model.NewAdamW(in.Model, adamCfg(f.WeightDecay))
	}
	c.Seed = f.Seed
	metrics := []table.TrainMetrics{}
	if len(prep) > 0 {
		if !in.Model.OnDevice() { // a LoRA policy is attached already, for its reference
			if err := dev.Attach(in.Model); err != nil {
				return err
			}
		}
		if err := recomputeServed(ctx, in, prep, g.extra, std); err != nil {
			return err
		}
		if metrics, err = rl.TrainGRPO(ctx, in.Model, opt, prep, c); err != nil {
			return err
		}
	} else if std.Stderr != nil {
		fmt.Fprintln(std.Stderr, "learn grpo: every group's rewards are equal and --drop-flat-groups leaves nothing to train on; the checkpoint is written unchanged")
	}
	base, baseHash := describeBase(in.Model)
	return finish(f.Output, f.Metrics, f.Advantages, metrics, advRows, in, opt, g.hashes, f.Seed, g.extra,
		Provenance{Stage: "learn grpo", Parent: f.Init, ParentHash: in.Hash, Ref: f.Ref, Base: base, BaseHash: baseHash})
}

// grpoInputs are the policy learn grpo trains and the trajectories it
// trains on, checked against each other: the rows, the path each came
// from, the inputs' content hashes, the run's metadata so far and the
// scoring temperature of the rule the rows were sampled under.
type grpoInputs struct {
	in     *Init
	rows   []table.Trajectory
	from   []string
	hashes map[string]string
	extra  map[string]string
	temp   float64
}

// inputs opens --init (with its LoRA set-up), reads the trajectories and
// checks them against it: groups, one sampling rule, the policy that
// played them (unless --off-policy), a device that can score them, the
// steps and the credit's columns.
func (f GRPOOptions) inputs(std stage.Streams) (grpoInputs, error) {
	c := f.Config
	var g grpoInputs
	in, err := loadInit(f.Init, f.Seed, AsInit, f.LoRA)
	if err != nil {
		return g, err
	}
	if err := applyLoRA(in, f.Init, f.LoRA, f.Seed); err != nil {
		return g, err
	}
	if err := checkBaseOutput(in, f.Output); err != nil {
		return g, err
	}
	rows, from, hashes, err := readTrajectories(std.Stdin, f.Traj, in)
	if err != nil {
		return g, err
	}
	if err := rl.CheckGRPO(rows, from); err != nil {
		return g, err
	}
	sampling, err := rl.CheckSampling(rows, from)
	if err != nil {
		return g, err
	}
	extra := map[string]string{"sampling": sampling.String()}
	if f.OffPolicy {
		extra["off_policy"] = "true"
	} else if i := rl.OtherPolicy(rows, in.Hash); i >= 0 {
		return g, &table.InputError{Path: from[i], Problem: fmt.Sprintf("played by %s (weights %s), but --init %s has weights %s: pass the checkpoint that played, or --off-policy to train on them anyway",
			rows[i].Policy, rows[i].PolicyHash, f.Init, in.Hash)}
	}
	temp := sampling.ScoringTemperature()
	if err := deviceScores(f.Device, from[0], temp); err != nil {
		return g, err
	}
	if err := in.Model.SetScoringTemperature(temp); err != nil {
		return g, err
	}
	if c.Step != rl.StepNone {
		if err := rl.CheckSteps(rows, from); err != nil {
			return g, err
		}
	}
	if err := rl.CheckCredit(rows, from, c); err != nil {
		return g, err
	}
	if in.Hash != "" {
		hashes[f.Init] = in.Hash
	}
	return grpoInputs{in: in, rows: rows, from: from, hashes: hashes, extra: extra, temp: temp}, nil
}

// reference sets the reference log-probabilities of the KL term on prep
// (none when --kl is 0): under LoRA the base with the adapter off (issue
// 60), scored after attach puts the policy on the device the update
// runs on; else --ref, which must share --init's tokenizer and
// vocabulary, scored on the device (attach) and detached before the
// policy is attached.
func (f GRPOOptions) reference(ctx context.Context, g grpoInputs, prep []rl.Prepared, attach func(*model.Model) error) error {
	if f.Config.KL == 0 {
		return nil
	}
	in := g.in
	if ad := in.Model.Adapter(); ad != nil && (f.Ref == "" || refIsBase(f.Ref, ad)) {
		if f.Ref != "" {
			g.hashes[f.Ref] = ad.BaseHash
		}
		g.extra["reference"] = "the base of the LoRA adapter (adapter off)"
		// On the device the base the update reads is BF16: the reference is
		// scored there too, so that step 0's KL is 0 (and a 7B base is not
		// scored on the CPU). The policy stays attached for the update.
		if len(prep) > 0 {
			if err := attach(in.Model); err != nil {
				return err
			}
		}
		ad.SetEnabled(false)
		err := rl.RefLogProbs(ctx, in.Model, prep)
		ad.SetEnabled(true)
		return err
	}
	if f.Ref == "" { // Check refuses it but for an --init that is no adapter once read
		return errRefRequired
	}
	ref, err := LoadInit(f.Ref, f.Seed, AsRef)
	if err != nil {
		return err
	}
	if ref.Tok.Hash() != in.Tok.Hash() {
		return command.Usagef("--ref %s: tokenizer differs from --init %s", f.Ref, f.Init)
	}
	if ref.Model.Cfg.VocabSize != in.Model.Cfg.VocabSize {
		return command.Usagef("--ref %s: vocabulary %d differs from --init's %d", f.Ref, ref.Model.Cfg.VocabSize, in.Model.Cfg.VocabSize)
	}
	if ref.Hash != "" {
		g.hashes[f.Ref] = ref.Hash
	}
	if err := ref.Model.SetScoringTemperature(g.temp); err != nil {
		return err
	}
	if len(prep) == 0 {
		return nil
	}
	if err := attach(ref.Model); err != nil {
		return err
	}
	if err := rl.RefLogProbs(ctx, ref.Model, prep); err != nil {
		return err
	}
	return ref.Model.Detach() // its device memory, before the policy's
}

// recomputeServed recomputes the behaviour log-probabilities of the
// episodes an inference server played (rl.RecomputeBehaviour) with the
// policy checkpoint before the first step, says so on stderr and records
// it, with how far the server's were, in the run's metadata (extra).
func recomputeServed(ctx context.Context, in *Init, prep []rl.Prepared, extra map[string]string, std stage.Streams) error {
	drift, err := rl.RecomputeBehaviour(ctx, in.Model, prep)
	if err != nil || drift.Rows == 0 {
		return err
	}
	extra["behaviour_logprobs"] = "recomputed with --init (served trajectories)"
	extra["served_logprob_diff_mean"] = strconv.FormatFloat(drift.Mean, 'g', 6, 64)
	extra["served_logprob_diff_max"] = strconv.FormatFloat(drift.Max, 'g', 6, 64)
	extra["served_logprob_tokens"] = strconv.Itoa(drift.Tokens)
	if std.Stderr != nil {
		fmt.Fprintf(std.Stderr, "learn grpo: %d episodes were played by an inference server: their behaviour log-probabilities were recomputed with --init before the first step (%s)\n", drift.Rows, drift)
	}
	return nil
}

// flatGroups counts the groups of rows and those whose rewards are all
// equal.
func flatGroups(rows []table.Trajectory) (groups, flat int) {
	first := map[string]float64{}
	varied := map[string]bool{}
	for i := range rows {
		g := rows[i].GroupID
		if r, ok := first[g]; !ok {
			first[g] = rows[i].Reward
		} else if r != rows[i].Reward {
			varied[g] = true
		}
	}
	return len(first), len(first) - len(varied)
}

// deviceScores refuses, with one line (exit 2), an update on a device of
// trajectories sampled at a temperature other than 1: the CUDA library
// scores log softmax(logits) only, so it cannot reproduce the tempered
// rule the rollout recorded (model.Rule), and the ratio would be off. file
// names the trajectories; temp is their scoring temperature.
func deviceScores(device, file string, temp float64) error {
	if temp == 1 || deviceflag.IsCPU(device) {
		return nil
	}
	return command.Usagef("%s was sampled at temperature %g; learn grpo --device %s scores at temperature 1 only: learn on cpu, or roll out with --temperature 1", file, temp, device)
}

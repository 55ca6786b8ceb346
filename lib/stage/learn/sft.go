package learn

import (
	"context"

	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/output"
	"github.com/pats-rl/pats/lib/rl"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/stage/deviceflag"
)

// SFTOptions are learn sft's options.
type SFTOptions struct {
	Init        string   // tiny, small or a checkpoint folder
	Demos       []string // trajectory files
	Output      string   // checkpoint folder
	Metrics     string   // optional metrics file
	Seed        int64
	Config      rl.SFTConfig
	WeightDecay float64
	Device      string // cpu (or "") or cuda
	LoRA        LoRAOptions
}

// RunSFT runs learn sft: it writes the metrics (when asked) and then
// the checkpoint folder, each atomically; on any error neither is written.
func RunSFT(ctx context.Context, f SFTOptions, std stage.Streams) error {
	if err := f.Check(); err != nil {
		return err
	}
	if err := output.Check(append([]string{f.Init}, f.Demos...), output.Checkpoint("-o", f.Output), output.File("--metrics", f.Metrics)); err != nil {
		return err
	}
	dev, err := deviceflag.Open(f.Device)
	if err != nil {
		return err
	}
	in, err := loadInit(f.Init, f.Seed, AsInit, f.LoRA)
	if err != nil {
		return err
	}
	if err := applyLoRA(in, f.Init, f.LoRA, f.Seed); err != nil {
		return err
	}
	if err := checkBaseOutput(in, f.Output); err != nil {
		return err
	}
	rows, _, hashes, err := readTrajectories(std.Stdin, f.Demos, in)
	if err != nil {
		return err
	}
	if err := dev.Attach(in.Model); err != nil {
		return err
	}
	opt := model.NewAdamW(in.Model, adamCfg(f.WeightDecay))
	cfg := f.Config
	cfg.Seed = f.Seed
	for i := range rows {
		rows[i] = *rl.CutTail(&rows[i], in.Model.Cfg.MaxPositionEmbeddings)
	}
	metrics, err := rl.TrainSFT(ctx, in.Model, opt, rows, cfg)
	if err != nil {
		return err
	}
	if in.Hash != "" {
		hashes[f.Init] = in.Hash
	}
	base, baseHash := describeBase(in.Model)
	return finish(f.Output, f.Metrics, "", metrics, nil, in, opt, hashes, f.Seed, nil, Provenance{Stage: "learn sft", Parent: f.Init, ParentHash: in.Hash, Base: base, BaseHash: baseHash})
}

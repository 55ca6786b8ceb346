package learn

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/model/safetensors"
	"github.com/pats-rl/pats/lib/output"
	"github.com/pats-rl/pats/lib/stage"
)

// MergeOptions are learn merge's options.
type MergeOptions struct {
	Adapter string // adapter checkpoint folder
	Output  string // full checkpoint folder to write
	DType   string // f32 or bf16
}

// mergeDTypes are the weights --dtype names.
var mergeDTypes = map[string]safetensors.DType{"f32": safetensors.F32, "bf16": safetensors.BF16}

// MergeFlags declares learn merge's options.
func MergeFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "adapter", Required: true, Usage: "LoRA adapter checkpoint folder (adapter_config.json; its base is found from it)"},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Required: true, Usage: "full checkpoint folder to write (replaced atomically)"},
		&cli.StringFlag{Name: "dtype", Value: "f32", Usage: "weights of the written checkpoint: f32 or bf16"},
	}
}

// MergeFrom reads learn merge's options.
func MergeFrom(c *cli.Context) (MergeOptions, error) {
	return MergeOptions{Adapter: c.String("adapter"), Output: c.String("output"), DType: c.String("dtype")}, nil
}

// RunMerge runs learn merge, the options checked first (Check): the
// adapter's base with the adapter folded into its weights
// (model.MergeAdapter), written as a full Hugging Face
// checkpoint with the adapter's tokenizer and carried files and a
// provenance.json naming the adapter and its base. No optimizer state is
// written (the adapter's does not apply to the merged weights).
func RunMerge(_ context.Context, f MergeOptions, _ stage.Streams) error {
	if err := f.Check(); err != nil {
		return err
	}
	dt := mergeDTypes[f.DType]
	if err := output.Check([]string{f.Adapter}, output.Checkpoint("-o", f.Output)); err != nil {
		return err
	}
	if !model.IsAdapter(f.Adapter) {
		return command.Usagef("--adapter %s: not a LoRA adapter folder (no %s)", f.Adapter, model.AdapterConfigFile)
	}
	in, err := LoadInit(f.Adapter, 0, AsAdapter)
	if err != nil {
		return err
	}
	if err := checkBaseOutput(in, f.Output); err != nil {
		return err
	}
	base, baseHash := describeBase(in.Model)
	if err := in.Model.MergeAdapter(); err != nil {
		return err
	}
	prov := Provenance{Stage: "learn merge", Parent: f.Adapter, ParentHash: in.Hash, Base: base, BaseHash: baseHash}
	if err := finishDType(f.Output, in, prov, dt); err != nil {
		return fmt.Errorf("learn merge: %w", err)
	}
	return nil
}

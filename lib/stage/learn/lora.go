package learn

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/model"
)

// LoRAOptions are the LoRA and memory options learn sft and learn grpo
// share.
type LoRAOptions struct {
	// Rank > 0 trains a LoRA adapter of that rank on a frozen --init;
	// 0 trains every weight (or, with an adapter checkpoint as --init,
	// continues its adapter).
	Rank int
	// Alpha scales the adapter by Alpha/Rank; 0 means 2*Rank.
	Alpha float64
	// Targets are the projections (model.LoRAModules names); nil: all.
	Targets []string
	// Recompute keeps each layer's input only and recomputes the layer
	// in the backward (model.SetRecompute).
	Recompute bool
}

// DefaultLoRATargets is --lora-targets' default.
const DefaultLoRATargets = "q,k,v,o,gate,up,down"

// loraFlags declares the LoRA and recompute options.
func loraFlags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "lora-rank", Usage: "train a LoRA adapter of this rank on the frozen --init (0: train every weight); an adapter checkpoint as --init continues its adapter"},
		&cli.Float64Flag{Name: "lora-alpha", Usage: "LoRA scale numerator: the adapter is scaled by alpha/rank (0: twice the rank)"},
		&cli.StringFlag{Name: "lora-targets", Value: DefaultLoRATargets, Usage: "projections that get an adapter: some of q, k, v, o, gate, up, down"},
		&cli.BoolFlag{Name: "recompute", Usage: "keep each layer's input only and recompute the layer in the backward (less memory, one more forward of each layer)"},
	}
}

// loraFrom reads the LoRA options.
func loraFrom(c *cli.Context) (LoRAOptions, error) {
	o := LoRAOptions{Rank: c.Int("lora-rank"), Alpha: c.Float64("lora-alpha"), Recompute: c.Bool("recompute")}
	if c.IsSet("lora-targets") || o.Rank > 0 {
		t, err := model.ParseLoRATargets(c.String("lora-targets"))
		if err != nil {
			return o, command.Usagef("--lora-targets: %v", err)
		}
		o.Targets = t
	}
	return o, nil
}

// config is the adapter configuration o asks for.
func (o LoRAOptions) config() model.LoRAConfig {
	a := o.Alpha
	if a == 0 {
		a = 2 * float64(o.Rank)
	}
	t := o.Targets
	if t == nil {
		t = slices.Clone(model.LoRAModules)
	}
	return model.LoRAConfig{Rank: o.Rank, Alpha: a, Targets: t}
}

// check refuses LoRA options that cannot apply.
func (o LoRAOptions) check() error {
	if o.Rank < 0 {
		return command.Usagef("--lora-rank must not be negative, got %d", o.Rank)
	}
	if o.Alpha < 0 || notFinite(o.Alpha) {
		return command.Usagef("--lora-alpha must be a positive number (0: twice the rank), got %v", o.Alpha)
	}
	if o.Rank == 0 && (o.Alpha != 0 || o.Targets != nil) {
		return command.Usagef("--lora-alpha and --lora-targets need --lora-rank")
	}
	return nil
}

// applyLoRA sets up the training of in's model as o says: an adapter
// checkpoint continues its adapter (options given beside it must match
// it); --lora-rank over a full checkpoint adds a fresh adapter (seeded by
// seed) on the frozen base and drops the base's optimizer state; and
// --recompute is switched on.
func applyLoRA(in *Init, init string, o LoRAOptions, seed int64) error {
	in.Model.SetRecompute(o.Recompute)
	if ad := in.Model.Adapter(); ad != nil {
		if o.Rank == 0 {
			return nil
		}
		want := o.config()
		if want.Rank != ad.Cfg.Rank || want.Alpha != ad.Cfg.Alpha || !slices.Equal(want.Targets, ad.Cfg.Targets) {
			return command.Usagef("--init %s is a LoRA adapter of rank %d, alpha %g, targets %s: give the same --lora-* options or leave them out",
				init, ad.Cfg.Rank, ad.Cfg.Alpha, strings.Join(ad.Cfg.Targets, ","))
		}
		return nil
	}
	if o.Rank == 0 {
		return nil
	}
	if in.Hash == "" {
		return command.Usagef("--lora-rank trains an adapter on a frozen base: --init must be a checkpoint folder, not %s", init)
	}
	ad, err := in.Model.AddAdapter(o.config(), uint64(seed))
	if err != nil {
		return command.Usagef("--lora-rank: %v", err)
	}
	abs, err := filepath.Abs(init)
	if err != nil {
		return err
	}
	ad.Base, ad.BaseHash = abs, in.Hash
	in.Opt = nil // the base's moments, if any: the base is frozen
	return nil
}

// loraMemoryFactor is how many times its weights' memory loading init
// for training takes: 4 for full training (weights, gradients, two
// moments), about 1 under LoRA (the base; the adapter is small).
func loraMemoryFactor(o LoRAOptions) (float64, string) {
	if o.Rank > 0 {
		return 1.1, "to train a LoRA adapter on it (the frozen weights, and the adapter)"
	}
	return 4, "to train (weights, gradients, two optimizer moments)"
}

// refIsBase says whether ref, the reference checkpoint, is the base of
// adapter ad (same weights), so that the base with the adapter off can
// stand for it.
func refIsBase(ref string, ad *model.Adapter) bool {
	h, err := model.WeightsHash(ref)
	return err == nil && h == ad.BaseHash
}

// describeBase is the provenance's base of an adapter checkpoint.
func describeBase(m *model.Model) (string, string) {
	if ad := m.Adapter(); ad != nil {
		return ad.Base, ad.BaseHash
	}
	return "", ""
}

// checkBaseOutput refuses an output folder that is the base of in's
// adapter: writing there would replace the frozen weights the adapter
// (and every adapter trained on them) depends on.
func checkBaseOutput(in *Init, out string) error {
	ad := in.Model.Adapter()
	if ad == nil || ad.Base == "" {
		return nil
	}
	a, err1 := filepath.Abs(out)
	b, err2 := filepath.Abs(ad.Base)
	if err1 == nil && err2 == nil && a == b {
		return command.Usagef("-o %s is the base checkpoint of the LoRA adapter: name another folder", out)
	}
	return nil
}

package learn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/model/safetensors"
	"github.com/pats-rl/pats/lib/output"
	"github.com/pats-rl/pats/lib/rl"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/stage/deviceflag"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// Init is a starting point for training: a model, its tokenizer (and the
// tokenizer.json bytes a checkpoint written from it carries) and, when the
// checkpoint had one, the optimizer state.
type Init struct {
	Model   *model.Model
	Tok     tokenizer.Tokenizer
	TokJSON []byte
	Opt     *model.AdamW // nil when there is none
	Hash    string       // content hash of the weights (provenance); "" for a fresh model
	// Files are the checkpoint's other tokenizer and generation files
	// (CarriedFiles), written unchanged into every checkpoint made from it.
	Files map[string][]byte
}

// ProvenanceFile is the file of a checkpoint folder that says how it was
// made (Provenance).
const ProvenanceFile = "provenance.json"

// Provenance is what a checkpoint folder's provenance.json records: the
// command that wrote it, the content hashes of its inputs, the checkpoint
// it was trained from and the toolkit, time and host (as every output
// file's metadata, table.Stamp). It is written fresh with every
// checkpoint, never carried over.
type Provenance struct {
	Stage      string            `json:"stage"`                 // learn sft or learn grpo
	Command    string            `json:"command"`               // the command line, shell-quoted
	Seed       int64             `json:"seed"`                  // its seed
	Parent     string            `json:"parent"`                // --init: the checkpoint trained from, or tiny/small for a fresh model
	ParentHash string            `json:"parent_hash,omitempty"` // the content hash of the parent's weights
	Ref        string            `json:"ref,omitempty"`         // learn grpo's --ref
	Base       string            `json:"base,omitempty"`        // an adapter checkpoint's base folder (LoRA)
	BaseHash   string            `json:"base_hash,omitempty"`   // and the content hash of its weights
	Inputs     map[string]string `json:"inputs"`                // input path -> content hash (table.HashFile)
	Toolkit    string            `json:"toolkit_version,omitempty"`
	Commit     string            `json:"toolkit_commit,omitempty"`
	Time       string            `json:"time,omitempty"`
	Host       string            `json:"host,omitempty"`
}

// CarriedFiles are the files of a Hugging Face checkpoint that training
// does not change and that a checkpoint written from it carries byte for
// byte (tokenizer.json is carried too).
var CarriedFiles = []string{"tokenizer_config.json", "special_tokens_map.json", "added_tokens.json",
	"vocab.json", "merges.txt", "chat_template.jinja", "generation_config.json", "agent.json"}

// LoadInit opens "tiny" or "small" (a fresh model of that size over the
// built-in tokenizer, initialised from seed) or a checkpoint folder with its
// tokenizer.json and optimizer state (not read for flag "ref", the
// reference model, which only scores). flag names the option in errors.
func LoadInit(flag, init string, seed int64) (*Init, error) {
	return loadInit(flag, init, seed, LoRAOptions{})
}

// loadInit is LoadInit for training under lo (issue 60): an --init
// that gets a fresh adapter has its memory checked for LoRA and its
// optimizer state (for the base's weights) left unread.
func loadInit(flag, init string, seed int64, lo LoRAOptions) (*Init, error) {
	switch init {
	case "":
		return nil, command.Usagef("--%s is required: tiny, small or a checkpoint folder", flag)
	case "tiny", "small":
		tok, err := tokenizer.ShippedWordLevel()
		if err != nil {
			return nil, err
		}
		cfg := model.Tiny(tok.VocabSize())
		if init == "small" {
			cfg = model.Small(tok.VocabSize())
		}
		m, err := model.New(cfg, uint64(seed))
		if err != nil {
			return nil, err
		}
		js, err := tok.JSON()
		if err != nil {
			return nil, err
		}
		return &Init{Model: m, Tok: tok, TokJSON: js}, nil
	}
	output.Recover(init) // a replacement killed between its renames
	if st, err := os.Stat(init); err != nil || !st.IsDir() {
		return nil, command.Usagef("--%s %s: not tiny, small or a checkpoint folder", flag, init)
	}
	f, err := model.OpenFolder(init)
	if err != nil {
		return nil, command.Usagef("--%s %s: %v", flag, init, oneLine(err))
	}
	factor, what := loraMemoryFactor(lo)
	if f.Model.Adapter() != nil {
		factor, what = loraMemoryFactor(LoRAOptions{Rank: 1})
	}
	if err := f.Model.Cfg.CheckMemory(factor, what); err != nil && flag == "init" {
		return nil, command.Usagef("--%s %s: %v", flag, init, oneLine(err))
	}
	// The reference model of the KL term only scores: its optimizer state
	// (8 bytes a parameter) is not read.
	var opt *model.AdamW
	if flag != "ref" && (lo.Rank == 0 || f.Model.Adapter() != nil) {
		if opt, err = model.LoadAdamW(init, f.Model); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, command.Usagef("--%s %s: optimizer state: %v", flag, init, oneLine(err))
		}
	}
	in := &Init{Model: f.Model, Tok: f.Tok, TokJSON: f.TokJSON, Opt: opt, Files: map[string][]byte{}}
	for _, name := range CarriedFiles {
		b, err := output.ReadFile(filepath.Join(init, name), output.MaxTextBytes)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, command.Usagef("--%s %s: %v", flag, init, oneLine(err))
		}
		in.Files[name] = b
	}
	in.Hash, _ = model.WeightsHash(init)
	return in, nil
}

func oneLine(err error) string {
	s := err.Error()
	out := make([]rune, 0, len(s))
	for _, r := range s {
		if r == '\n' || r == '\r' {
			r = ' '
		}
		out = append(out, r)
	}
	return string(out)
}

// readTrajectories reads each path, checks its token columns against the
// model and tokenizer, and returns the rows with the path each came from.
func readTrajectories(stdin io.Reader, paths []string, in *Init) ([]table.Trajectory, []string, map[string]string, error) {
	var rows []table.Trajectory
	var from []string
	hashes := map[string]string{}
	if err := table.Distinct(stdin, paths...); err != nil {
		return nil, nil, nil, err
	}
	for _, p := range paths {
		r, _, err := table.ReadFilesFrom[table.Trajectory](stdin, p)
		if err != nil {
			return nil, nil, nil, err
		}
		if len(r) == 0 {
			return nil, nil, nil, &table.InputError{Path: p, Problem: "no trajectories"}
		}
		if err := rl.CheckTokens(p, r, in.Tok.Hash(), in.Model.Cfg.VocabSize, in.Model.Cfg.MaxPositionEmbeddings); err != nil {
			return nil, nil, nil, err
		}
		if h, err := table.HashFile(p); err == nil {
			hashes[p] = h
		}
		rows = append(rows, r...)
		for range r {
			from = append(from, p)
		}
	}
	return rows, from, hashes, nil
}

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
	in, err := loadInit("init", f.Init, f.Seed, f.LoRA)
	if err != nil {
		return err
	}
	if err := applyLoRA(in, "init", f.Init, f.LoRA, f.Seed, f.Device); err != nil {
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

// RunGRPO runs learn grpo.
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
	in, err := loadInit("init", f.Init, f.Seed, f.LoRA)
	if err != nil {
		return err
	}
	if err := applyLoRA(in, "init", f.Init, f.LoRA, f.Seed, f.Device); err != nil {
		return err
	}
	if err := checkBaseOutput(in, f.Output); err != nil {
		return err
	}
	rows, from, hashes, err := readTrajectories(std.Stdin, f.Traj, in)
	if err != nil {
		return err
	}
	if err := rl.CheckGRPO(rows, from); err != nil {
		return err
	}
	sampling, err := rl.CheckSampling(rows, from)
	if err != nil {
		return err
	}
	extra := map[string]string{"sampling": sampling.String()}
	if f.OffPolicy {
		extra["off_policy"] = "true"
	} else if i := rl.OtherPolicy(rows, in.Hash); i >= 0 {
		return &table.InputError{Path: from[i], Problem: fmt.Sprintf("played by %s (weights %s), but --init %s has weights %s: pass the checkpoint that played, or --off-policy to train on them anyway",
			rows[i].Policy, rows[i].PolicyHash, f.Init, in.Hash)}
	}
	temp := sampling.ScoringTemperature()
	if err := deviceScores(f.Device, from[0], temp); err != nil {
		return err
	}
	if err := in.Model.SetScoringTemperature(temp); err != nil {
		return err
	}
	if c.Step != rl.StepNone {
		if err := rl.CheckSteps(rows, from); err != nil {
			return err
		}
	}
	if err := rl.CheckCredit(rows, from, c); err != nil {
		return err
	}
	if in.Hash != "" {
		hashes[f.Init] = in.Hash
	}
	prep, advRows := rl.Credits(rows, c)
	rl.CutTails(prep, in.Model.Cfg.MaxPositionEmbeddings)
	if ad := in.Model.Adapter(); c.KL != 0 && ad != nil && (f.Ref == "" || refIsBase(f.Ref, ad)) {
		// issue 60: under LoRA the reference is the base, the adapter off.
		if f.Ref != "" {
			hashes[f.Ref] = ad.BaseHash
		}
		extra["reference"] = "the base of the LoRA adapter (adapter off)"
		ad.SetEnabled(false)
		err := rl.RefLogProbs(ctx, in.Model, prep)
		ad.SetEnabled(true)
		if err != nil {
			return err
		}
	} else if c.KL != 0 {
		if f.Ref == "" { // Check refuses it but for an --init that is no adapter once read
			return errRefRequired
		}
		ref, err := LoadInit("ref", f.Ref, f.Seed)
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
			hashes[f.Ref] = ref.Hash
		}
		if err := ref.Model.SetScoringTemperature(temp); err != nil {
			return err
		}
		if len(prep) > 0 {
			if err := dev.Attach(ref.Model); err != nil {
				return err
			}
			if err := rl.RefLogProbs(ctx, ref.Model, prep); err != nil {
				return err
			}
			if err := ref.Model.Detach(); err != nil { // its device memory, before the policy's
				return err
			}
		}
	}
	// The advisory comes after every check of the inputs (--ref's
	// included), so that a refused run prints its one line only.
	if groups, flat := flatGroups(rows); flat == groups && std.Stderr != nil && len(prep) > 0 {
		fmt.Fprintf(std.Stderr, "learn grpo: every group's rewards are equal (%d of %d groups): the advantages are all 0 and only the KL term moves the policy\n", flat, groups)
	}
	opt := in.Opt
	if opt == nil {
		opt = model.NewAdamW(in.Model, adamCfg(f.WeightDecay))
	}
	c.Seed = f.Seed
	metrics := []table.TrainMetrics{}
	if len(prep) > 0 {
		if err := dev.Attach(in.Model); err != nil {
			return err
		}
		if err := recomputeServed(ctx, in, prep, extra, std); err != nil {
			return err
		}
		if metrics, err = rl.TrainGRPO(ctx, in.Model, opt, prep, c); err != nil {
			return err
		}
	} else if std.Stderr != nil {
		fmt.Fprintln(std.Stderr, "learn grpo: every group's rewards are equal and --drop-flat-groups leaves nothing to train on; the checkpoint is written unchanged")
	}
	base, baseHash := describeBase(in.Model)
	return finish(f.Output, f.Metrics, f.Advantages, metrics, advRows, in, opt, hashes, f.Seed, extra,
		Provenance{Stage: "learn grpo", Parent: f.Init, ParentHash: in.Hash, Ref: f.Ref, Base: base, BaseHash: baseHash})
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

func adamCfg(wd float64) model.AdamWConfig {
	c := model.DefaultAdamW()
	c.WeightDecay = wd
	return c
}

// finish writes the checkpoint, the metrics and the advantages as one
// unit (lib/output): all complete in temporaries first, then renamed into
// place, the checkpoint first; on any error none of them is written.
func finish(out, metricsPath, advPath string, metrics []table.TrainMetrics, adv []table.TokenAdvantages,
	in *Init, opt *model.AdamW, inputs map[string]string, seed int64, extra map[string]string, prov Provenance) error {
	return finishAs(out, metricsPath, advPath, metrics, adv, in, opt, inputs, seed, extra, prov, "")
}

// finishDType writes a checkpoint alone (no optimizer, metrics or
// advantages) with weights in dtype: learn merge's output.
func finishDType(out string, in *Init, prov Provenance, dtype safetensors.DType) error {
	inputs := map[string]string{prov.Parent: prov.ParentHash}
	return finishAs(out, "", "", nil, nil, in, nil, inputs, 0, nil, prov, dtype)
}

// finishAs is finish with the weights' dtype ("" is F32).
func finishAs(out, metricsPath, advPath string, metrics []table.TrainMetrics, adv []table.TokenAdvantages,
	in *Init, opt *model.AdamW, inputs map[string]string, seed int64, extra map[string]string, prov Provenance, dtype safetensors.DType) error {
	meta := func() table.Meta {
		return table.Meta{Command: table.CommandLine(), Seed: seed, Inputs: inputs, Extra: extra}
	}
	var u output.Unit
	defer u.Abort()
	files := map[string][]byte{}
	for k, v := range in.Files {
		files[k] = v
	}
	prov.Command, prov.Seed, prov.Inputs = table.CommandLine(), seed, inputs
	if s := table.CurrentStamp(); s != nil {
		prov.Toolkit, prov.Commit, prov.Time, prov.Host = s.Version, s.Commit, s.Time, s.Host
	}
	b, err := json.MarshalIndent(prov, "", "  ")
	if err != nil {
		return err
	}
	files[ProvenanceFile] = append(b, '\n')
	if err := in.Model.StageSave(&u, out, in.TokJSON, model.SaveOptions{Optimizer: opt, Files: files, DType: dtype}); err != nil {
		return err
	}
	if metricsPath != "" {
		if err := table.Stage(&u, metricsPath, metrics, meta()); err != nil {
			return fmt.Errorf("write %s: %w", metricsPath, err)
		}
	}
	if advPath != "" {
		if err := table.Stage(&u, advPath, adv, meta()); err != nil {
			return fmt.Errorf("write %s: %w", advPath, err)
		}
	}
	return u.Commit()
}

// deviceScores refuses, with one line (exit 2), an update on a device of
// trajectories sampled at a temperature other than 1: the CUDA library
// scores log softmax(logits) only, so it cannot reproduce the tempered
// rule the rollout recorded (model.Rule), and the ratio would be off. file
// names the trajectories; temp is their scoring temperature.
func deviceScores(device, file string, temp float64) error {
	if temp == 1 || device == "" || device == "cpu" {
		return nil
	}
	return command.Usagef("%s was sampled at temperature %g; learn grpo --device %s scores at temperature 1 only: learn on cpu, or roll out with --temperature 1", file, temp, device)
}

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
	return f.LoRA.check(f.Device)
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
	case c.KL != 0 && f.Ref == "" && f.LoRA.Rank == 0 && !model.IsAdapter(f.Init):
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
	return f.LoRA.check(f.Device)
}

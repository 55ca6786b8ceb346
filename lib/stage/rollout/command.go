package rollout

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/pats-rl/pats/lib/agent"
	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/env"
	_ "github.com/pats-rl/pats/lib/env/shipped" // registers the shipped environments
	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/output"
	"github.com/pats-rl/pats/lib/policy"
	"github.com/pats-rl/pats/lib/progress"
	"github.com/pats-rl/pats/lib/rollout"
	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/skill"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/stage/deviceflag"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// Options are the rollout command's options as the user gives them.
type Options struct {
	Env, Split     string
	Tasks, Group   int
	Seed           int64
	Shard          string
	Policy         string // oracle, random, or a checkpoint folder
	Run            string
	Iteration      int
	Skills         bool   // show a skill slate
	SkillsDir      string // a user skill library instead of the built-in one
	Slate          int
	Scaffold       string // snapshot file; empty: no scaffold
	ScaffoldBudget int    // token budget of the rendered scaffold
	PolicyOptions         // sampling and the context (PolicyFlags)
	Batch          int    // episodes decoding together (checkpoint policies)
	TextRead       string // right, random or none: the first read of oracle and random policies with skills on
	Hints          string // none, right, misleading, irrelevant or mixed: rules about each task in the scaffold's place (HintFunc)
	Preread        string // none, right or random: a library skill's body before the first action, without a slate (rollout.PrereadFunc)
	Output         string
	Progress       *progress.Settings // nil: no progress
	InvalidPenalty float64            // reward less per answer without a well-formed action
	Tokenizer      string             // a checkpoint folder whose tokenizer (and chat template) oracle and random policies write with
	Device         string             // where a checkpoint policy runs: cpu (or "") or cuda
}

// DefaultBatch is the number of episodes that decode together when
// Options.Batch is 0 (library use).
const DefaultBatch = rollout.DefaultBatch

// MaxAnswerTokens is the longest answer of the chatml format's default
// (512 tokens), and DeviceObservationRoom the room a device decoder keeps
// for one observation past the context limit: on a device an episode that
// outgrows both ends as at the context limit.
const (
	MaxAnswerTokens       = 512
	DeviceObservationRoom = 1024
)

// EvalTemperature is the sampling temperature of evaluations (evaluate
// --policy, audit reading) where neither the flag nor the checkpoint's
// generation_config.json gives one: the published tables' 0.4 (verl-agent's
// validation setting). Training rollouts sample at 1.
const EvalTemperature = 0.4

// MaxEpisodes bounds the episodes of one rollout run (tasks x group), so
// that a mistyped count is refused before memory for it is allocated.
const MaxEpisodes = 1 << 20

// Check checks the flags as the rollout and evaluate commands give them,
// before any work: on top of what Options checks, the values whose zero
// stands for a default in library use (top-p, max-context, batch, slate)
// must be given in range, since the commands' own defaults are not zero.
func (f Options) Check() error {
	if err := f.PolicyOptions.CheckGiven(); err != nil {
		return err
	}
	switch {
	case f.Batch == 0:
		return command.Usagef("--batch must be at least 1, got 0")
	case (f.Skills || f.SkillsDir != "") && f.Slate == 0:
		return command.Usagef("--slate must be at least 1, got 0")
	}
	return f.check()
}

// check refuses values out of range; a zero top-p, max-context, batch or
// slate means the default (1, no limit, 32, 16).
func (f Options) check() error {
	if err := (rollout.Options{Group: f.Group, History: f.History, Admissible: f.Admissible}).Check(); err != nil {
		return stage.FlagError(err, nil)
	}
	switch {
	case f.Group > MaxEpisodes:
		return command.Usagef("--group %d is more than one run's limit of %d episodes", f.Group, MaxEpisodes)
	case f.Tasks < 0:
		return command.Usagef("--tasks must not be negative, got %d", f.Tasks)
	case f.Iteration < -1 || f.Iteration > math.MaxInt32:
		return command.Usagef("--iteration must be in [-1 (before training), %d], got %d", math.MaxInt32, f.Iteration)
	}
	if err := f.PolicyOptions.check(); err != nil {
		return err
	}
	switch {
	case f.Batch < 0:
		return command.Usagef("--batch must be at least 1, got %d", f.Batch)
	case f.Slate < 0:
		return command.Usagef("--slate must be at least 1, got %d", f.Slate)
	case f.ScaffoldBudget < 0:
		return command.Usagef("--scaffold-budget must not be negative, got %d", f.ScaffoldBudget)
	}
	return nil
}

// WithContext returns the flags with the agent context of a checkpoint
// policy's agent.json (policy.AgentContext) filled in where the user gave
// no flag, and the metadata that records it: agent_context, the settings
// taken from the file, and agent_context_overrides, the flags that
// overrode a setting of the file with another value. Without a checkpoint
// or without the file it returns f and no metadata.
func (f Options) WithContext() (Options, map[string]string, error) {
	if f.Policy == "" || f.Policy == "oracle" || f.Policy == "random" || !policy.IsCheckpoint(f.Policy) {
		return f, nil, nil
	}
	c, err := policy.ReadAgentContext(f.Policy)
	if err != nil {
		return f, nil, command.Usagef("--policy %s: %v", f.Policy, err)
	}
	var took, over []string
	if c.PromptFormat != "" {
		if f.PromptFormat == "" {
			f.PromptFormat = c.PromptFormat
			took = append(took, "prompt_format="+c.PromptFormat)
		} else if f.PromptFormat != c.PromptFormat {
			over = append(over, "--prompt-format "+f.PromptFormat+" (agent.json: "+c.PromptFormat+")")
		}
	}
	if c.History != nil {
		if !f.HistorySet {
			f.History = *c.History
			took = append(took, fmt.Sprintf("history=%d", *c.History))
		} else if f.History != *c.History {
			over = append(over, fmt.Sprintf("--history %d (agent.json: %d)", f.History, *c.History))
		}
	}
	if c.Admissible != "" {
		have := f.Admissible
		if have == "" {
			have = "none"
		}
		if !f.AdmissibleSet {
			f.Admissible = c.Admissible
			took = append(took, "admissible="+c.Admissible)
		} else if have != c.Admissible {
			over = append(over, "--admissible "+have+" (agent.json: "+c.Admissible+")")
		}
	}
	if c.MaxActionTokens != nil {
		if !f.MaxActionTokensSet {
			f.MaxActionTokens = *c.MaxActionTokens
			took = append(took, fmt.Sprintf("max_action_tokens=%d", *c.MaxActionTokens))
		} else if f.MaxActionTokens != *c.MaxActionTokens {
			over = append(over, fmt.Sprintf("--max-action-tokens %d (agent.json: %d)", f.MaxActionTokens, *c.MaxActionTokens))
		}
	}
	if len(took) == 0 && len(over) == 0 {
		return f, nil, nil
	}
	meta := map[string]string{}
	if len(took) > 0 {
		meta["agent_context"] = strings.Join(took, " ")
	}
	if len(over) > 0 {
		meta["agent_context_overrides"] = strings.Join(over, "; ")
	}
	return f, meta, nil
}

// Options resolves the flags: opens the environment, the policy, the
// tokenizer, the skill library and the scaffold, with the checkpoint's
// agent context where no flag gives one (WithContext). Problems with the
// user's values are usage errors.
func (f Options) Resolve() (rollout.Options, error) {
	var o rollout.Options
	f, _, err := f.WithContext()
	if err != nil {
		return o, err
	}
	if err := f.check(); err != nil {
		return o, err
	}
	dev, err := deviceflag.Open(f.Device)
	if err != nil {
		return o, err
	}
	e, err := env.OpenWith(f.Env, env.ExecOptions{StepTimeout: f.StepTimeout})
	if err != nil {
		return o, command.Usagef("%v", err)
	}
	known := false
	for _, s := range e.Splits() {
		known = known || s == f.Split
	}
	if !known {
		return o, command.Usagef("unknown split %q for %s (known: %v)", f.Split, f.Env, e.Splits())
	}
	sh, err := rollout.ParseShard(f.Shard)
	if err != nil {
		return o, stage.FlagError(err, nil)
	}
	if _, err := e.Tasks(f.Split); err != nil {
		return o, command.Usagef("split %s of %s: %v", f.Split, f.Env, err)
	}
	ids, err := rollout.SelectTasks(e, f.Split, f.Tasks, f.Seed, sh)
	if err != nil {
		return o, stage.FlagError(err, nil)
	}
	if n := int64(len(ids)) * int64(f.Group); n > MaxEpisodes {
		return o, command.Usagef("%d tasks x --group %d is %d episodes, more than one run's limit of %d: shard the run (--shard)", len(ids), f.Group, n, MaxEpisodes)
	}
	o = rollout.Options{Env: e, Split: f.Split, Tasks: f.Tasks, Group: f.Group, Seed: f.Seed, Shard: sh,
		Run: f.Run, Iteration: f.Iteration, MaxContext: f.MaxContext, History: f.History, Admissible: f.Admissible, Batch: f.Batch, Progress: f.Progress, ScaffoldVersion: -1}
	switch f.Policy {
	case "oracle":
		if e.Oracle() == nil {
			return o, command.Usagef("environment %s has no oracle", f.Env)
		}
		o.Policy = rollout.TextPolicy{PolicyName: "oracle", New: e.Oracle}
	case "random":
		o.Policy = rollout.TextPolicy{PolicyName: "random", New: env.RandomAgent}
	default:
		if !policy.IsCheckpoint(f.Policy) {
			return o, command.Usagef("unknown --policy %q: want oracle, random or a checkpoint folder (with config.json)", f.Policy)
		}
		ck, err := policy.Load(f.Policy, policy.Options{Temperature: float32(f.Temperature), TopP: float32(f.TopP),
			TopK: f.TopK, RepetitionPenalty: float32(f.RepPenalty), Greedy: f.Greedy})
		if err != nil {
			return o, command.Usagef("--policy %s: %v", f.Policy, err)
		}
		ck.SamplingDefaults(policy.Given{Temperature: f.TemperatureSet, TopP: f.TopPSet, TopK: f.TopKSet,
			RepetitionPenalty: f.RepPenaltySet, Greedy: f.Greedy})
		o.Sampling, o.PolicyHash = ck.Rule(), ck.Hash
		if err := dev.Attach(ck.M); err != nil {
			return o, err
		}
		if f.MaxContext > 0 {
			// A device allocates each decoder's KV cache whole: room for the
			// context limit, one answer and one observation past it rather
			// than for max_position_embeddings.
			ck.M.SetDecoderCapacity(f.MaxContext + max(f.MaxActionTokens, MaxAnswerTokens) + DeviceObservationRoom)
		}
		o.Policy, o.Tok = rollout.CheckpointPolicy{Checkpoint: ck}, ck.Tok
	}
	if f.Tokenizer != "" {
		if _, isCk := o.Policy.(rollout.CheckpointPolicy); isCk {
			return o, command.Usagef("--tokenizer is for the oracle and random policies; a checkpoint writes with its own")
		}
		tok, err := tokenizer.Load(filepath.Join(f.Tokenizer, model.TokenizerFile))
		if err != nil {
			return o, command.Usagef("--tokenizer %s: %v", f.Tokenizer, err)
		}
		o.Tok = tok
	}
	if o.Tok == nil {
		tok, err := tokenizer.ShippedWordLevel()
		if err != nil {
			return o, err
		}
		o.Tok = tok
	}
	if err := chooseFormat(&o, f); err != nil {
		return o, err
	}
	if f.Skills || f.SkillsDir != "" {
		var lib *skill.Library
		from := "--skills-dir " + f.SkillsDir
		if f.SkillsDir != "" {
			lib, err = skill.LoadDir(f.SkillsDir)
		} else {
			from = "the built-in skill library of " + f.Env
			lib, err = skill.ShippedLibrary(f.Env)
		}
		if err != nil {
			return o, command.Usagef("%v", err)
		}
		// What no slate of any task type could have is refused before any
		// episode; a task type without a right skill of its own, when its
		// first episode starts (the library's SlateError: exit 2 as well).
		if err := lib.CheckRight(); err != nil {
			return o, command.Usagef("%s: %v", from, err)
		}
		if f.Slate > lib.Len() {
			return o, command.Usagef("--slate %d is more than %s holds (%d skills)", f.Slate, from, lib.Len())
		}
		o.Skills, o.Slate, o.SkillsFrom = lib, f.Slate, from
		switch f.TextRead {
		case "", "right", "random", "none":
			o.TextRead = f.TextRead
		default:
			return o, command.Usagef("--text-read %q: want right, random or none", f.TextRead)
		}
	}
	if f.Scaffold != "" {
		if err := attachScaffold(&o, f); err != nil {
			return o, err
		}
	}
	if o.Hint, o.HintBody, err = rollout.HintFuncs(e, f.Hints, f.Seed); err != nil {
		return o, stage.FlagError(err, nil)
	}
	if f.Preread != "" && f.Preread != rollout.PrereadNone {
		if o.Skills != nil {
			return o, command.Usagef("--preread %s: with --skills the body follows a read (--text-read)", f.Preread)
		}
		lib, err := skill.ShippedLibrary(f.Env)
		if err != nil {
			return o, command.Usagef("--preread %s: %v", f.Preread, err)
		}
		if o.Preread, err = rollout.PrereadFunc(e, lib, f.Preread, f.Seed); err != nil {
			return o, stage.FlagError(err, nil)
		}
	}
	return o, nil
}

// chooseFormat sets the prompt format, the answer cap and the invalid
// penalty; a format the policy's tokenizer cannot write is a usage error.
func chooseFormat(o *rollout.Options, f Options) error {
	if f.PromptFormat != "" && !slices.Contains(agent.FormatNames, f.PromptFormat) {
		return command.Usagef("--prompt-format %q: want builtin or chatml", f.PromptFormat)
	}
	if !(f.InvalidPenalty >= 0) || math.IsInf(f.InvalidPenalty, 0) || f.MaxActionTokens < 0 {
		return command.Usagef("--invalid-penalty and --max-action-tokens must not be negative")
	}
	dir, where := "", "the built-in tokenizer"
	var eos []int32
	ck, isCk := o.Policy.(rollout.CheckpointPolicy)
	if f.Tokenizer != "" {
		dir, where = f.Tokenizer, filepath.Join(f.Tokenizer, model.TokenizerFile)
	}
	if isCk {
		dir, where, eos = ck.Path, filepath.Join(ck.Path, model.TokenizerFile), ck.Gen.EOS
	}
	name, from := f.PromptFormat, ""
	if name == "" {
		var err error
		if name, err = policy.DefaultFormat(dir); err != nil {
			return command.Usagef("%v", err)
		}
		from = " (the checkpoint's chat template)"
	}
	fm, err := policy.ChooseFormat(name, o.Tok, eos)
	if err != nil {
		return command.Usagef("--prompt-format %s%s: %s: %v", name, from, where, err)
	}
	o.Format, o.InvalidPenalty = fm, f.InvalidPenalty
	if isCk {
		ck.Opt.MaxActionTokens = f.MaxActionTokens
		if f.MaxActionTokens == 0 && fm.Name() == "chatml" {
			ck.Opt.MaxActionTokens = 512
		}
	}
	return nil
}

// attachScaffold loads the snapshot --scaffold names and renders it for
// each task type within --scaffold-budget tokens of the run's tokenizer
// (scaffold.Render); the snapshot's version is recorded in every row. A
// bad snapshot is a usage error naming the file.
func attachScaffold(o *rollout.Options, f Options) error {
	snap, err := scaffold.ReadSnapshot(f.Scaffold)
	if err != nil {
		return err
	}
	tok := o.Tok
	count := func(s string) int { return len(tok.Encode(s)) }
	var mu sync.Mutex
	rendered := map[string]string{}
	o.Scaffold = func(taskType string) string {
		mu.Lock()
		defer mu.Unlock()
		z, ok := rendered[taskType]
		if !ok {
			z, _, _ = scaffold.Render(snap.Items, taskType, f.ScaffoldBudget, count)
			rendered[taskType] = z
		}
		return z
	}
	o.ScaffoldVersion = snap.Version
	return nil
}

// Rows resolves the flags and plays the episodes (rollout.Run).
func Rows(ctx context.Context, f Options) ([]table.Trajectory, error) {
	o, err := f.Resolve()
	if err != nil {
		return nil, err
	}
	return rollout.Run(ctx, o)
}

// Run runs the rollout command: resolve, run, write (an output "-" to
// std.Stdout).
func Run(ctx context.Context, f Options, std stage.Streams) error {
	if f.Output == "" {
		return command.Usagef("-o is required (a file, or - for an Arrow stream on stdout)")
	}
	if err := output.Check([]string{f.Scaffold, f.Policy, f.SkillsDir}, output.File("-o", f.Output)); err != nil {
		return err
	}
	o, err := f.Resolve()
	if err != nil {
		return err
	}
	_, ctxMeta, _ := f.WithContext()
	rows, err := rollout.Run(ctx, o)
	if err != nil {
		return err
	}
	meta := table.Meta{Kind: "trajectory", Command: table.CommandLine(), Seed: f.Seed,
		Inputs: map[string]string{}, Extra: map[string]string{"env": f.Env, "split": f.Split, "policy": o.Policy.Name()}}
	maps.Copy(meta.Extra, ctxMeta)
	if f.Scaffold != "" {
		if h, err := table.HashFile(f.Scaffold); err == nil {
			meta.Inputs[f.Scaffold] = h
		}
	}
	u := output.Unit{Stdout: std.Stdout}
	defer u.Abort()
	err = table.Stage(&u, f.Output, rows, meta)
	if err == nil {
		err = u.Commit()
	}
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("write %s: %w", f.Output, err)
		}
		return err
	}
	return nil
}

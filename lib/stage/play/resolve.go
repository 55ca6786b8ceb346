package play

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"sync"

	"github.com/pats-rl/pats/lib/agent"
	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/device"
	"github.com/pats-rl/pats/lib/env"
	_ "github.com/pats-rl/pats/lib/env/shipped" // registers the shipped environments
	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/policy"
	"github.com/pats-rl/pats/lib/rollout"
	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/skill"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/stage/deviceflag"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// Episodes is what Resolve makes of the options: what lib/rollout plays,
// and the metadata that records a checkpoint's agent context
// (agent_context, agent_context_overrides) and a server policy
// (ServedMeta; nil without either), which the stages copy into their
// outputs.
type Episodes struct {
	rollout.Options
	Context map[string]string
}

// Resolve resolves the options into episodes, each job in its own step:
// the checkpoint's agent context where no flag gives one (WithContext, the
// one read of agent.json), the environment and its tasks, the policy, the
// tokenizer and prompt format, the skill slate, the scaffold, and the
// hints and pre-read bodies. Problems with the user's values are usage
// errors.
func (f Options) Resolve() (Episodes, error) {
	f, ctxMeta, err := f.WithContext()
	if err != nil {
		return Episodes{}, err
	}
	if err := f.check(); err != nil {
		return Episodes{}, err
	}
	dev, err := deviceflag.Open(f.Device)
	if err != nil {
		return Episodes{}, err
	}
	o, err := f.environment()
	if err != nil {
		return Episodes{}, err
	}
	policy := func(o *rollout.Options) error { return f.policy(o, dev) }
	for _, step := range []func(*rollout.Options) error{policy, f.tokenizer, f.format, f.skills, f.scaffold, f.hints} {
		if err := step(&o); err != nil {
			return Episodes{}, err
		}
	}
	if sm := ServedMeta(o); sm != nil {
		if ctxMeta == nil {
			ctxMeta = map[string]string{}
		}
		maps.Copy(ctxMeta, sm)
	}
	return Episodes{Options: o, Context: ctxMeta}, nil
}

// environment opens the environment, checks the split and selects the
// tasks (--tasks, --shard); the rest of what is recorded in every row
// comes with it.
func (f Options) environment() (rollout.Options, error) {
	var o rollout.Options
	e, err := f.EnvLimits.open(f.Env, f.StepTimeout)
	if err != nil {
		if broken := (*env.BrokenError)(nil); errors.As(err, &broken) {
			return o, err // the child failed while running (exit 1), as at reset or step
		}
		return o, command.Usagef("%v", err)
	}
	if !slices.Contains(e.Splits(), f.Split) {
		return o, command.Usagef("unknown split %q for %s (known: %v)", f.Split, f.Env, e.Splits())
	}
	sh, err := rollout.ParseShard(f.Shard)
	if err != nil {
		return o, stage.FlagError(err, nil)
	}
	if _, err := e.Tasks(f.Split); err != nil {
		if broken := (*env.BrokenError)(nil); errors.As(err, &broken) {
			return o, fmt.Errorf("split %s of %s: %w", f.Split, f.Env, err)
		}
		return o, command.Usagef("split %s of %s: %v", f.Split, f.Env, err)
	}
	ids, err := rollout.SelectTasks(e, f.Split, f.Tasks, f.Seed, sh)
	if err != nil {
		return o, stage.FlagError(err, nil)
	}
	if n := int64(len(ids)) * int64(f.Group); n > MaxEpisodes {
		return o, command.Usagef("%d tasks x --group %d is %d episodes, more than one run's limit of %d: shard the run (--shard)", len(ids), f.Group, n, MaxEpisodes)
	}
	return rollout.Options{Env: e, Split: f.Split, Tasks: f.Tasks, Group: f.Group, FirstSample: f.FirstSample, Seed: f.Seed, Shard: sh,
		Run: f.Run, Iteration: f.Iteration, MaxContext: f.MaxContext, History: f.History, Admissible: f.Admissible,
		Batch: f.Batch, Progress: f.Progress, ScaffoldVersion: -1, Workers: f.EnvLimits.workers(f.Env)}, nil
}

// policy opens the policy: the environment's oracle, the random agent, or
// a checkpoint with its sampling rule on the device dev.
func (f Options) policy(o *rollout.Options, dev *device.Device) error {
	if f.Server.Set && !policy.IsServerURL(f.Policy) {
		return command.Usagef("--model, --concurrency, --server-kind, --server-timeout and --server-retries go with a server --policy (http://HOST:PORT/v1)")
	}
	switch f.Policy {
	case "oracle":
		if o.Env.Oracle() == nil {
			return command.Usagef("environment %s has no oracle", f.Env)
		}
		o.Policy = rollout.TextPolicy{PolicyName: "oracle", New: o.Env.Oracle}
		return nil
	case "random":
		o.Policy = rollout.TextPolicy{PolicyName: "random", New: env.RandomAgent}
		return nil
	}
	if policy.IsServerURL(f.Policy) {
		return f.served(o)
	}
	if !policy.IsCheckpoint(f.Policy) {
		return command.Usagef("unknown --policy %q: want oracle, random, a checkpoint folder (with config.json, or a LoRA adapter's adapter_config.json) or a server's http:// URL", f.Policy)
	}
	ck, err := policy.Load(f.Policy, policy.Options{Temperature: float32(f.Temperature), TopP: float32(f.TopP),
		TopK: f.TopK, RepetitionPenalty: float32(f.RepPenalty), Greedy: f.Greedy})
	if err != nil {
		return command.Usagef("--policy %s: %v", f.Policy, err)
	}
	ck.SamplingDefaults(policy.Given{Temperature: f.TemperatureSet, TopP: f.TopPSet, TopK: f.TopKSet,
		RepetitionPenalty: f.RepPenaltySet, Greedy: f.Greedy})
	o.Sampling, o.PolicyHash = ck.Rule(), ck.Hash
	if dev.Name() != device.CPU { // issue 60: a device runs an adapter folded into its base, resolved once here
		if err := ck.M.MergeAdapter(); err != nil {
			return err
		}
	}
	if err := dev.Attach(ck.M); err != nil {
		return err
	}
	if f.MaxContext > 0 {
		// A device allocates each decoder's KV cache whole: room for the
		// context limit, one answer and one observation past it rather
		// than for max_position_embeddings.
		ck.M.SetDecoderCapacity(f.MaxContext + max(f.MaxActionTokens, MaxAnswerTokens) + DeviceObservationRoom)
	}
	o.Policy, o.Tok = rollout.CheckpointPolicy{Checkpoint: ck}, ck.Tok
	return nil
}

// served opens a policy played by an inference server: --tokenizer is the
// checkpoint folder the server was started from (its tokenizer, chat
// template, generation_config.json, agent.json and weights' hash), the
// sampling settings are sent with every request and recorded as a
// checkpoint's, and --concurrency episodes are in flight at once.
func (f Options) served(o *rollout.Options) error {
	shown := table.Scrub(f.Policy)
	if f.Tokenizer == "" {
		return command.Usagef("--policy %s: a server policy needs --tokenizer, the checkpoint folder the server was started from", shown)
	}
	if !policy.IsCheckpoint(f.Tokenizer) {
		return command.Usagef("--tokenizer %s: not a checkpoint folder (no config.json): a server policy needs the folder the server was started from", f.Tokenizer)
	}
	if f.Device != "" && f.Device != "cpu" {
		return command.Usagef("--device %s: a server policy runs no model here", f.Device)
	}
	if f.BatchSet {
		return command.Usagef("--batch is for local checkpoints: a server policy's episodes in flight are --concurrency")
	}
	sv := f.Server
	s, err := policy.LoadServed(f.Tokenizer, policy.ServerOptions{URL: f.Policy, Kind: sv.Kind, Model: sv.Model, APIKey: sv.APIKey,
		Timeout: sv.Timeout, Retries: sv.Retries}, policy.Options{Temperature: float32(f.Temperature), TopP: float32(f.TopP),
		TopK: f.TopK, RepetitionPenalty: float32(f.RepPenalty), Greedy: f.Greedy})
	if err != nil {
		return command.Usagef("--policy %s (--tokenizer %s): %v", shown, f.Tokenizer, err)
	}
	s.SamplingDefaults(policy.Given{Temperature: f.TemperatureSet, TopP: f.TopPSet, TopK: f.TopKSet,
		RepetitionPenalty: f.RepPenaltySet, Greedy: f.Greedy})
	o.Sampling, o.PolicyHash = s.Rule(), s.Hash
	if err := f.serverAdapter(s); err != nil { // issue 60 (adapter.go)
		return err
	}
	o.Policy, o.Tok = rollout.ServedPolicy{Served: s}, s.Tok
	o.Workers = sv.Concurrency
	if o.Workers <= 0 {
		o.Workers = DefaultConcurrency
	}
	return nil
}

// ServedMeta is the metadata that records a server policy in the outputs
// of the stages that play one (nil for other policies): the server's URL
// (without credentials), its kind, the served model and the checkpoint
// folder the ids were written with.
func ServedMeta(o rollout.Options) map[string]string {
	sp, ok := o.Policy.(rollout.ServedPolicy)
	if !ok {
		return nil
	}
	m := map[string]string{"policy_server": sp.Server(), "policy_server_kind": sp.Kind, "policy_model": sp.Model,
		"policy_tokenizer": sp.Dir, "policy_concurrency": strconv.Itoa(o.Workers)}
	if sp.LoRA != "" { // issue 60: the adapter loaded into the server for this run
		m["policy_adapter"] = sp.LoRA
	}
	return m
}

// tokenizer sets the tokenizer the oracle and random policies write with
// (--tokenizer, else the built-in one); a checkpoint writes with its own.
func (f Options) tokenizer(o *rollout.Options) error {
	if _, isServed := o.Policy.(rollout.ServedPolicy); isServed {
		return nil // the server's checkpoint folder's, set by served
	}
	if f.Tokenizer != "" {
		if _, isCk := o.Policy.(rollout.CheckpointPolicy); isCk {
			return command.Usagef("--tokenizer is for the oracle and random policies; a checkpoint writes with its own")
		}
		tok, err := tokenizer.Load(filepath.Join(f.Tokenizer, model.TokenizerFile))
		if err != nil {
			return command.Usagef("--tokenizer %s: %v", f.Tokenizer, err)
		}
		o.Tok = tok
	}
	if o.Tok == nil {
		tok, err := tokenizer.ShippedWordLevel()
		if err != nil {
			return err
		}
		o.Tok = tok
	}
	return nil
}

// format sets the prompt format, the answer cap and the invalid penalty;
// a format the policy's tokenizer cannot write is a usage error.
func (f Options) format(o *rollout.Options) error {
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
	sp, isServed := o.Policy.(rollout.ServedPolicy)
	if isServed {
		eos = sp.Gen.EOS
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
	if f.EnableThinking != nil && !*f.EnableThinking {
		cm, ok := fm.(*agent.ChatML)
		if !ok {
			return command.Usagef("%s: agent.json's enable_thinking false needs the chatml format, not %s", dir, fm.Name())
		}
		nt := *cm
		nt.NoThinking = true
		fm = &nt
	}
	if fm, err = f.toolFormat(o, fm, dir); err != nil { // issue 62 (tools.go)
		return err
	}
	o.Format, o.InvalidPenalty = fm, f.InvalidPenalty
	answer := f.MaxActionTokens
	if answer == 0 && fm.Name() == "chatml" {
		answer = MaxAnswerTokens
	}
	if isCk {
		ck.Opt.MaxActionTokens = answer
	}
	if isServed {
		sp.Opt.MaxActionTokens = answer
	}
	return nil
}

// Library opens the skill library of a run: the folder dir, or the
// environment's built-in one when dir is empty; from says which, for
// messages. A library that cannot be opened is a usage error.
func Library(envName, dir string) (lib *skill.Library, from string, err error) {
	if dir != "" {
		lib, err = skill.LoadDir(dir)
		from = "--skills-dir " + dir
	} else {
		lib, err = skill.ShippedLibrary(envName)
		from = "the built-in skill library of " + envName
	}
	if err != nil {
		return nil, from, command.Usagef("%v", err)
	}
	return lib, from, nil
}

// skills sets the slate (--skills, --skills-dir, --slate) and the first
// read of the oracle and random policies (--text-read).
func (f Options) skills(o *rollout.Options) error {
	if !f.Skills && f.SkillsDir == "" {
		return nil
	}
	lib, from, err := Library(f.Env, f.SkillsDir)
	if err != nil {
		return err
	}
	// What no slate of any task type could have is refused before any
	// episode; a task type without a right skill of its own, when its
	// first episode starts (the library's SlateError: exit 2 as well).
	if err := lib.CheckRight(); err != nil {
		return command.Usagef("%s: %v", from, err)
	}
	if f.Slate > lib.Len() {
		return command.Usagef("--slate %d is more than %s holds (%d skills)", f.Slate, from, lib.Len())
	}
	o.Skills, o.Slate, o.SkillsFrom = lib, f.Slate, from
	switch f.TextRead {
	case "", "right", "random", "none":
		o.TextRead = f.TextRead
	default:
		return command.Usagef("--text-read %q: want right, random or none", f.TextRead)
	}
	return nil
}

// scaffold loads the snapshot --scaffold names and renders it for each
// task type within --scaffold-budget tokens of the run's tokenizer
// (scaffold.Render); the snapshot's version is recorded in every row. A
// bad snapshot is a usage error naming the file.
func (f Options) scaffold(o *rollout.Options) error {
	if f.Scaffold == "" {
		return nil
	}
	snap, err := scaffold.ReadSnapshot(f.Scaffold)
	if err != nil {
		return err
	}
	tok := o.Tok
	count := func(s string) int { return len(tok.Encode(s)) }
	var mu sync.Mutex
	rendered := map[string]string{}
	budget := f.ScaffoldBudget
	o.Scaffold = func(taskType string) string {
		mu.Lock()
		defer mu.Unlock()
		z, ok := rendered[taskType]
		if !ok {
			z, _, _ = scaffold.Render(snap.Items, taskType, budget, count)
			rendered[taskType] = z
		}
		return z
	}
	o.ScaffoldVersion = snap.Version
	return nil
}

// hints sets the rules in the scaffold's place (--hints) and the skill
// body before the first action (--preread).
func (f Options) hints(o *rollout.Options) error {
	var err error
	if o.Hint, o.HintBody, err = rollout.HintFuncs(o.Env, f.Hints, f.Seed); err != nil {
		return stage.FlagError(err, nil)
	}
	if f.Preread == "" || f.Preread == rollout.PrereadNone {
		return nil
	}
	if o.Skills != nil {
		return command.Usagef("--preread %s: with --skills the body follows a read (--text-read)", f.Preread)
	}
	lib, err := skill.ShippedLibrary(f.Env)
	if err != nil {
		return command.Usagef("--preread %s: %v", f.Preread, err)
	}
	if o.Preread, err = rollout.PrereadFunc(o.Env, lib, f.Preread, f.Seed); err != nil {
		return stage.FlagError(err, nil)
	}
	return nil
}

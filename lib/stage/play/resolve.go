package play

import (
	"context"
	"errors"
	"fmt"
	"maps"
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
// hints and pre-read bodies; ctx ends the waits on a server (an
// adapter loaded into it). The policy job opens the policy and hands the
// later jobs what they ask of it (played); no other job asks what kind of
// policy it is. Problems with the user's values are usage errors.
func (f Options) Resolve(ctx context.Context) (Episodes, error) {
	if err := f.Check(); err != nil {
		return Episodes{}, err
	}
	f, ctxMeta, err := f.WithContext() // agent.json's values are checked as it is read
	if err != nil {
		return Episodes{}, err
	}
	o, err := f.environment()
	if err != nil {
		return Episodes{}, err
	}
	p, servedMeta, err := f.policy(ctx, &o)
	if err != nil {
		return Episodes{}, err
	}
	if err := f.tokenizer(&o, p); err != nil {
		return Episodes{}, err
	}
	if err := f.format(&o, p); err != nil {
		return Episodes{}, err
	}
	for _, step := range []func(*rollout.Options) error{f.skills, f.scaffold, f.hints} {
		if err := step(&o); err != nil {
			return Episodes{}, err
		}
	}
	if servedMeta != nil {
		if ctxMeta == nil {
			ctxMeta = map[string]string{}
		}
		maps.Copy(ctxMeta, servedMeta)
	}
	return Episodes{Options: o, Context: ctxMeta}, nil
}

// played is the policy the policy job opened, as the later jobs ask it:
// the tokenizer it writes with (nil: the run's, --tokenizer or the
// built-in one), the checkpoint folder whose tokenizer and chat template
// name the default prompt format ("" none), its end tokens, and its cap on
// one answer's tokens. rollout.TextPolicy, rollout.CheckpointPolicy and
// rollout.ServedPolicy answer them.
type played interface {
	rollout.Policy
	Tokenizer() tokenizer.Tokenizer
	Folder() string
	EndTokens() []int32
	SetAnswerCap(tokens int)
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
	sh, _ := rollout.ParseShard(f.Shard) // checked by Check
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

// policy opens the policy: the environment's oracle, the random agent, a
// checkpoint with its sampling rule on the device --device names (opened
// here, the one place a model runs), or a server's policy (served, with
// the metadata that records it).
func (f Options) policy(ctx context.Context, o *rollout.Options) (played, map[string]string, error) {
	switch f.Policy {
	case "oracle":
		if o.Env.Oracle() == nil {
			return nil, nil, command.Usagef("environment %s has no oracle", f.Env)
		}
		p := rollout.TextPolicy{PolicyName: "oracle", New: o.Env.Oracle}
		o.Policy = p
		return p, nil, nil
	case "random":
		p := rollout.TextPolicy{PolicyName: "random", New: env.RandomAgent}
		o.Policy = p
		return p, nil, nil
	}
	if policy.IsServerURL(f.Policy) {
		return f.served(ctx, o)
	}
	if !policy.IsCheckpoint(f.Policy) {
		return nil, nil, command.Usagef("unknown --policy %q: want oracle, random, a checkpoint folder (with config.json, or a LoRA adapter's adapter_config.json) or a server's http:// URL", f.Policy)
	}
	dev, err := deviceflag.Open(f.Device)
	if err != nil {
		return nil, nil, err
	}
	ck, err := policy.Load(f.Policy, policy.Options{Temperature: float32(f.Temperature), TopP: float32(f.TopP),
		TopK: f.TopK, RepetitionPenalty: float32(f.RepPenalty), Greedy: f.Greedy})
	if err != nil {
		return nil, nil, command.Usagef("--policy %s: %v", f.Policy, err)
	}
	ck.SamplingDefaults(policy.Given{Temperature: f.TemperatureSet, TopP: f.TopPSet, TopK: f.TopKSet,
		RepetitionPenalty: f.RepPenaltySet, Greedy: f.Greedy})
	o.Sampling, o.PolicyHash = ck.Rule(), ck.Hash
	if dev.Name() != device.CPU { // issue 60: a device runs an adapter folded into its base, resolved once here
		if err := ck.M.MergeAdapter(); err != nil {
			return nil, nil, err
		}
	}
	if err := dev.Attach(ck.M); err != nil {
		return nil, nil, err
	}
	if f.MaxContext > 0 {
		// A device allocates each decoder's KV cache whole: room for the
		// context limit, one answer and one observation past it rather
		// than for max_position_embeddings.
		ck.M.SetDecoderCapacity(f.MaxContext + max(f.MaxActionTokens, MaxAnswerTokens) + DeviceObservationRoom)
	}
	p := rollout.CheckpointPolicy{Checkpoint: ck}
	o.Policy = p
	return p, nil, nil
}

// served opens a policy played by an inference server: --tokenizer is the
// checkpoint folder the server was started from (its tokenizer, chat
// template, generation_config.json, agent.json and weights' hash), the
// sampling settings are sent with every request and recorded as a
// checkpoint's, and --concurrency episodes are in flight at once. The
// metadata records the server (servedMeta).
func (f Options) served(ctx context.Context, o *rollout.Options) (played, map[string]string, error) {
	shown := table.Scrub(f.Policy)
	if !policy.IsCheckpoint(f.Tokenizer) {
		return nil, nil, command.Usagef("--tokenizer %s: not a checkpoint folder (no config.json): a server policy needs the folder the server was started from", f.Tokenizer)
	}
	sv := f.Server
	s, err := policy.LoadServed(f.Tokenizer, policy.ServerOptions{URL: f.Policy, Kind: sv.Kind, Model: sv.Model, APIKey: sv.APIKey,
		Timeout: sv.Timeout, Retries: sv.Retries}, policy.Options{Temperature: float32(f.Temperature), TopP: float32(f.TopP),
		TopK: f.TopK, RepetitionPenalty: float32(f.RepPenalty), Greedy: f.Greedy})
	if err != nil {
		return nil, nil, command.Usagef("--policy %s (--tokenizer %s): %v", shown, f.Tokenizer, err)
	}
	s.SamplingDefaults(policy.Given{Temperature: f.TemperatureSet, TopP: f.TopPSet, TopK: f.TopKSet,
		RepetitionPenalty: f.RepPenaltySet, Greedy: f.Greedy})
	o.Sampling, o.PolicyHash = s.Rule(), s.Hash
	if err := f.serverAdapter(ctx, s); err != nil { // issue 60 (adapter.go)
		return nil, nil, err
	}
	o.Workers = sv.Concurrency
	if o.Workers <= 0 {
		o.Workers = DefaultConcurrency
	}
	p := rollout.ServedPolicy{Served: s}
	o.Policy = p
	return p, servedMeta(s, o.Workers), nil
}

// servedMeta is the metadata that records a server policy in the outputs
// of the stages that play one: the server's URL (without credentials),
// its kind, the served model, the checkpoint folder the ids were written
// with, the episodes in flight and the adapter loaded for the run.
func servedMeta(s *policy.Served, workers int) map[string]string {
	m := map[string]string{"policy_server": s.Server(), "policy_server_kind": s.Kind, "policy_model": s.Model,
		"policy_tokenizer": s.Dir, "policy_concurrency": strconv.Itoa(workers)}
	if s.LoRA != "" { // issue 60: the adapter loaded into the server for this run
		m["policy_adapter"] = s.LoRA
	}
	return m
}

// tokenizer sets the tokenizer the run writes with: the policy's own (a
// checkpoint's, a server's folder's), else --tokenizer, else the built-in
// one.
func (f Options) tokenizer(o *rollout.Options, p played) error {
	if own := p.Tokenizer(); own != nil {
		o.Tok = own
		return nil
	}
	if f.Tokenizer != "" {
		tok, err := tokenizer.Load(filepath.Join(f.Tokenizer, model.TokenizerFile))
		if err != nil {
			return command.Usagef("--tokenizer %s: %v", f.Tokenizer, err)
		}
		o.Tok = tok
		return nil
	}
	tok, err := tokenizer.ShippedWordLevel()
	if err != nil {
		return err
	}
	o.Tok = tok
	return nil
}

// format sets the prompt format, the policy's answer cap and the invalid
// penalty; a format the run's tokenizer cannot write is a usage error.
func (f Options) format(o *rollout.Options, p played) error {
	dir, where := p.Folder(), "the built-in tokenizer"
	if dir == "" {
		dir = f.Tokenizer
	}
	if dir != "" {
		where = filepath.Join(dir, model.TokenizerFile)
	}
	name, from := f.PromptFormat, ""
	if name == "" {
		var err error
		if name, err = policy.DefaultFormat(dir); err != nil {
			return command.Usagef("%v", err)
		}
		from = " (the checkpoint's chat template)"
	}
	fm, err := policy.ChooseFormat(name, o.Tok, p.EndTokens())
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
	p.SetAnswerCap(answer)
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
	o.Skills, o.Slate, o.SkillsFrom, o.TextRead = lib, f.Slate, from, f.TextRead
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
	lib, err := skill.ShippedLibrary(f.Env)
	if err != nil {
		return command.Usagef("--preread %s: %v", f.Preread, err)
	}
	if o.Preread, err = rollout.PrereadFunc(o.Env, lib, f.Preread, f.Seed); err != nil {
		return stage.FlagError(err, nil)
	}
	return nil
}

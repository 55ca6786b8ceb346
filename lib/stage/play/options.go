package play

import (
	"math"
	"slices"
	"time"

	"github.com/pats-rl/pats/lib/agent"
	"github.com/pats-rl/pats/lib/device"
	"github.com/pats-rl/pats/lib/policy"
	"github.com/pats-rl/pats/lib/table"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/progress"
	"github.com/pats-rl/pats/lib/rollout"
	"github.com/pats-rl/pats/lib/stage"
)

// Options are the episode options as the user gives them. A command that
// does not offer an option (Spec) gets its default from From; a library
// caller's zero Batch, Slate, TopP or MaxContext means the default.
type Options struct {
	Env, Split     string
	Tasks, Group   int
	FirstSample    int // rollout --first-sample (rollout.Options.FirstSample)
	Seed           int64
	Shard          string // part i of n of the tasks, "i/n"; "" all
	Policy         string // oracle, random, or a checkpoint folder
	Run            string // run name recorded in every row
	Iteration      int    // training iteration recorded in every row
	Skills         bool   // show a skill slate
	SkillsDir      string // a user skill library instead of the built-in one
	Slate          int
	Scaffold       string             // snapshot file; empty: no scaffold
	ScaffoldBudget int                // token budget of the rendered scaffold
	PolicyOptions                     // sampling and the context (PolicyFlags)
	Batch          int                // episodes decoding together (checkpoint policies)
	BatchSet       bool               // the user gave --batch: refused with a server policy (--concurrency)
	TextRead       string             // right, random or none: the first read of oracle and random policies with skills on
	Hints          string             // none, right, misleading, irrelevant or mixed: rules about each task in the scaffold's place (rollout.HintFuncs)
	Preread        string             // none, right or random: a library skill's body before the first action, without a slate (rollout.PrereadFunc)
	Progress       *progress.Settings // nil: no progress
	InvalidPenalty float64            // reward less per answer without a well-formed action
	Tokenizer      string             // a checkpoint folder whose tokenizer (and chat template) oracle and random policies write with; with a server policy, the folder the server was started from
	Server         ServerOptions      // a policy played by an inference server (Policy an http:// or https:// URL)
	Device         string             // where a checkpoint policy runs: cpu (or "") or cuda
}

// ServerOptions are the options of a policy played by an inference server
// (ServerFlags).
type ServerOptions struct {
	Model       string        // the served model's name
	APIKey      string        // bearer token; "" none
	Concurrency int           // episodes in flight; 0: DefaultConcurrency
	Kind        string        // vllm, sglang, or "" for the URL's
	Timeout     time.Duration // per request; 0: the policy's default
	Retries     int           // retries of a request (ServerFlags' default 5; 0: none)
	// issue 60: LoadAdapter loads --tokenizer, a LoRA adapter folder, into
	// the running server under Model's name before the first request;
	// UnloadAdapter names an adapter to drop after that (the previous
	// iteration's).
	LoadAdapter   bool
	UnloadAdapter string
	// Set says the user gave a server option other than --api-key (which
	// may come from the environment): refused without a server policy.
	Set bool
}

// PolicyOptions are how a policy samples and what its context holds.
type PolicyOptions struct {
	Temperature float64
	TopP        float64
	TopK        int     // 0: no top-k cut
	RepPenalty  float64 // repetition penalty; 0 or 1: none
	Greedy      bool
	MaxContext  int           // context limit in tokens; 0: none (library use)
	History     int           // turns an answer sees in full; 0 = the whole episode
	Admissible  string        // none, here or all: the admissible actions each observation in the context lists (rollout.AdmissibleLine); "" is none
	StepTimeout time.Duration // exec: environments: the longest wait for one answer; 0: none

	// TemperatureSet, TopPSet, TopKSet and RepPenaltySet say the user gave
	// them; otherwise a checkpoint's generation_config.json supplies them.
	TemperatureSet, TopPSet, TopKSet, RepPenaltySet bool
	// HistorySet, AdmissibleSet and MaxActionTokensSet say the user gave
	// them; otherwise a checkpoint's agent.json supplies them (WithContext),
	// as it supplies the prompt format when PromptFormat is "".
	HistorySet, AdmissibleSet, MaxActionTokensSet bool
	PromptFormat                                  string // builtin, chatml, or "" for the checkpoint's own
	MaxActionTokens                               int    // tokens per answer (checkpoint policies); 0: 32 under builtin, 512 under chatml
	// EnableThinking is agent.json's enable_thinking (chatml): false
	// closes an empty thinking block after each cue (agent.ChatML's
	// NoThinking); nil or true: the plain cue.
	EnableThinking *bool
}

// Check checks the options as a command gives them, before any work: on
// top of what check refuses, the values whose zero stands for a default in
// library use (top-p, max-context, batch, slate) must be given in range,
// since the commands' own defaults are not zero.
func (f Options) Check() error {
	if err := f.PolicyOptions.CheckGiven(); err != nil {
		return err
	}
	switch {
	case f.Batch == 0:
		return command.Usagef("--batch must be at least 1, got 0")
	case (f.Skills || f.SkillsDir != "") && f.Slate == 0:
		return command.Usagef("--slate must be at least 1, got 0")
	case f.Server.Concurrency == 0:
		return command.Usagef("--concurrency must be at least 1, got 0")
	}
	return f.check()
}

// check refuses values out of range; a zero top-p, max-context, batch or
// slate means the default (1, no limit, DefaultBatch, DefaultSlate).
func (f Options) check() error {
	if err := (rollout.Options{Group: f.Group, FirstSample: f.FirstSample, History: f.History, Admissible: f.Admissible}).Check(); err != nil {
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
	case f.Server.Concurrency < 0:
		return command.Usagef("--concurrency must be at least 1, got %d", f.Server.Concurrency)
	case f.Server.Timeout < 0 || f.Server.Retries < 0:
		return command.Usagef("--server-timeout and --server-retries must not be negative")
	case f.PromptFormat != "" && !slices.Contains(agent.FormatNames, f.PromptFormat):
		return command.Usagef("--prompt-format %q: want builtin or chatml", f.PromptFormat)
	case !(f.InvalidPenalty >= 0) || math.IsInf(f.InvalidPenalty, 0) || f.MaxActionTokens < 0:
		return command.Usagef("--invalid-penalty and --max-action-tokens must not be negative")
	}
	return f.checkPolicyKind()
}

// checkPolicyKind refuses the options that do not go with the kind of
// policy --policy names (told by its value alone: oracle, random, a
// server's URL, else a checkpoint folder). --device names where a
// checkpoint runs; the device is opened only for one (Resolve's policy
// job), so the oracle and random policies run with any --device.
func (f Options) checkPolicyKind() error {
	served := policy.IsServerURL(f.Policy)
	text := f.Policy == "oracle" || f.Policy == "random"
	if f.Device != "" {
		if _, err := device.Parse(f.Device); err != nil {
			return command.Usagef("--device: %v", err)
		}
	}
	switch {
	case f.Server.Set && !served:
		return command.Usagef("--model, --concurrency, --server-kind, --server-timeout and --server-retries go with a server --policy (http://HOST:PORT/v1)")
	case !served && !text && f.Tokenizer != "":
		return command.Usagef("--tokenizer is for the oracle and random policies; a checkpoint writes with its own")
	case served && f.Tokenizer == "":
		return command.Usagef("--policy %s: a server policy needs --tokenizer, the checkpoint folder the server was started from", table.Scrub(f.Policy))
	case served && f.Device != "" && f.Device != device.CPU:
		return command.Usagef("--device %s: a server policy runs no model here", f.Device)
	case served && f.BatchSet:
		return command.Usagef("--batch is for local checkpoints: a server policy's episodes in flight are --concurrency")
	}
	return nil
}

// CheckGiven refuses a zero top-p or max-context as a command gives
// them: values whose zero stands for a default in library use (check),
// while the commands' own defaults are not zero.
func (p PolicyOptions) CheckGiven() error {
	switch {
	case p.TopP == 0:
		return command.Usagef("--top-p must be in (0, 1], got 0")
	case p.MaxContext == 0:
		return command.Usagef("--max-context must be at least 1 token, got 0")
	}
	return nil
}

// check refuses values out of range; a zero top-p or max-context means
// the default (1, no limit). History and Admissible are checked by
// lib/rollout (Options.Check).
func (p PolicyOptions) check() error {
	switch {
	case math.IsNaN(p.Temperature) || math.IsInf(p.Temperature, 0) || p.Temperature < 0:
		return command.Usagef("--temperature must be a finite number, 0 or more (0: greedy), got %v", p.Temperature)
	case !(p.TopP >= 0 && p.TopP <= 1):
		return command.Usagef("--top-p must be in (0, 1], got %v", p.TopP)
	case p.TopK < 0:
		return command.Usagef("--top-k must be 0 (no cut) or more, got %d", p.TopK)
	case math.IsNaN(p.RepPenalty) || math.IsInf(p.RepPenalty, 0) || p.RepPenalty < 0:
		return command.Usagef("--repetition-penalty must be a positive number (1: none), got %v", p.RepPenalty)
	case p.MaxContext < 0:
		return command.Usagef("--max-context must be at least 1 token, got %d", p.MaxContext)
	case p.StepTimeout < 0:
		return command.Usagef("--step-timeout must not be negative, got %s", p.StepTimeout)
	}
	return nil
}

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
	"github.com/pats-rl/pats/lib/stage/deviceflag"
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
	EnvLimits      EnvOptions         // environment servers and exec: children (EnvFlags)
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
	ActionFormat                                  string // tags, tools (chatml), or "" for the checkpoint's own (agent.json), else tags
	MaxActionTokens                               int    // tokens per answer (checkpoint policies); 0: 32 under builtin, 512 under chatml
	// EnableThinking is agent.json's enable_thinking (chatml): false
	// closes an empty thinking block after each cue (agent.ChatML's
	// NoThinking); nil or true: the plain cue.
	EnableThinking *bool
}

// Check is the one checker of the episode options, run before any work:
// no file is read and no model loaded before it (Resolve calls it first,
// and so do the stages' Run). It refuses values out of range and options
// that do not go with the kind of policy --policy names. A zero top-p,
// max-context, batch, slate or concurrency means the default (1, no
// limit, DefaultBatch, DefaultSlate, DefaultConcurrency) for a library
// caller; a command's defaults are not zero, and From refuses a zero
// given on its command line.
func (f Options) Check() error {
	if err := (rollout.Options{Group: f.Group, FirstSample: f.FirstSample, History: f.History, Admissible: f.Admissible}).Check(); err != nil {
		return stage.FlagError(err, nil)
	}
	if _, err := rollout.ParseShard(f.Shard); err != nil {
		return stage.FlagError(err, nil)
	}
	switch {
	case f.Group > MaxEpisodes:
		return command.Usagef("--group %d is more than one run's limit of %d episodes", f.Group, MaxEpisodes)
	case f.Tasks < 0:
		return command.Usagef("--tasks must not be negative, got %d", f.Tasks)
	case f.Iteration < -1 || f.Iteration > math.MaxInt32:
		return command.Usagef("--iteration must be in [-1 (before training), %d], got %d", math.MaxInt32, f.Iteration)
	case math.IsNaN(f.Temperature) || math.IsInf(f.Temperature, 0) || f.Temperature < 0:
		return command.Usagef("--temperature must be a finite number, 0 or more (0: greedy), got %v", f.Temperature)
	case !(f.TopP >= 0 && f.TopP <= 1):
		return command.Usagef("--top-p must be in (0, 1], got %v", f.TopP)
	case f.TopK < 0:
		return command.Usagef("--top-k must be 0 (no cut) or more, got %d", f.TopK)
	case math.IsNaN(f.RepPenalty) || math.IsInf(f.RepPenalty, 0) || f.RepPenalty < 0:
		return command.Usagef("--repetition-penalty must be a positive number (1: none), got %v", f.RepPenalty)
	case f.MaxContext < 0:
		return command.Usagef("--max-context must be at least 1 token, got %d", f.MaxContext)
	case f.StepTimeout < 0:
		return command.Usagef("--step-timeout must not be negative, got %s", f.StepTimeout)
	}
	if err := f.EnvLimits.check(f.Env); err != nil {
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
	case !slices.Contains([]string{"", "right", "random", "none"}, f.TextRead):
		return command.Usagef("--text-read %q: want right, random or none", f.TextRead)
	case f.Preread != "" && f.Preread != rollout.PrereadNone && (f.Skills || f.SkillsDir != ""):
		return command.Usagef("--preread %s: with --skills the body follows a read (--text-read)", f.Preread)
	}
	if err := f.checkPolicyKind(); err != nil {
		return err
	}
	return f.checkServer()
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
	case served && !deviceflag.IsCPU(f.Device):
		return command.Usagef("--device %s: a server policy runs no model here", f.Device)
	case served && f.BatchSet:
		return command.Usagef("--batch is for local checkpoints: a server policy's episodes in flight are --concurrency")
	}
	return nil
}

// checkServer refuses the server options that do not go together: the
// server's URL and kind, the served model's name a vLLM server needs, and
// the adapter options (--load-adapter needs --model; --unload-adapter
// goes with it and names another adapter).
func (f Options) checkServer() error {
	if !policy.IsServerURL(f.Policy) {
		return nil
	}
	sv := f.Server
	kind := sv.Kind
	if kind == "" {
		kind = policy.KindOf(f.Policy)
	}
	if err := policy.CheckServerURL(f.Policy); err != nil {
		return command.Usagef("--policy %v", err)
	}
	switch {
	case !slices.Contains(policy.ServerKinds, kind):
		return command.Usagef("--server-kind %q: want vllm or sglang", kind)
	case kind == policy.ServerVLLM && sv.Model == "":
		return command.Usagef("--policy %s: a vLLM server needs --model, the served model's name", table.Scrub(f.Policy))
	case !sv.LoadAdapter && sv.UnloadAdapter != "":
		return command.Usagef("--unload-adapter goes with --load-adapter")
	case sv.LoadAdapter && sv.Model == "":
		return command.Usagef("--load-adapter needs --model, the name to load the adapter under")
	case sv.LoadAdapter && sv.UnloadAdapter == sv.Model:
		return command.Usagef("--unload-adapter %s is the adapter --load-adapter loads", sv.UnloadAdapter)
	}
	return nil
}

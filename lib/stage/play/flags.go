package play

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/policy"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/stage/deviceflag"
)

// Spec is how a command offers the episode options: the defaults that
// differ from command to command, and which groups of options beyond the
// core it offers. The core (Flags) is --env, --split, --tasks, --group,
// --seed, --policy, --skills, --slate, the policy options (PolicyFlags),
// --device and the progress options.
type Spec struct {
	Split       string  // --split's default
	Policy      string  // --policy's default; "" none
	PolicyUsage string  // --policy's help; "" the plain one
	Required    bool    // --policy must be given
	Temperature float64 // --temperature's default where the checkpoint gives none

	Scaffold  bool // --scaffold and --scaffold-budget
	SkillsDir bool // --skills-dir
	// SkillsDirUsage is --skills-dir's help; "" the plain one (a slate's
	// library, implying --skills).
	SkillsDirUsage string
	// Training: --shard, --tokenizer, --text-read, --preread, --hints,
	// --invalid-penalty and --batch (rollout's).
	Training bool
}

// Flags declares the episode options a command offers (s), each once.
func Flags(s Spec) []cli.Flag {
	pu := s.PolicyUsage
	if pu == "" {
		pu = "oracle, random, a checkpoint folder, or an inference server's URL (http://HOST:PORT/v1 for vLLM, http://HOST:PORT for SGLang; with --tokenizer and --model)"
	}
	fs := []cli.Flag{
		deviceflag.Flag(),
		&cli.StringFlag{Name: "env", Value: DefaultEnv, Usage: "environment: household, shop, searchqa, exec:COMMAND, or an environment server's URL (http://HOST:PORT; docs/env-protocol.md)"},
		&cli.StringFlag{Name: "split", Value: s.Split, Usage: "task split: train, valid_seen, valid_unseen (shop and searchqa: also test)"},
		&cli.IntFlag{Name: "tasks", Value: 0, Usage: "tasks drawn from the split with --seed; 0 runs the whole split in order"},
		&cli.IntFlag{Name: "group", Value: DefaultGroup, Usage: "episodes per task (a GRPO group)"},
		&cli.Int64Flag{Name: "seed", Value: DefaultSeed, Usage: "seed of task draw, environments and sampling"},
		&cli.StringFlag{Name: "policy", Value: s.Policy, Required: s.Required, Usage: pu},
	}
	if s.Training {
		fs = append(fs, &cli.StringFlag{Name: "shard", Usage: "run part i of n of the tasks, as i/n (0-based)"},
			&cli.IntFlag{Name: "first-sample", Usage: "number each task's episodes from this sample (with that sample's seed): a second rollout of the same tasks from --first-sample G plays G new episodes of each"})
	}
	fs = append(fs,
		&cli.StringFlag{Name: "tokenizer", Usage: "a checkpoint folder whose tokenizer (and chat template) the oracle and random policies write with (default: the built-in one); with a server --policy, the folder the server was started from (required): its tokenizer, chat template, generation_config.json and weights' hash"},
	)
	fs = append(fs, ServerFlags()...)
	fs = append(fs, &cli.BoolFlag{Name: "skills", Usage: "show a slate of skills from the environment's built-in library"})
	if s.SkillsDir {
		u := s.SkillsDirUsage
		if u == "" {
			u = "a folder of SKILL.md folders to draw slates from (implies --skills)"
		}
		fs = append(fs, &cli.StringFlag{Name: "skills-dir", Usage: u})
	}
	if s.Training {
		fs = append(fs,
			&cli.StringFlag{Name: "text-read", Usage: "with skills on, the skill oracle and random policies read first: right, random (drawn from the slate) or none; unset: right for the oracle, random for the random policy"},
			&cli.StringFlag{Name: "preread", Value: DefaultPreread, Usage: "without --skills, a library skill's body before the first action, as if read: none, right (the type's right skill) or random (a library skill drawn per task); demonstrations for a base that reads"},
			&cli.StringFlag{Name: "hints", Value: DefaultHints, Usage: "rules about each task in the scaffold's place: none, right, misleading, irrelevant, or mixed (demonstrations for a base that reads; the household worlds)"},
		)
	}
	fs = append(fs, &cli.IntFlag{Name: "slate", Value: DefaultSlate, Usage: "candidates per slate"})
	if s.Scaffold {
		fs = append(fs,
			&cli.StringFlag{Name: "scaffold", Usage: "scaffold snapshot rendered into the context; without it no scaffold (deployment)"},
			&cli.IntFlag{Name: "scaffold-budget", Value: DefaultScaffoldBudget, Usage: "token budget of the rendered scaffold"},
		)
	}
	fs = append(fs, PolicyFlags(s.Temperature)...)
	fs = append(fs, EnvFlags()...)
	if s.Training {
		fs = append(fs,
			&cli.Float64Flag{Name: "invalid-penalty", Value: DefaultInvalidPenalty, Usage: "subtracted from the episode's reward for each answer without a well-formed <action> (chatml)"},
			&cli.IntFlag{Name: "batch", Value: DefaultBatch, Usage: "episodes that decode together, one batched forward per token (checkpoint policies; a server policy's episodes in flight are --concurrency)"},
		)
	}
	return append(fs, stage.ProgressFlags()...)
}

// From reads the episode options a command offers (s); an option it does
// not offer takes its default. It refuses only a zero given on the
// command line where a library caller's zero means the default (top-p,
// max-context, batch, a slate's size, concurrency); the rest is
// Options.Check's, which the stages run before any work (evaluate only
// with --policy).
func From(c *cli.Context, s Spec) (Options, error) {
	prog, err := stage.ProgressSettings(c)
	if err != nil {
		return Options{}, err
	}
	f := Options{
		Env: c.String("env"), Split: c.String("split"), Tasks: c.Int("tasks"), Group: c.Int("group"),
		Seed: c.Int64("seed"), Policy: c.String("policy"),
		Skills: c.Bool("skills"), Slate: c.Int("slate"),
		ScaffoldBudget: DefaultScaffoldBudget,
		PolicyOptions:  PolicyFrom(c),
		Batch:          DefaultBatch, InvalidPenalty: DefaultInvalidPenalty,
		Progress: prog, Device: c.String("device"), EnvLimits: EnvFrom(c),
	}
	if s.Scaffold {
		f.Scaffold, f.ScaffoldBudget = c.String("scaffold"), c.Int("scaffold-budget")
	}
	if s.SkillsDir {
		f.SkillsDir = c.String("skills-dir")
	}
	f.Tokenizer, f.Server = c.String("tokenizer"), ServerFrom(c)
	if s.Training {
		f.Shard, f.FirstSample = c.String("shard"), c.Int("first-sample")
		f.TextRead, f.Preread, f.Hints = c.String("text-read"), c.String("preread"), c.String("hints")
		f.InvalidPenalty, f.Batch, f.BatchSet = c.Float64("invalid-penalty"), c.Int("batch"), c.IsSet("batch")
	}
	switch {
	case f.TopP == 0:
		return f, command.Usagef("--top-p must be in (0, 1], got 0")
	case f.MaxContext == 0:
		return f, command.Usagef("--max-context must be at least 1 token, got 0")
	case f.Batch == 0:
		return f, command.Usagef("--batch must be at least 1, got 0")
	case (f.Skills || f.SkillsDir != "") && f.Slate == 0:
		return f, command.Usagef("--slate must be at least 1, got 0")
	case f.Server.Concurrency == 0:
		return f, command.Usagef("--concurrency must be at least 1, got 0")
	}
	return f, nil
}

// PolicyFlags declares the policy options (PolicyOptions), --temperature
// with the command's default where the checkpoint gives none
// (TrainTemperature or EvalTemperature).
func PolicyFlags(temperature float64) []cli.Flag {
	return []cli.Flag{
		&cli.Float64Flag{Name: "temperature", Value: temperature, Usage: fmt.Sprintf("sampling temperature (checkpoint policies; unset: the checkpoint's generation_config.json, else %g)", temperature)},
		&cli.Float64Flag{Name: "top-p", Value: 1.0, Usage: "nucleus sampling mass (checkpoint policies; unset: the checkpoint's generation_config.json, else 1)"},
		&cli.IntFlag{Name: "top-k", Usage: "sample among the k most probable tokens only (checkpoint policies; unset: the checkpoint's generation_config.json, else 0: no cut)"},
		&cli.Float64Flag{Name: "repetition-penalty", Value: 1.0, Usage: "divide the logits of tokens already in the context by this (checkpoint policies; unset: the checkpoint's generation_config.json, else 1: none)"},
		&cli.BoolFlag{Name: "greedy", Usage: "pick the most likely token (checkpoint policies)"},
		&cli.StringFlag{Name: "prompt-format", Usage: "builtin or chatml; unset: the checkpoint's agent.json, else chatml for a checkpoint whose chat template has <|im_start|> (Qwen2/2.5/3), else builtin"},
		&cli.StringFlag{Name: "action-format", Usage: "how an answer names its action: tags (<action>...</action>) or tools (chatml only: the environment's actions are tools shown through the checkpoint's chat template, the answer one <tool_call>); unset: the checkpoint's agent.json, else tags"},
		&cli.IntFlag{Name: "max-action-tokens", Usage: "tokens per answer (checkpoint policies); 0: 32 under builtin, 512 under chatml; unset: the checkpoint's agent.json, if it has one"},
		&cli.IntFlag{Name: "history", Usage: "turns an answer sees in full; older ones are replaced by one marker line; 0: the whole episode; unset: the checkpoint's agent.json, if it has one"},
		&cli.StringFlag{Name: "admissible", Value: DefaultAdmissible, Usage: "the admissible actions each observation in the context lists after it: none, here (those that change something at the current place: no go to, look, examine or inventory) or all; unset: the checkpoint's agent.json, if it has one"},
		&cli.IntFlag{Name: "max-context", Value: DefaultMaxContext, Usage: "context limit in tokens; an episode stops there"},
		&cli.DurationFlag{Name: "step-timeout", Usage: "exec: environments: the longest wait for one answer, e.g. 30s (0: no limit)"},
	}
}

// PolicyFrom reads the policy options (PolicyFlags).
func PolicyFrom(c *cli.Context) PolicyOptions {
	return PolicyOptions{
		Temperature: c.Float64("temperature"), TemperatureSet: c.IsSet("temperature"),
		TopP: c.Float64("top-p"), TopPSet: c.IsSet("top-p"),
		TopK: c.Int("top-k"), TopKSet: c.IsSet("top-k"),
		RepPenalty: c.Float64("repetition-penalty"), RepPenaltySet: c.IsSet("repetition-penalty"),
		Greedy:       c.Bool("greedy"),
		PromptFormat: c.String("prompt-format"), ActionFormat: c.String("action-format"),
		MaxActionTokens: c.Int("max-action-tokens"), MaxActionTokensSet: c.IsSet("max-action-tokens"),
		History: c.Int("history"), HistorySet: c.IsSet("history"),
		Admissible: c.String("admissible"), AdmissibleSet: c.IsSet("admissible"),
		MaxContext:  c.Int("max-context"),
		StepTimeout: c.Duration("step-timeout"),
	}
}

// ServerFlags declares the options of a policy played by an inference
// server (--policy http://...).
func ServerFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "model", Usage: "server policies: the served model's name (what the server was started with; vLLM needs it)"},
		&cli.StringFlag{Name: "api-key", EnvVars: []string{"OPENAI_API_KEY"}, Usage: "server policies: bearer token sent to the server (never recorded: outputs and messages show REDACTED)"},
		&cli.IntFlag{Name: "concurrency", Value: DefaultConcurrency, Usage: "server policies: episodes in flight at once"},
		&cli.StringFlag{Name: "server-kind", Usage: "server policies: vllm (OpenAI-compatible completions) or sglang (native /generate); unset: vllm for a URL ending in /v1, else sglang"},
		&cli.DurationFlag{Name: "server-timeout", Value: policy.DefaultServerTimeout, Usage: "server policies: the longest wait for one answer before it is retried"},
		&cli.IntFlag{Name: "server-retries", Value: policy.DefaultServerRetries, Usage: "server policies: retries of a request after a timeout, a dropped connection or an answer 429, 502, 503 or 504 (waits 0.5s, doubled each time); then the run fails"},
		&cli.BoolFlag{Name: "load-adapter", Usage: "server policies: load --tokenizer, a LoRA adapter folder, into the running server under --model's name first, and request it by that name (vLLM /v1/load_lora_adapter, SGLang /load_lora_adapter)"},
		&cli.StringFlag{Name: "unload-adapter", Usage: "server policies, with --load-adapter: then drop the adapter the server holds under this name (the previous iteration's; one it does not hold is passed over)"},
	}
}

// ServerFrom reads the server options (ServerFlags).
func ServerFrom(c *cli.Context) ServerOptions {
	return ServerOptions{Model: c.String("model"), APIKey: c.String("api-key"), Concurrency: c.Int("concurrency"),
		Kind: c.String("server-kind"), Timeout: c.Duration("server-timeout"), Retries: c.Int("server-retries"),
		LoadAdapter: c.Bool("load-adapter"), UnloadAdapter: c.String("unload-adapter"),
		Set: c.IsSet("model") || c.IsSet("concurrency") || c.IsSet("server-kind") || c.IsSet("server-timeout") || c.IsSet("server-retries") ||
			c.IsSet("load-adapter") || c.IsSet("unload-adapter")}
}

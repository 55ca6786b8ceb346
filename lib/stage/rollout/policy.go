package rollout

import (
	"fmt"
	"math"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/command"
)

// PolicyOptions are how a policy samples and what its context holds: the
// options rollout, evaluate --policy and audit reading share. They are
// declared once (PolicyFlags: name, type, default, help), read once
// (PolicyFrom) and checked once (check, and CheckGiven for the values
// a command gives).
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
}

// PolicyDefaults are the defaults of the policy options that differ from
// command to command.
type PolicyDefaults struct {
	// Temperature is --temperature's default where the checkpoint's
	// generation_config.json gives none: 1 for training rollouts,
	// EvalTemperature for evaluate and audit reading.
	Temperature float64
}

// The policy defaults of the commands: rollout samples at 1, evaluate and
// audit reading at EvalTemperature.
var (
	RolloutDefaults = PolicyDefaults{Temperature: 1}
	EvalDefaults    = PolicyDefaults{Temperature: EvalTemperature}
)

// PolicyFlags declares the policy options (PolicyOptions) with the
// command's defaults.
func PolicyFlags(d PolicyDefaults) []cli.Flag {
	return []cli.Flag{
		&cli.Float64Flag{Name: "temperature", Value: d.Temperature, Usage: fmt.Sprintf("sampling temperature (checkpoint policies; unset: the checkpoint's generation_config.json, else %g)", d.Temperature)},
		&cli.Float64Flag{Name: "top-p", Value: 1.0, Usage: "nucleus sampling mass (checkpoint policies; unset: the checkpoint's generation_config.json, else 1)"},
		&cli.IntFlag{Name: "top-k", Usage: "sample among the k most probable tokens only (checkpoint policies; unset: the checkpoint's generation_config.json, else 0: no cut)"},
		&cli.Float64Flag{Name: "repetition-penalty", Value: 1.0, Usage: "divide the logits of tokens already in the context by this (checkpoint policies; unset: the checkpoint's generation_config.json, else 1: none)"},
		&cli.BoolFlag{Name: "greedy", Usage: "pick the most likely token (checkpoint policies)"},
		&cli.StringFlag{Name: "prompt-format", Usage: "builtin or chatml; unset: the checkpoint's agent.json, else chatml for a checkpoint whose chat template has <|im_start|> (Qwen2/2.5/3), else builtin"},
		&cli.IntFlag{Name: "max-action-tokens", Usage: "tokens per answer (checkpoint policies); 0: 32 under builtin, 512 under chatml; unset: the checkpoint's agent.json, if it has one"},
		&cli.IntFlag{Name: "history", Usage: "turns an answer sees in full; older ones are replaced by one marker line; 0: the whole episode; unset: the checkpoint's agent.json, if it has one"},
		&cli.StringFlag{Name: "admissible", Value: "none", Usage: "the admissible actions each observation in the context lists after it: none, here (those that change something at the current place: no go to, look, examine or inventory) or all; unset: the checkpoint's agent.json, if it has one"},
		&cli.IntFlag{Name: "max-context", Value: 4096, Usage: "context limit in tokens; an episode stops there"},
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
		Greedy:          c.Bool("greedy"),
		PromptFormat:    c.String("prompt-format"),
		MaxActionTokens: c.Int("max-action-tokens"), MaxActionTokensSet: c.IsSet("max-action-tokens"),
		History: c.Int("history"), HistorySet: c.IsSet("history"),
		Admissible: c.String("admissible"), AdmissibleSet: c.IsSet("admissible"),
		MaxContext:  c.Int("max-context"),
		StepTimeout: c.Duration("step-timeout"),
	}
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
// lib/rollout (Options.check).
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

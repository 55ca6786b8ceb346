package play

import (
	"github.com/pats-rl/pats/lib/rollout"
	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/skill"
)

// The defaults of the episode options, named once; the commands' flags,
// the stages and the tests use these names, not the numbers.
const (
	// DefaultEnv is --env's default.
	DefaultEnv = "household"
	// DefaultGroup is --group's default: one episode per task.
	DefaultGroup = 1
	// DefaultSeed is --seed's default.
	DefaultSeed = 1
	// DefaultScaffoldBudget is --scaffold-budget's default, the token
	// budget of the rendered scaffold (validate show's --budget too).
	DefaultScaffoldBudget = scaffold.DefaultBudget
	// DefaultSlate is --slate's default, the candidates per skill slate.
	DefaultSlate = skill.DefaultSlateSize
	// DefaultBatch is --batch's default, the episodes of a checkpoint
	// policy that decode together.
	DefaultBatch = rollout.DefaultBatch
	// DefaultInvalidPenalty is --invalid-penalty's default, subtracted
	// from an episode's reward per answer without a well-formed action.
	DefaultInvalidPenalty = 0.1
	// DefaultMaxContext is --max-context's default, in tokens.
	DefaultMaxContext = 4096
	// DefaultAdmissible is --admissible's default.
	DefaultAdmissible = "none"
	// DefaultConcurrency is --concurrency's default: the episodes of a
	// server policy in flight at once.
	DefaultConcurrency = 16
	// DefaultHints and DefaultPreread are --hints' and --preread's.
	DefaultHints   = rollout.HintsNone
	DefaultPreread = rollout.PrereadNone
)

// TrainTemperature is the sampling temperature of training rollouts, and
// EvalTemperature that of evaluations (evaluate --policy, audit reading),
// where neither the flag nor the checkpoint's generation_config.json gives
// one: the published tables' 0.4 (verl-agent's validation setting).
const (
	TrainTemperature = 1.0
	EvalTemperature  = 0.4
)

// MaxEpisodes bounds the episodes of one run (tasks x group), so that a
// mistyped count is refused before memory for it is allocated.
const MaxEpisodes = 1 << 20

// MaxAnswerTokens is the longest answer of the chatml format's default
// (512 tokens), and DeviceObservationRoom the room a device decoder keeps
// for one observation past the context limit: on a device an episode that
// outgrows both ends as at the context limit.
const (
	MaxAnswerTokens       = 512
	DeviceObservationRoom = 1024
)

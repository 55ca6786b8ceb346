package env

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/pats-rl/pats/lib/remote"
)

// Splits every built-in environment provides.
const (
	SplitTrain       = "train"
	SplitValidSeen   = "valid_seen"
	SplitValidUnseen = "valid_unseen"
)

// Env is a family of tasks. It is safe for concurrent use: all per-episode
// state lives in the Episode that Reset returns.
type Env interface {
	// Name is the registry name, e.g. "household".
	Name() string
	// TaskTypes lists the task types in a fixed order.
	TaskTypes() []string
	// Splits lists the split names this environment offers.
	Splits() []string
	// Tasks lists the task ids of a split in a fixed order. An unknown
	// split is an error.
	Tasks(split string) ([]string, error)
	// Reset starts an episode of task id. The episode is a deterministic
	// function of (id, seed).
	Reset(id string, seed int64) (Episode, error)
	// Vocabulary lists the words that observations, goals and actions of
	// this environment use (lower case), for the built-in WordLevel tokenizer.
	Vocabulary() []string
	// Oracle returns a policy that solves every task using only what an
	// agent observes (goal, observations, admissible actions).
	Oracle() Agent
}

// Episode is one running episode.
type Episode interface {
	TaskID() string
	TaskType() string
	// Goal is the task text ("Your task is to: put some apple in fridge.").
	Goal() string
	// Observation is the first observation, before any step.
	Observation() string
	// Admissible lists the actions the environment accepts now (an agent may
	// still send anything; an invalid action gets the environment's invalid
	// response).
	Admissible() []string
	// Step applies one action.
	Step(action string) Step
	// MaxSteps is the step budget.
	MaxSteps() int
	// Features names what mattered in the episode so far, for evidence
	// cards: e.g. "action:heat", "object:apple", "failure:invalid_action",
	// "failure:loop", "failure:max_steps", "failure:wrong_object".
	Features() []string
}

// Step is the result of one action.
type Step struct {
	Observation string
	Reward      float64
	Done        bool
	Success     bool
	Score       float64 // in [0,1]; 1 on success
	Valid       bool    // false when the environment did not understand or could not do the action
	// Key is the anchor-state key of the state after the step, when the
	// environment names its own; "" keys the state by StateKey(Observation).
	Key string
}

// KeyedEpisode is an Episode whose environment names the anchor-state key
// of its first state (see Step.Key); "" means StateKey(Observation()).
type KeyedEpisode interface {
	InitialKey() string
}

// StateKey is the anchor-state key of a state the agent is shown as the
// observation text obs: the first 8 bytes of its SHA-256, in hex. Steps of
// a group's episodes that act from states with one key form a GiGPO step
// group (lib/rl).
func StateKey(obs string) string {
	h := sha256.Sum256([]byte(obs))
	return hex.EncodeToString(h[:8])
}

// InitialKey is the anchor-state key of an episode's first state.
func InitialKey(ep Episode) string {
	if k, ok := ep.(KeyedEpisode); ok {
		if key := k.InitialKey(); key != "" {
			return key
		}
	}
	return StateKey(ep.Observation())
}

// NextKey is the anchor-state key of the state after step st.
func NextKey(st Step) string {
	if st.Key != "" {
		return st.Key
	}
	return StateKey(st.Observation)
}

// Agent picks actions. Policies (oracle, random, checkpoints) implement it.
// An Agent instance serves one episode at a time; Start begins a new one.
type Agent interface {
	Start(goal, observation string, seed int64)
	Act(lastObservation string, admissible []string) string
}

var (
	mu       sync.Mutex
	registry = map[string]func() (Env, error){}
)

// Register makes an environment constructor available under name.
func Register(name string, ctor func() (Env, error)) {
	mu.Lock()
	defer mu.Unlock()
	registry[name] = ctor
}

// Open returns the environment called name ("exec:COMMAND" runs a child
// process; an http:// or https:// URL is an environment server).
func Open(name string) (Env, error) {
	return OpenWith(name, OpenOptions{})
}

// OpenOptions are the limits of the environments that run outside the
// process; each is ignored by the others.
type OpenOptions struct {
	Exec   ExecOptions   // exec:COMMAND
	Server ServerOptions // an environment server's URL
}

// OpenWith is Open with the limits of an exec: environment or an
// environment server.
func OpenWith(name string, o OpenOptions) (Env, error) {
	mu.Lock()
	ctor, ok := registry[name]
	mu.Unlock()
	if ok {
		return ctor()
	}
	switch {
	case strings.HasPrefix(name, "exec:") && o.Exec.Workers > 1:
		return openExecPool(name[5:], o.Exec.Workers, o.Exec)
	case strings.HasPrefix(name, "exec:"):
		return OpenExecWith(name[5:], o.Exec)
	case remote.IsURL(name):
		return OpenServer(name, o.Server)
	}
	return nil, fmt.Errorf("unknown environment %q (known: %v, exec:COMMAND or a server's http:// URL)", name, Names())
}

// Names lists the registered environments.
func Names() []string {
	mu.Lock()
	defer mu.Unlock()
	var out []string
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Package counterenv is a tiny deterministic environment for testing the
// env machinery (the exec protocol, agents): the agent must bring a number
// to a target with "inc" and "dec". It is not registered; tests and the
// envserve helper construct it with New.
package counterenv

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/toolcall"
)

// MaxSteps is the step budget of every episode.
const MaxSteps = 12

// Env is the counter environment. Task ids are "up-T" and "down-T": reach
// target T from a start above (down) or below (up) it.
type Env struct{}

// New returns the environment.
func New() *Env { return &Env{} }

var splits = map[string][]string{
	env.SplitTrain:       {"up-3", "up-5", "down-2", "down-4", "up-7"},
	env.SplitValidSeen:   {"up-4", "down-6"},
	env.SplitValidUnseen: {"up-9", "down-1"},
}

func (*Env) Name() string        { return "counter" }
func (*Env) TaskTypes() []string { return []string{"up", "down"} }
func (*Env) Splits() []string {
	return []string{env.SplitTrain, env.SplitValidSeen, env.SplitValidUnseen}
}

func (*Env) Tasks(split string) ([]string, error) {
	t, ok := splits[split]
	if !ok {
		return nil, fmt.Errorf("counter: unknown split %q", split)
	}
	return append([]string(nil), t...), nil
}

func (*Env) Vocabulary() []string {
	return []string{"your", "task", "is", "to", ":", "make", "the", "number", ".", "inc", "dec", "look",
		"nothing", "happens", "you", "reached", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}
}

func (*Env) Oracle() env.Agent { return &oracle{} }

// Reset starts task id. The start is target + d (down) or target - d (up)
// with d in [1, 4] drawn from seed.
func (*Env) Reset(id string, seed int64) (env.Episode, error) {
	typ, ts, ok := strings.Cut(id, "-")
	target, err := strconv.Atoi(ts)
	if !ok || err != nil || (typ != "up" && typ != "down") {
		return nil, fmt.Errorf("counter: unknown task %q", id)
	}
	rng := rand.New(rand.NewPCG(uint64(seed), uint64(target)))
	d := 1 + rng.IntN(4)
	start := target - d
	if typ == "down" {
		start = target + d
	}
	return &episode{id: id, typ: typ, target: target, n: start}, nil
}

type episode struct {
	id, typ   string
	target, n int
	steps     int
	done      bool
	features  []string
}

func (e *episode) TaskID() string   { return e.id }
func (e *episode) TaskType() string { return e.typ }
func (e *episode) Goal() string     { return fmt.Sprintf("Your task is to: make the number %d.", e.target) }
func (e *episode) Observation() string {
	return fmt.Sprintf("The number is %d.", e.n)
}
func (e *episode) MaxSteps() int { return MaxSteps }
func (e *episode) Admissible() []string {
	if e.done {
		return nil
	}
	return []string{"inc", "dec", "look"}
}
func (e *episode) Features() []string { return append([]string(nil), e.features...) }

func (e *episode) feature(f string) {
	for _, g := range e.features {
		if g == f {
			return
		}
	}
	e.features = append(e.features, f)
}

func (e *episode) Step(action string) env.Step {
	if e.done {
		return env.Step{Observation: "Nothing happens.", Done: true}
	}
	e.steps++
	st := env.Step{Valid: true}
	switch action {
	case "inc":
		e.n++
		e.feature("action:inc")
	case "dec":
		e.n--
		e.feature("action:dec")
	case "look":
	default:
		st.Valid = false
		e.feature("failure:invalid_action")
	}
	st.Observation = e.Observation()
	if !st.Valid {
		st.Observation = "Nothing happens."
	}
	if e.n == e.target {
		st.Observation = fmt.Sprintf("You reached %d.", e.n)
		st.Done, st.Success, st.Score, st.Reward = true, true, 1, 1
	} else if e.steps >= MaxSteps {
		st.Done = true
		e.feature("failure:max_steps")
	}
	if !st.Success {
		// Partial credit: closeness to the target, in [0, 1).
		st.Score = 1 / float64(2+abs(e.n-e.target))
	}
	e.done = st.Done
	return st
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// oracle reads the target from the goal and the number from the last
// observation.
type oracle struct{ target, n int }

func lastInt(s string) int {
	f := strings.FieldsFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.Atoi(f[len(f)-1])
	return v
}

func (o *oracle) Start(goal, observation string, seed int64) {
	o.target, o.n = lastInt(goal), lastInt(observation)
}

func (o *oracle) Act(last string, admissible []string) string {
	if strings.HasPrefix(last, "The number is") {
		o.n = lastInt(last)
	}
	switch {
	case o.n < o.target:
		o.n++
		return "inc"
	case o.n > o.target:
		o.n--
		return "dec"
	}
	return "look"
}

// WithTools is an environment that declares the counter's actions as
// tools (env.ToolDeclarer): inc, dec and look, and step, whose call is
// sent as its JSON (a tool without an action text).
type WithTools struct{ env.Env }

// Tools implements env.ToolDeclarer.
func (WithTools) Tools() []toolcall.Tool {
	return []toolcall.Tool{
		{Name: "inc", Description: "Add one.", Action: "inc"},
		{Name: "dec", Description: "Take one away.", Action: "dec"},
		{Name: "look", Description: "Look at the number.", Action: "look"},
		{Name: "step", Description: "Move by some.", Parameters: []byte(`{"type": "object", "properties": {"by": {"type": "integer"}}, "required": ["by"]}`)},
	}
}

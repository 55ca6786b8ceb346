package household

import (
	"fmt"

	"github.com/pats-rl/pats/lib/env"
)

// Names of the two worlds.
const (
	// Name is the common-sense world (the base's pretraining world).
	Name = "household"
	// NameRL is the same tasks in a house with its own conventions
	// (Conventions): the world where reading a rule pays.
	NameRL = "household-rl"
)

func init() {
	env.Register(Name, func() (env.Env, error) { return New(), nil })
	env.Register(NameRL, func() (env.Env, error) { return NewRL(), nil })
}

// New returns the household environment. It holds no state: tasks are
// derived from their ids on demand, so it is safe for concurrent use.
func New() env.Env { return household{} }

// NewRL returns household-rl: the tasks, splits and rooms of household, in
// a house that keeps each type's goal objects at one kind of receptacle and
// heats with the stoveburner (Conventions).
func NewRL() env.Env { return household{rl: true} }

type household struct{ rl bool }

func (h household) Name() string { return prefix(h.rl) }

func (household) TaskTypes() []string { return append([]string(nil), taskTypes...) }

func (household) Splits() []string {
	return []string{env.SplitTrain, env.SplitValidSeen, env.SplitValidUnseen}
}

func (h household) Tasks(split string) ([]string, error) { return tasks(h.rl, split) }

// Reset starts task id. The room depends on id only: every seed gives the
// same episode, so the episodes of a rollout group face the same room.
func (h household) Reset(id string, seed int64) (env.Episode, error) {
	s, err := h.spec(id)
	if err != nil {
		return nil, err
	}
	return newEpisode(s, generate(s)), nil
}

func (household) Vocabulary() []string { return vocabulary() }

func (household) Oracle() env.Agent { return NewOracle() }

// spec derives a task of this world; an id of the other world is an error.
func (h household) spec(id string) (*taskSpec, error) {
	s, err := specFor(id)
	if err != nil {
		return nil, err
	}
	if s.conv != nil != h.rl {
		return nil, fmt.Errorf("%s: task id %q belongs to %s", h.Name(), id, prefix(!h.rl))
	}
	return s, nil
}

func (h household) Hints(id string) (env.Hints, error) {
	s, err := h.spec(id)
	if err != nil {
		return env.Hints{}, err
	}
	return hints(s, generate(s)), nil
}

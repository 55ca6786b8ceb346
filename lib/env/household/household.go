package household

import (
	"fmt"
	"strings"

	"github.com/pats-rl/pats/lib/env"
)

// Names of the worlds.
const (
	// Name is the common-sense world (the base's pretraining world).
	Name = "household"
	// NameRL is the same tasks in a house with its own conventions
	// (Conventions): the world where reading a rule pays.
	NameRL = "household-rl"
	// NameDrawn is the same tasks with conventions drawn per task
	// (drawConventions): a pretraining world where the rules about a task
	// decide where its objects are and what heats, without a type-level
	// regularity a policy could learn instead of reading.
	NameDrawn = "household-drawn"
	// NameRLLarge is household-rl in large rooms (largeRoomKinds: up to 36
	// receptacles, 22 of them closed), where a search without knowledge
	// can take more than the step budget.
	NameRLLarge = "household-rl-large"
	// NameDrawnLarge is household-drawn in large rooms: the pretraining
	// world of a base meant for household-rl-large.
	NameDrawnLarge = "household-drawn-large"
	// NameDrawnPlaces is household-drawn-large with the kept kind drawn
	// by receptacle rather than by kind (drawConventions): a kind the
	// room repeats (cabinets, drawers) keeps the goal objects as often as
	// its receptacles are many, so a search through many closed
	// receptacles of one kind is as common in its episodes as in a large
	// house.
	NameDrawnPlaces = "household-drawn-places"
)

func init() {
	env.Register(Name, func() (env.Env, error) { return New(), nil })
	env.Register(NameRL, func() (env.Env, error) { return NewRL(), nil })
	env.Register(NameDrawn, func() (env.Env, error) { return NewDrawn(), nil })
	env.Register(NameRLLarge, func() (env.Env, error) { return NewRLLarge(), nil })
	env.Register(NameDrawnLarge, func() (env.Env, error) { return NewDrawnLarge(), nil })
	env.Register(NameDrawnPlaces, func() (env.Env, error) { return NewDrawnPlaces(), nil })
}

// New returns the household environment. It holds no state: tasks are
// derived from their ids on demand, so it is safe for concurrent use.
func New() env.Env { return household{} }

// NewRL returns household-rl: the tasks, splits and rooms of household, in
// a house that keeps each type's goal objects at one kind of receptacle and
// heats with the stoveburner (Conventions).
func NewRL() env.Env { return household{kind: worldRL} }

// NewDrawn returns household-drawn: the tasks, splits and rooms of
// household, where each task keeps its goal objects at a receptacle kind
// drawn for it and heats with an appliance drawn for it (drawConventions).
// Its right rules and its right skills' bodies state the task's draws.
func NewDrawn() env.Env { return household{kind: worldDrawn} }

// NewRLLarge returns household-rl-large: household-rl's tasks, splits,
// room kinds and conventions in large rooms (largeRoomKinds).
func NewRLLarge() env.Env { return household{kind: worldRLLarge} }

// NewDrawnLarge returns household-drawn-large: household-drawn's tasks,
// splits, room kinds and drawn conventions in large rooms.
func NewDrawnLarge() env.Env { return household{kind: worldDrawnLarge} }

// NewDrawnPlaces returns household-drawn-places: household-drawn-large's
// tasks, splits, rooms and heating draws, with each task's kept kind drawn
// with a weight of the most receptacles of that kind its large room
// template holds.
func NewDrawnPlaces() env.Env { return household{kind: worldDrawnPlaces} }

type household struct{ kind worldKind }

func (h household) Name() string { return prefix(h.kind) }

func (household) TaskTypes() []string { return append([]string(nil), taskTypes...) }

func (household) Splits() []string {
	return []string{env.SplitTrain, env.SplitValidSeen, env.SplitValidUnseen}
}

func (h household) Tasks(split string) ([]string, error) { return tasks(h.kind, split) }

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
	if s.world != h.kind {
		return nil, fmt.Errorf("%s: task id %q belongs to %s", h.Name(), id, prefix(s.world))
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

// RightBody implements env.BodyStater. In household-drawn a right skill's
// body states the task's draws in the words of household-rl's right skills:
// its first step becomes StepLookFirst with the kind that keeps the goal
// objects, and for heating "microwave 1" becomes the appliance that heats.
// The other worlds' bodies are their libraries' own.
func (h household) RightBody(id, body string) string {
	s, err := h.spec(id)
	if err != nil || s.world.conventions() != worldDrawn {
		return body
	}
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "1. ") && s.keep != "" {
			lines[i] = "1. " + fmt.Sprintf(StepLookFirst, s.keep)
			break
		}
	}
	body = strings.Join(lines, "\n")
	if s.c.typ == TypeHeat && s.heatKind() != applianceHeat {
		body = strings.ReplaceAll(body, applianceHeat+" 1", s.heatKind()+" 1")
	}
	return body
}

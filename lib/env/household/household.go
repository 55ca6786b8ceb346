package household

import (
	"github.com/pats-rl/pats/lib/env"
)

func init() {
	env.Register("household", func() (env.Env, error) { return New(), nil })
}

// New returns the household environment. It holds no state: tasks are
// derived from their ids on demand, so it is safe for concurrent use.
func New() env.Env { return household{} }

type household struct{}

func (household) Name() string { return "household" }

func (household) TaskTypes() []string { return append([]string(nil), taskTypes...) }

func (household) Splits() []string {
	return []string{env.SplitTrain, env.SplitValidSeen, env.SplitValidUnseen}
}

func (household) Tasks(split string) ([]string, error) { return tasks(split) }

// Reset starts task id. The room depends on id only: every seed gives the
// same episode, so the episodes of a rollout group face the same room.
func (household) Reset(id string, seed int64) (env.Episode, error) {
	s, err := specFor(id)
	if err != nil {
		return nil, err
	}
	return newEpisode(s, generate(s)), nil
}

func (household) Vocabulary() []string { return vocabulary() }

func (household) Oracle() env.Agent { return NewOracle() }

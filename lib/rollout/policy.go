package rollout

import (
	"github.com/pats-rl/pats/lib/agent"
	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/policy"
)

// Policy drives the episodes of a rollout.
type Policy interface {
	// Name is what trajectories record in their policy column.
	Name() string
	// NewEpisode returns the driver of one episode. Episodes of one group
	// share groupKey and their whole prompt, so a policy may compute the
	// prompt once per group.
	NewEpisode(groupKey string, seed int64) Driver
}

// Driver writes the actions of one episode.
type Driver interface {
	// Act appends the next answer to c (its tokens, roles and behaviour
	// log-probabilities, ending with an end token of c's format unless it
	// was cut) and returns its text, which c's format parses into the
	// action (builtin: the whole text). c holds everything the policy has
	// seen so far, ending with the action cue.
	Act(c *agent.Context, ep env.Episode, readSkill string) (string, error)
}

// TextPolicy adapts an env.Agent (oracle, random) that writes action text.
// Its tokens get behaviour log-probability 0. When readSkill is set (skills
// on), the first action reads that skill.
type TextPolicy struct {
	PolicyName string
	New        func() env.Agent
}

// Name implements Policy.
func (p TextPolicy) Name() string { return p.PolicyName }

// NewEpisode implements Policy.
func (p TextPolicy) NewEpisode(_ string, seed int64) Driver {
	return &textDriver{agent: p.New(), seed: seed}
}

type textDriver struct {
	agent   env.Agent
	seed    int64
	started bool
	read    bool
	lastObs string
}

func (d *textDriver) Act(c *agent.Context, ep env.Episode, readSkill string) (string, error) {
	if !d.started {
		d.agent.Start(ep.Goal(), ep.Observation(), d.seed)
		d.started = true
		d.lastObs = ep.Observation()
	}
	var action string
	if readSkill != "" && !d.read {
		d.read = true
		action = agent.ReadVerb + " " + readSkill
	} else {
		action = d.agent.Act(d.lastObs, ep.Admissible())
	}
	return agent.AddAnswer(c, action), nil
}

// observe tells a text driver what the environment answered; other drivers
// read it from the context.
func observe(d Driver, obs string) {
	if t, ok := d.(*textDriver); ok {
		t.lastObs = obs
	}
}

// CheckpointPolicy drives episodes with a model checkpoint.
type CheckpointPolicy struct{ *policy.Checkpoint }

// NewEpisode implements Policy.
func (p CheckpointPolicy) NewEpisode(groupKey string, seed int64) Driver {
	return p.Checkpoint.NewEpisode(groupKey, seed)
}

// BatchPolicy is a Policy whose episodes decode together: Run starts
// participants workers and each calls retire once when it takes no more
// episodes.
type BatchPolicy interface {
	Policy
	BeginBatch(participants int) (retire func())
}

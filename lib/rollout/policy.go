package rollout

import (
	"context"
	"github.com/pats-rl/pats/lib/agent"
	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/policy"
	"github.com/pats-rl/pats/lib/tokenizer"
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
	Act(ctx context.Context, c *agent.Context, ep env.Episode, readSkill string) (string, error)
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

// Tokenizer is nil: a text policy's actions are written with the run's
// tokenizer (Options.Tok).
func (TextPolicy) Tokenizer() tokenizer.Tokenizer { return nil }

// Folder is "": a text policy has no checkpoint folder.
func (TextPolicy) Folder() string { return "" }

// EndTokens is nil: a text policy ends its answers with the format's own.
func (TextPolicy) EndTokens() []int32 { return nil }

// SetAnswerCap does nothing: a text policy writes whole actions.
func (TextPolicy) SetAnswerCap(int) {}

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
	texts   []string // rules and skill bodies to give a Reader at Start
}

func (d *textDriver) Act(_ context.Context, c *agent.Context, ep env.Episode, readSkill string) (string, error) {
	if !d.started {
		d.agent.Start(ep.Goal(), ep.Observation(), d.seed)
		d.started = true
		d.lastObs = ep.Observation()
		if r, ok := d.agent.(env.Reader); ok {
			for _, t := range d.texts {
				r.Read(t)
			}
		}
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

// forcedDriver writes a fixed first action, then leaves the episode to
// the driver it wraps (Options.FirstRead).
type forcedDriver struct {
	Driver
	first string
	done  bool
}

func (d *forcedDriver) Act(ctx context.Context, c *agent.Context, ep env.Episode, readSkill string) (string, error) {
	if !d.done {
		d.done = true
		return agent.AddAnswer(c, d.first), nil
	}
	return d.Driver.Act(ctx, c, ep, readSkill)
}

// unwrap returns the driver under a forcedDriver.
func unwrap(d Driver) Driver {
	if f, ok := d.(*forcedDriver); ok {
		return f.Driver
	}
	return d
}

// observe tells a text driver what the environment answered; other drivers
// read it from the context.
func observe(d Driver, obs string) {
	if t, ok := unwrap(d).(*textDriver); ok {
		t.lastObs = obs
	}
}

// readText gives a text driver's agent a text that entered the context (a
// scaffold, a skill body) when it follows rules (env.Reader); before its
// first action the text waits for Start. Other drivers read the context.
func readText(d Driver, text string) {
	t, ok := unwrap(d).(*textDriver)
	if !ok || text == "" {
		return
	}
	if !t.started {
		t.texts = append(t.texts, text)
		return
	}
	if r, ok := t.agent.(env.Reader); ok {
		r.Read(text)
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

// ServedPolicy drives episodes with a policy played by an inference server
// (policy.Served); Options.Workers bounds the episodes in flight.
type ServedPolicy struct{ *policy.Served }

// NewEpisode implements Policy.
func (p ServedPolicy) NewEpisode(groupKey string, seed int64) Driver {
	return p.Served.NewEpisode(groupKey, seed)
}

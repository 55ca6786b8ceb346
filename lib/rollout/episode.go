package rollout

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/pats-rl/pats/lib/agent"
	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// episode plays one episode; a cancelled ctx ends it before its next turn
// (an interrupted command stops within one action, not one episode). Its
// steps: the row's fixed fields (newTrajectory), the prompt and the slate
// (prompt), the context and the policy's driver with what they read before
// the first action (begin), the turns (play.loop), and the outcome
// (play.finish).
func episode(ctx context.Context, o Options, taskID string, sample int) (table.Trajectory, error) {
	seed := EpisodeSeed(o.Seed, taskID, sample)
	ep, err := o.Env.Reset(taskID, seed)
	if err != nil {
		return table.Trajectory{}, fmt.Errorf("%s: reset %s: %w", o.Env.Name(), taskID, err)
	}
	tr := newTrajectory(o, ep, taskID, sample, seed)
	p, firstRead, err := prompt(o, ep, taskID, seed, &tr)
	if err != nil {
		return table.Trajectory{}, err
	}
	pl := begin(o, ep, taskID, seed, p, &tr)
	if err := pl.loop(ctx, sample, firstRead); err != nil {
		return table.Trajectory{}, err
	}
	return pl.finish(sample)
}

// newTrajectory is the row of an episode before its first turn: what
// identifies it, the policy and its sampling, the goal and the first
// observation, and empty lists for what the turns add.
func newTrajectory(o Options, ep env.Episode, taskID string, sample int, seed int64) table.Trajectory {
	tr := table.Trajectory{
		Run: o.Run, Iteration: int32(o.Iteration), Env: o.Env.Name(), Split: o.Split,
		TaskID: taskID, TaskType: ep.TaskType(), GroupID: GroupID(o.Iteration, taskID),
		Sample: int32(sample), Seed: seed, Policy: o.Policy.Name(), Goal: tokenizer.ValidUTF8(ep.Goal()),
		Tokenizer: o.Tok.Hash(), PolicyHash: o.PolicyHash,
		Actions: []string{}, Observations: []string{tokenizer.ValidUTF8(ep.Observation())},
		Slate: []string{}, Reads: []string{}, ReadsRight: []bool{}, ReadsMisleading: []bool{},
		ReadsOutcome: []string{}, ReadTurns: []int32{},
		StepKeys: []string{}, StepRewards: []float64{},
	}
	if o.PolicyHash != "" {
		// A checkpoint: its sampling rule. Other policies draw no
		// tokens from a model and leave the columns NULL.
		t, p, r, k := short(o.Sampling.Temperature), short(o.Sampling.TopP), short(o.Sampling.RepetitionPenalty), int32(o.Sampling.TopK)
		tr.Temperature, tr.TopP, tr.RepetitionPenalty, tr.TopK = &t, &p, &r, &k
	}
	return tr
}

// prompt is the episode's prompt: goal and first observation, the
// scaffold and any hint, and the group's slate (recorded in tr, with the
// scaffold's version). firstRead is the skill a text policy reads first
// (Options.TextRead).
func prompt(o Options, ep env.Episode, taskID string, seed int64, tr *table.Trajectory) (p agent.Prompt, firstRead string, err error) {
	p = agent.Prompt{Goal: ep.Goal(), Observation: shownObservation(o, ep, ep.Observation())}
	if o.Scaffold != nil {
		p.Scaffold = o.Scaffold(ep.TaskType())
		v := int32(o.ScaffoldVersion)
		tr.ScaffoldVersion = &v
	}
	if o.Hint != nil {
		if h := o.Hint(taskID); h != "" && p.Scaffold != "" {
			p.Scaffold += "\n" + h
		} else if h != "" {
			p.Scaffold = h
		}
	}
	slate, err := groupSlate(o, taskID, ep.TaskType())
	if err != nil {
		return agent.Prompt{}, "", err
	}
	for _, s := range slate {
		p.Slate = append(p.Slate, agent.SlateEntry{Name: s.Name, Description: s.Description})
		tr.Slate = append(tr.Slate, s.Name)
		if firstRead == "" && o.Skills.IsRight(s.Name, ep.TaskType()) {
			firstRead = s.Name
		}
	}
	switch DefaultTextRead(o.TextRead, o.Policy.Name()) {
	case "none":
		firstRead = ""
	case "random":
		if len(slate) > 0 {
			firstRead = slate[uint64(seed)%uint64(len(slate))].Name
		}
	}
	return p, firstRead, nil
}

// play is an episode being played: its row, its context, the policy's
// driver, and what the turns have added up so far.
type play struct {
	o      Options
	ep     env.Episode
	taskID string
	tr     *table.Trajectory
	c      *agent.Context
	drv    Driver

	success                       bool
	score, reward                 float64
	steps, turns, invalid, served int
	limited                       bool // the context limit ended the episode
	// key is the anchor-state key of the environment state the next turn
	// acts from: a skill read leaves the state (and the key) as it was.
	key string
}

// begin writes the prompt into a new context and starts the policy's
// driver (forced to read Options.FirstRead's skill first, when set), then
// puts in what is read before the first action: the scaffold, a preread
// skill body and a hint body.
func begin(o Options, ep env.Episode, taskID string, seed int64, p agent.Prompt, tr *table.Trajectory) *play {
	c := agent.NewContext(o.Tok)
	c.Format = o.Format
	c.History = o.History
	agent.Begin(c, p)
	drv := o.Policy.NewEpisode(tr.GroupID, seed)
	if o.FirstRead != nil && o.Skills != nil {
		if name := o.FirstRead(ep.TaskType(), tr.Slate); name != "" {
			drv = &forcedDriver{Driver: drv, first: agent.ReadVerb + " " + name}
		}
	}
	readText(drv, p.Scaffold)
	if o.Preread != nil {
		if body := o.Preread(taskID, ep.TaskType()); body != "" {
			agent.SkillBody(c, body)
			readText(drv, body)
		}
	}
	if o.HintBody != nil {
		if body := o.HintBody(taskID); body != "" {
			agent.SkillBody(c, body)
			readText(drv, body)
		}
	}
	return &play{o: o, ep: ep, taskID: taskID, tr: tr, c: c, drv: drv, key: env.InitialKey(ep)}
}

// loop plays turns until the episode is done, its step budget or turn
// budget (steps and MaxReads reads) is spent, or the context limit is
// reached. Each turn is an invalid answer, a skill read or a step.
func (pl *play) loop(ctx context.Context, sample int, firstRead string) error {
	maxTurns := pl.ep.MaxSteps() + MaxReads
	for pl.steps < pl.ep.MaxSteps() && pl.turns < maxTurns {
		if err := ctx.Err(); err != nil {
			return err
		}
		if pl.o.MaxContext > 0 && seen(pl.c) >= pl.o.MaxContext {
			pl.limited = true
			break
		}
		answer, err := pl.drv.Act(ctx, pl.c, pl.ep, firstRead)
		if errors.Is(err, agent.ErrContextLimit) {
			pl.limited = true
			break
		}
		if err != nil {
			return fmt.Errorf("%s sample %d: %w", pl.taskID, sample, err)
		}
		pl.turns++
		action, ok := pl.c.Parse(answer)
		if !ok {
			pl.invalidAnswer(answer)
			continue
		}
		action = tokenizer.ValidUTF8(action)
		pl.tr.Actions = append(pl.tr.Actions, action)
		pl.tr.StepKeys = append(pl.tr.StepKeys, pl.key)
		pl.tr.StepRewards = append(pl.tr.StepRewards, 0)
		if name, isRead := agent.ParseRead(action); isRead {
			if pl.o.Skills != nil {
				pl.read(name)
				continue
			}
			pl.c.NotRead() // no slate: an action like any other
		}
		if pl.step(action) {
			break
		}
	}
	// A step the environment failed to answer (an exec: child that
	// crashed or missed --step-timeout) fails the run, as the same
	// failure at reset does: the episode is not a played one.
	if e, ok := pl.ep.(interface{ Err() error }); ok {
		if err := e.Err(); err != nil {
			return fmt.Errorf("%s sample %d: %w", pl.taskID, sample, err)
		}
	}
	return nil
}

// invalidAnswer records an answer without a well-formed action: the
// environment sees no step (the state and its key stay); the whole answer
// is recorded, and the turn's step reward is the penalty.
func (pl *play) invalidAnswer(answer string) {
	tr := pl.tr
	pl.invalid++
	tr.Actions = append(tr.Actions, tokenizer.ValidUTF8(answer))
	tr.StepKeys = append(tr.StepKeys, pl.key)
	tr.StepRewards = append(tr.StepRewards, -pl.o.InvalidPenalty)
	reply := agent.InvalidText(pl.c)
	tr.Observations = append(tr.Observations, reply)
	observe(pl.drv, reply)
	agent.Invalid(pl.c)
}

// read answers a read action. Every read action is recorded with its
// outcome: a body served, a name not on the slate, or a read after
// MaxReads bodies were served (both answered InvalidRead).
func (pl *play) read(name string) {
	o, tr, ep := pl.o, pl.tr, pl.ep
	obs, outcome := InvalidRead, table.ReadUnknown
	onSlate := false
	for _, s := range tr.Slate {
		onSlate = onSlate || s == name
	}
	sk, known := o.Skills.Get(name)
	switch {
	case pl.served >= MaxReads:
		outcome = table.ReadOverLimit
	case known && onSlate:
		outcome, obs = table.ReadServed, sk.Body
		pl.served++
		if bs, ok := o.Env.(env.BodyStater); ok && o.Skills.IsRight(name, ep.TaskType()) {
			obs = bs.RightBody(pl.taskID, obs)
		}
	}
	tr.Reads = append(tr.Reads, tokenizer.ValidUTF8(name))
	tr.ReadsOutcome = append(tr.ReadsOutcome, outcome)
	tr.ReadTurns = append(tr.ReadTurns, int32(len(tr.Actions)-1))
	tr.ReadsRight = append(tr.ReadsRight, onSlate && o.Skills.IsRight(name, ep.TaskType()))
	tr.ReadsMisleading = append(tr.ReadsMisleading, onSlate && o.Skills.IsMisleading(name, ep.TaskType()))
	tr.Observations = append(tr.Observations, tokenizer.ValidUTF8(obs))
	observe(pl.drv, obs)
	if outcome != table.ReadServed {
		agent.Observe(pl.c, obs)
	} else {
		agent.SkillBody(pl.c, obs)
		readText(pl.drv, obs)
	}
}

// step sends action to the environment and records its answer; it reports
// whether the episode is done.
func (pl *play) step(action string) (done bool) {
	tr := pl.tr
	st := pl.ep.Step(action)
	pl.steps++
	tr.Observations = append(tr.Observations, tokenizer.ValidUTF8(st.Observation))
	pl.reward += st.Reward
	tr.StepRewards[len(tr.StepRewards)-1] = st.Reward
	pl.key = env.NextKey(st)
	if st.Done {
		pl.success, pl.score = st.Success, st.Score
		return true
	}
	observe(pl.drv, st.Observation)
	agent.Observe(pl.c, shownObservation(pl.o, pl.ep, st.Observation))
	return false
}

// finish completes the row: the reward less the invalid answers' penalty
// (which must be finite) and the score (in [0, 1]), the outcome, the
// features and failure mode, and the context's tokens, roles and
// log-probabilities.
func (pl *play) finish(sample int) (table.Trajectory, error) {
	o, ep, c, tr := pl.o, pl.ep, pl.c, pl.tr
	success, score, reward, steps, invalid := pl.success, pl.score, pl.reward, pl.steps, pl.invalid
	if invalid > 0 {
		reward -= o.InvalidPenalty * float64(invalid)
	}
	if math.IsNaN(reward) || math.IsInf(reward, 0) {
		return *tr, &table.InputError{Path: o.Env.Name(), Problem: fmt.Sprintf("task %s sample %d: the episode's reward %v is not finite (step rewards must add up to a finite number)", pl.taskID, sample, reward)}
	}
	if !(score >= 0 && score <= 1) {
		return *tr, &table.InputError{Path: o.Env.Name(), Problem: fmt.Sprintf("task %s sample %d: score %v is not in [0, 1]", pl.taskID, sample, score)}
	}
	tr.Success, tr.Score, tr.Reward, tr.Steps, tr.Invalid = success, score, reward, int32(steps), int32(invalid)
	tr.Features = append([]string{}, ep.Features()...)
	if pl.limited {
		tr.Features = append(tr.Features, table.FailureFeature("context_limit"))
	}
	if invalid > 0 {
		tr.Features = append(tr.Features, table.FailureFeature("invalid_answer"))
	}
	sort.Strings(tr.Features)
	if !success {
		tr.FailureMode = FailureMode(tr.Features, steps >= ep.MaxSteps())
	}
	tr.Tokens, tr.Roles, tr.Logprobs = c.Tokens, c.Roles, c.Logprobs
	tr.NTokens = int32(c.Len())
	tr.NPolicyTokens = int32(c.PolicyTokens())
	tr.NScaffoldTokens = int32(c.Count(func(r int8) bool { return r == table.RoleScaffold }))
	if o.History > 0 {
		recordWindow(tr, c)
	}
	return *tr, nil
}

package rl

import (
	"fmt"
	"math"

	"github.com/pats-rl/pats/lib/table"
)

// Input checks. Each returns a one-line *table.InputError naming the file
// and the episode, so commands exit 2 and write nothing.

func episodeName(r *table.Trajectory) string {
	return fmt.Sprintf("episode %s sample %d", r.GroupID, r.Sample)
}

// CheckTokens checks the token columns of trajectories read from path
// against a tokenizer (its Hash) and a model (vocabulary size, longest
// sequence): tokenizer hash, one role per token, one log-probability per
// token, ids inside the vocabulary, and at least one policy-written token.
// Without a history window an episode's tokens up to its last
// policy-written one must fit the model's positions; tokens after it (the
// environment's reply to the last answer) are cut before training
// (CutTail).
func CheckTokens(path string, rows []table.Trajectory, tokHash string, vocab, maxLen int) error {
	for i := range rows {
		r := &rows[i]
		bad := func(format string, a ...any) error {
			return &table.InputError{Path: path, Problem: episodeName(r) + ": " + fmt.Sprintf(format, a...)}
		}
		if r.Tokenizer != tokHash {
			return bad("made with tokenizer %s, the model's is %s (roll out with this model's tokenizer)", short(r.Tokenizer), short(tokHash))
		}
		if len(r.Roles) != len(r.Tokens) {
			return bad("%d roles for %d tokens", len(r.Roles), len(r.Tokens))
		}
		if len(r.Logprobs) != len(r.Tokens) {
			return bad("%d logprobs for %d tokens", len(r.Logprobs), len(r.Tokens))
		}
		if Windowed(r) || len(r.TurnAt) > 0 || r.History < 0 {
			// A history window: each answer's own context must fit.
			if p := checkWindow(r, vocab, maxLen); p != "" {
				return bad("%s", p)
			}
		} else if e := ScoredEnd(r.Roles); e > maxLen {
			// Tokens after the last answer are cut before training (CutTail).
			return bad("%d tokens up to the last policy-written one exceed the model's %d positions", e, maxLen)
		}
		n := 0
		for t, id := range r.Tokens {
			if id < 0 || int(id) >= vocab {
				return bad("token id %d at position %d outside the model's vocabulary of %d", id, t, vocab)
			}
			if table.PolicyWritten(r.Roles[t]) {
				if t == 0 {
					return bad("policy-written token at position 0 has no context")
				}
				n++
			}
		}
		if n == 0 {
			return bad("no policy-written tokens")
		}
	}
	return nil
}

// CheckGRPO checks what GRPO needs beyond CheckTokens: finite rewards,
// groups of at least two episodes, and behaviour log-probabilities from a
// model (finite, <= 0, and not all 0 on an episode's policy-written tokens,
// which is what a text policy such as oracle or random records). paths[i]
// names the file row i was read from.
func CheckGRPO(rows []table.Trajectory, paths []string) error {
	size := map[string]int{}
	for i := range rows {
		size[rows[i].GroupID]++
	}
	type key struct {
		group  string
		sample int32
	}
	first := map[key]int{}
	for i := range rows {
		r := &rows[i]
		bad := func(format string, a ...any) error {
			return &table.InputError{Path: paths[i], Problem: episodeName(r) + ": " + fmt.Sprintf(format, a...)}
		}
		k := key{r.GroupID, r.Sample}
		if j, ok := first[k]; ok {
			return bad("appears twice (also in %s): one episode per (group_id, sample); to pool rollouts use report mix", paths[j])
		}
		first[k] = i
		if math.IsNaN(r.Reward) || math.IsInf(r.Reward, 0) {
			return bad("reward %v is not finite", r.Reward)
		}
		if size[r.GroupID] < 2 {
			return bad("group of one episode has no relative advantage (roll out groups of 2 episodes or more)")
		}
		if r.Policy == "oracle" || r.Policy == "random" {
			return bad("policy %s records no behaviour log-probabilities (GRPO needs a checkpoint's rollouts)", r.Policy)
		}
		allZero := true
		for t, lp := range r.Logprobs {
			if !table.PolicyWritten(r.Roles[t]) {
				continue
			}
			if math.IsNaN(float64(lp)) || math.IsInf(float64(lp), 0) || lp > 0 {
				return bad("behaviour log-probability %v at position %d is not a log-probability", lp, t)
			}
			allZero = allZero && lp == 0
		}
		if allZero {
			return bad("missing behaviour log-probabilities (all 0 on policy-written tokens)")
		}
	}
	return nil
}

func short(h string) string {
	if h == "" {
		return "(none)"
	}
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// CheckSteps checks what step-level credit needs: one anchor-state key and
// one finite step reward per turn, the turns counted as the runs of
// policy-written tokens (TurnOf). Trajectories written before these
// columns existed have none and are refused.
func CheckSteps(rows []table.Trajectory, paths []string) error {
	for i := range rows {
		r := &rows[i]
		bad := func(format string, a ...any) error {
			return &table.InputError{Path: paths[i], Problem: episodeName(r) + ": " + fmt.Sprintf(format, a...)}
		}
		_, turns := TurnOf(r.Roles)
		if len(r.StepKeys) == 0 && turns > 0 {
			return bad("no step_keys (step credit needs trajectories from a rollout that records them)")
		}
		if len(r.StepKeys) != turns || len(r.StepRewards) != turns {
			return bad("%d step_keys and %d step_rewards for %d turns (runs of policy-written tokens)", len(r.StepKeys), len(r.StepRewards), turns)
		}
		for t, x := range r.StepRewards {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return bad("step reward %v of turn %d is not finite", x, t)
			}
		}
	}
	return nil
}

// CheckCredit checks that the advantages Credits would compute under cfg
// are finite: rewards each finite can still overflow on the way, a
// group's spread (its squares) beyond the float range, or step rewards
// whose discounted return is not, or token advantages (float32) whose
// sum over an episode leaves float32's range. Such an input is refused here, naming
// the file and the episode, before any training: without this check it
// would reach the update as a non-finite loss (a failure, exit 1) where
// the trajectories are at fault (exit 2). paths[i] names the file row i
// was read from. The rows must have passed CheckGRPO, and CheckSteps when
// cfg.Step is on.
func CheckCredit(rows []table.Trajectory, paths []string, cfg GRPOConfig) error {
	bad := func(i int, format string, a ...any) error {
		return &table.InputError{Path: paths[i], Problem: episodeName(&rows[i]) + ": " + fmt.Sprintf(format, a...)}
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	rewards := make([]float64, len(rows))
	groups := make([]string, len(rows))
	for i := range rows {
		rewards[i], groups[i] = rows[i].Reward, rows[i].GroupID
	}
	outcome, _ := GroupAdvantages(rewards, groups, cfg.Norm)
	for i, a := range outcome {
		if !finite(a) {
			return bad(i, "reward %v: its group's advantage overflows (the group's rewards are too large to compare)", rows[i].Reward)
		}
	}
	if cfg.Step == StepGiGPO {
		if err := checkSteps(rows, groups, cfg, bad); err != nil {
			return err
		}
	}
	return checkTokenCredit(rows, paths, cfg)
}

// checkSteps checks GiGPO's discounted returns and step advantages.
func checkSteps(rows []table.Trajectory, groups []string, cfg GRPOConfig, bad func(i int, format string, a ...any) error) error {
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	keys := make([][]string, len(rows))
	srew := make([][]float64, len(rows))
	for i := range rows {
		keys[i], srew[i] = rows[i].StepKeys, rows[i].StepRewards
	}
	adv, returns := StepAdvantages(keys, srew, groups, cfg.Gamma, cfg.Norm)
	for i := range rows {
		for t, g := range returns[i] {
			if !finite(g) {
				return bad(i, "step_rewards overflow: the discounted return of turn %d is %v (step reward %v, gamma %g)", t, g, rows[i].StepRewards[t], cfg.Gamma)
			}
		}
	}
	for i := range rows {
		for t, a := range adv[i] {
			if !finite(a) {
				return bad(i, "step_rewards overflow: the step advantage of turn %d is %v (discounted return %v too large to compare)", t, a, returns[i][t])
			}
		}
	}
	return nil
}

// checkTokenCredit checks the token advantages as the update uses them
// (float32): each finite, and their magnitudes' sum over an episode within
// float32's range, since the loss sums them.
func checkTokenCredit(rows []table.Trajectory, paths []string, cfg GRPOConfig) error {
	_, advRows := Credits(rows, cfg)
	for i, r := range advRows {
		var sum float64
		for _, a := range r.Advantages {
			sum += math.Abs(float64(a))
		}
		if math.IsNaN(sum) || sum > math.MaxFloat32 {
			return &table.InputError{Path: paths[i], Problem: fmt.Sprintf("%s: reward %v: the advantages of its tokens sum to %v, beyond the float32 range the loss is computed in", episodeName(&rows[i]), rows[i].Reward, sum)}
		}
	}
	return nil
}

// Sampling is how the episodes of an update were drawn (the trajectory's
// temperature, top_p, top_k and repetition_penalty columns; model.Rule).
type Sampling struct {
	Temperature, TopP float64
	TopK              int32
	RepPenalty        float64
}

// SamplingOf is row r's sampling rule; the columns' NULLs (a policy that
// is not a checkpoint, a file that predates them) read as 0.
func SamplingOf(r *table.Trajectory) Sampling {
	return Sampling{orZero(r.Temperature), orZero(r.TopP), orZero(r.TopK), orZero(r.RepetitionPenalty)}
}

// ptr is a pointer to a copy of x (a nullable column's value).
func ptr[T any](x T) *T { return &x }

// orZero is *p, or 0 when p is nil.
func orZero[T int32 | float64](p *T) T {
	if p == nil {
		return 0
	}
	return *p
}

func (s Sampling) String() string {
	return fmt.Sprintf("temperature %g, top-p %g, top-k %d, repetition penalty %g", s.Temperature, s.TopP, s.TopK, s.RepPenalty)
}

// ScoringTemperature is the temperature the update scores log-probabilities
// at to match what the rollout recorded (model.Rule): the sampling
// temperature, 1 for greedy rollouts and files that predate the column.
func (s Sampling) ScoringTemperature() float64 {
	if s.Temperature <= 0 {
		return 1
	}
	return s.Temperature
}

// CheckSampling checks that every row was drawn under one sampling rule and
// returns it: the update scores every episode at one temperature, the one
// its behaviour log-probabilities were recorded at. paths[i] names the
// file row i was read from.
func CheckSampling(rows []table.Trajectory, paths []string) (Sampling, error) {
	if len(rows) == 0 {
		return Sampling{}, nil
	}
	first := SamplingOf(&rows[0])
	for i := range rows {
		if s := SamplingOf(&rows[i]); s != first {
			return first, &table.InputError{Path: paths[i], Problem: fmt.Sprintf("%s was sampled with %s, but %s with %s: one update takes trajectories sampled under one rule",
				episodeName(&rows[i]), s, paths[0], first)}
		}
	}
	return first, nil
}

// OtherPolicy returns the index of the first row carrying a policy hash
// other than want (the weights the update starts from), or -1 when every
// row was played by them; rows without one (files that predate the column)
// pass.
func OtherPolicy(rows []table.Trajectory, want string) int {
	for i := range rows {
		if h := rows[i].PolicyHash; h != "" && h != want {
			return i
		}
	}
	return -1
}

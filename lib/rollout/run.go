package rollout

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/pats-rl/pats/lib/agent"
	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/progress"
	"github.com/pats-rl/pats/lib/skill"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// MaxReads is how many skill bodies one episode may be served; later
// reads get the invalid-action answer (and are recorded as over_limit).
const MaxReads = 3

// InvalidRead is the answer to a read beyond MaxReads or of a name that is
// not on the slate.
const InvalidRead = "Nothing happens."

// Options says what to roll out.
type Options struct {
	Env   env.Env
	Split string
	Tasks int // tasks to draw from the split (seeded); 0 = the whole split in order
	Group int // episodes per task
	// FirstSample numbers the episodes of a task from it: sample
	// FirstSample+i, with that sample's seed (EpisodeSeed), so a second
	// rollout of the same tasks from FirstSample = the first one's Group
	// plays new episodes of them. 0: from 0.
	FirstSample int
	Seed        int64
	Shard       Shard
	Run         string
	Iteration   int
	Policy      Policy
	Tok         tokenizer.Tokenizer
	// Sampling is how a checkpoint policy draws its tokens, and PolicyHash
	// the content hash of its weights: both recorded in every row (the
	// zero Rule and "" for the oracle and random policies).
	Sampling   model.Rule
	PolicyHash string

	Skills *skill.Library // nil: no slate
	Slate  int            // slate size when Skills is set
	// SkillsFrom names where Skills came from, for the message of a slate
	// the library cannot fill ("--skills-dir sk"); "" says nothing.
	SkillsFrom string
	// TextRead says which skill a text policy (oracle, random) reads first
	// when skills are on: "right", "random" (a skill drawn from the slate
	// with the episode's seed: demonstrations whose reads a selector still
	// has to learn) or "none"; "" is the policy's own (DefaultTextRead).
	TextRead string

	// Scaffold renders z for a task type; nil runs with no scaffold
	// (deployment). ScaffoldVersion is recorded (-1 without a scaffold).
	Scaffold        func(taskType string) string
	ScaffoldVersion int
	// Hint gives rules for one task (HintText renders them), shown in the
	// scaffold's place after any scaffold; nil or "" adds nothing. It
	// depends on the task only, so a group shares its prompt.
	Hint func(taskID string) string
	// Preread gives a skill body put in the context before the first
	// action, as if the episode had read it (by task id and type); nil or
	// "" adds nothing.
	Preread func(taskID, taskType string) string
	// HintBody gives rules for one task shown as such a body (after
	// Preread's); nil or "" adds nothing.
	HintBody func(taskID string) string
	// FirstRead, with skills on, names a skill of the episode's slate that
	// its first action reads whatever the policy (written for it, with
	// behaviour log-probability 0); "" leaves the first action to the
	// policy.
	FirstRead func(taskType string, slate []string) string

	// Format writes the contexts; nil is agent.WordLevelFormat.
	Format agent.Format
	// InvalidPenalty is subtracted from an episode's reward for each
	// answer without a well-formed action (chatml).
	InvalidPenalty float64

	// History is the history window: each answer sees the prompt and the
	// last History turns in full, older ones replaced by a marker line
	// (agent.Context.Visible); 0 keeps the whole episode.
	History int
	// Admissible says which admissible actions each observation in the
	// context lists after it (AdmissibleNone, AdmissibleHere,
	// AdmissibleAll; "" is none). Text policies get the environment's
	// observation alone either way.
	Admissible string

	MaxContext int // context limit in tokens (of the context an answer sees); 0 = no limit
	Workers    int // episodes run in parallel; 0 = GOMAXPROCS
	// Batch is how many episodes of a batching policy (a checkpoint)
	// decode together, one batched forward per generated token; finished
	// episodes leave the batch and waiting ones join. 0 = 32.
	Batch int
	// Progress reports episodes done, their rate and the success so far;
	// nil reports nothing.
	Progress *progress.Settings
}

// Shard selects part i (0-based) of n of the tasks.
type Shard struct{ I, N int }

// ParseShard reads "i/n" with 0 <= i < n.
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{0, 1}, nil
	}
	var sh Shard
	if _, err := fmt.Sscanf(s, "%d/%d", &sh.I, &sh.N); err != nil || fmt.Sprintf("%d/%d", sh.I, sh.N) != s {
		return Shard{}, badSetting("shard", "%q: want i/n with 0 <= i < n", s)
	}
	if sh.N < 1 || sh.I < 0 || sh.I >= sh.N {
		return Shard{}, badSetting("shard", "%q: want i/n with 0 <= i < n", s)
	}
	return sh, nil
}

// SelectTasks returns the task ids this rollout runs, in output order.
func SelectTasks(e env.Env, split string, n int, seed int64, sh Shard) ([]string, error) {
	all, err := e.Tasks(split)
	if err != nil {
		return nil, err
	}
	ids := append([]string(nil), all...)
	if n > 0 {
		if n > len(ids) {
			return nil, badSetting("tasks", "%d: split %s of %s has only %d tasks", n, split, e.Name(), len(ids))
		}
		r := rand.New(rand.NewPCG(uint64(seed), 0x7a5c5))
		r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		ids = ids[:n]
	}
	if sh.N > 1 {
		var part []string
		for i, id := range ids {
			if i%sh.N == sh.I {
				part = append(part, id)
			}
		}
		ids = part
	}
	return ids, nil
}

// EpisodeSeed derives the seed of one episode from the rollout seed.
func EpisodeSeed(seed int64, taskID string, sample int) int64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d|%s|%d", seed, taskID, sample)
	return int64(h.Sum64() >> 1)
}

// errSkipped marks the episodes not played after another failed.
var errSkipped = errors.New("skipped after a failed episode")

// DefaultBatch is the number of episodes that decode together when
// Options.Batch is 0.
const DefaultBatch = 32

// GroupID names the group of a task in an iteration.
func GroupID(iteration int, taskID string) string { return fmt.Sprintf("%d:%s", iteration, taskID) }

// Check checks the settings that need no environment: Group, History (in
// [0, MaxInt32], the most a trajectory records) and Admissible. Run calls
// it; a command calls it before any work.
func (o Options) Check() error {
	switch {
	case o.Group < 1:
		return badSetting("group", "must be at least 1, got %d", o.Group)
	case o.FirstSample < 0 || o.FirstSample > math.MaxInt32-o.Group:
		return badSetting("first-sample", "must be in [0, %d], got %d", math.MaxInt32-o.Group, o.FirstSample)
	case o.History < 0:
		return badSetting("history", "must be 0 (the whole episode) or more, got %d", o.History)
	case o.History > math.MaxInt32:
		return badSetting("history", "%d is more than %d, the most a trajectory records", o.History, math.MaxInt32)
	}
	return CheckAdmissible(o.Admissible)
}

// Run plays Group episodes of each selected task and returns one row per
// episode, ordered by task then sample. The rows do not depend on Workers.
func Run(ctx context.Context, o Options) ([]table.Trajectory, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	if o.Shard.N == 0 {
		o.Shard = Shard{0, 1}
	}
	ids, err := SelectTasks(o.Env, o.Split, o.Tasks, o.Seed, o.Shard)
	if err != nil {
		return nil, err
	}
	type job struct{ task, sample, slot int }
	jobs := make(chan job)
	out := make([]table.Trajectory, len(ids)*o.Group)
	errs := make([]error, len(out))
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	retire := func() {}
	if _, ok := o.Policy.(BatchPolicy); ok {
		workers = o.Batch
		if workers <= 0 {
			workers = DefaultBatch
		}
	}
	// never more goroutines (or decoding slots) than episodes
	if workers > len(out) {
		workers = max(1, len(out))
	}
	if bp, ok := o.Policy.(BatchPolicy); ok {
		retire = bp.BeginBatch(workers)
	}
	var wg sync.WaitGroup
	var failed atomic.Bool
	var done, succeeded int
	var mu sync.Mutex
	meter := o.Progress.Start("rollout", "episode", len(out))
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer retire()
			for j := range jobs {
				if ctx.Err() != nil {
					errs[j.slot] = ctx.Err()
					continue
				}
				if failed.Load() {
					// An episode failed (a server that went away): the
					// rollout fails; the rest is not played.
					errs[j.slot] = errSkipped
					continue
				}
				out[j.slot], errs[j.slot] = episode(ctx, o, ids[j.task], o.FirstSample+j.sample)
				if errs[j.slot] != nil {
					failed.Store(true)
				}
				if meter != nil && errs[j.slot] == nil {
					mu.Lock()
					done++
					if out[j.slot].Success {
						succeeded++
					}
					meter.Update(done, fmt.Sprintf("success so far %.3f", float64(succeeded)/float64(done)))
					mu.Unlock()
				}
			}
		}()
	}
	for t := range ids {
		for s := 0; s < o.Group; s++ {
			jobs <- job{t, s, t*o.Group + s}
		}
	}
	close(jobs)
	wg.Wait()
	for _, err := range errs {
		if err != nil && err != errSkipped {
			meter.Abandon()
			return nil, err
		}
	}
	meter.Finish()
	return out, nil
}

// groupSlate is the slate every episode of a group sees.
func groupSlate(o Options, taskID, taskType string) ([]skill.Skill, error) {
	if o.Skills == nil {
		return nil, nil
	}
	slate, err := o.Skills.Slate(taskType, o.Slate, EpisodeSeed(o.Seed, taskID, -1))
	if err != nil && o.SkillsFrom != "" {
		return nil, fmt.Errorf("%s: %w", o.SkillsFrom, err)
	}
	return slate, err
}

// short is f as the float64 with the same shortest decimal form (0.7, not
// 0.699999988...).
func short(f float32) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(float64(f), 'g', -1, 32), 64)
	return v
}

// seen is the length of the context the next answer sees.
func seen(c *agent.Context) int {
	if c.History > 0 {
		return len(c.Visible())
	}
	return c.Len()
}

// recordWindow writes what each answer of a windowed episode saw.
func recordWindow(tr *table.Trajectory, c *agent.Context) {
	tr.History = int32(c.History)
	tr.PromptLen = int32(c.PromptLen())
	tr.HistoryMarker = append([]int32{}, c.Marker()...)
	tr.TurnAt, tr.TurnFrom = []int32{}, []int32{}
	for _, t := range c.Turns() {
		tr.TurnAt = append(tr.TurnAt, int32(t.At))
		tr.TurnFrom = append(tr.TurnFrom, int32(t.From))
	}
	tr.BodyAt, tr.BodyEnd = []int32{}, []int32{}
	for _, b := range c.Bodies() {
		tr.BodyAt = append(tr.BodyAt, int32(b.At))
		tr.BodyEnd = append(tr.BodyEnd, int32(b.End))
	}
}

// failurePriority orders failure features from most to least specific.
var failurePriority = []string{"wrong_object", "wrong_receptacle", "wrong_type", "wrong_answer", "missing_option", "over_price", "context_limit", "loop", "invalid_action", "invalid_answer", "no_answer", "max_steps"}

// FailureMode names why an episode failed from its features: the most
// specific failure feature present, else max_steps when the budget ran out,
// else "unfinished".
func FailureMode(features []string, outOfSteps bool) string {
	have := map[string]bool{}
	for _, f := range features {
		if m, ok := table.FailureOf(f); ok {
			have[m] = true
		}
	}
	for _, f := range failurePriority {
		if have[f] {
			return f
		}
	}
	for _, f := range features {
		if m, ok := table.FailureOf(f); ok {
			return m
		}
	}
	if outOfSteps {
		return "max_steps"
	}
	return "unfinished"
}

// DefaultTextRead is the first read of a text policy with skills on when
// TextRead is "" : the oracle reads the right skill, the random policy a
// skill drawn from the slate, like every other choice it makes. A given
// TextRead is returned as it is.
func DefaultTextRead(textRead, policy string) string {
	if textRead != "" {
		return textRead
	}
	if policy == "random" {
		return "random"
	}
	return "right"
}

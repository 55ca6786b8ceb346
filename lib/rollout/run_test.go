package rollout

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/skill"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tokenizer"
)

// counter is a toy environment: reach the target number with inc and dec.
type counter struct{}

func (counter) Name() string         { return "counter" }
func (counter) TaskTypes() []string  { return []string{"up", "down"} }
func (counter) Splits() []string     { return []string{"train"} }
func (counter) Vocabulary() []string { return nil }
func (counter) Oracle() env.Agent    { return &counterOracle{} }
func (counter) Tasks(split string) ([]string, error) {
	if split != "train" {
		return nil, fmt.Errorf("unknown split %q", split)
	}
	var ids []string
	for i := -5; i <= 5; i++ {
		if i != 0 {
			ids = append(ids, strconv.Itoa(i))
		}
	}
	return ids, nil
}
func (counter) Reset(id string, seed int64) (env.Episode, error) {
	n, err := strconv.Atoi(id)
	if err != nil {
		return nil, err
	}
	return &counterEp{id: id, target: n}, nil
}

type counterEp struct {
	id         string
	target, at int
	invalid    bool
}

func (e *counterEp) TaskID() string { return e.id }
func (e *counterEp) TaskType() string {
	if e.target > 0 {
		return "up"
	}
	return "down"
}
func (e *counterEp) Goal() string         { return "reach " + e.id }
func (e *counterEp) Observation() string  { return "at 0" }
func (e *counterEp) Admissible() []string { return []string{"inc", "dec"} }
func (e *counterEp) MaxSteps() int        { return 6 }
func (e *counterEp) Features() []string {
	if e.invalid {
		return []string{"failure:invalid_action"}
	}
	return []string{"action:inc"}
}
func (e *counterEp) Step(a string) env.Step {
	switch a {
	case "inc":
		e.at++
	case "dec":
		e.at--
	default:
		e.invalid = true
		return env.Step{Observation: "Nothing happens."}
	}
	ok := e.at == e.target
	st := env.Step{Observation: "at " + strconv.Itoa(e.at), Valid: true, Done: ok, Success: ok}
	if ok {
		st.Reward, st.Score = 1, 1
	}
	return st
}

type counterOracle struct{ goal, at int }

func (o *counterOracle) Start(goal, obs string, seed int64) {
	o.goal, _ = strconv.Atoi(strings.TrimPrefix(goal, "reach "))
	o.at = 0
}
func (o *counterOracle) Act(obs string, adm []string) string {
	if o.goal > o.at {
		o.at++
		return "inc"
	}
	o.at--
	return "dec"
}

type wordTok struct{ ids map[string]int32 }

func newWordTok() *wordTok {
	t := &wordTok{ids: map[string]int32{}}
	words := append(append([]string{}, tokenizer.Specials...), "inc", "dec", "at", "reach", "read_skill")
	for i := -10; i <= 10; i++ {
		words = append(words, strconv.Itoa(i))
	}
	for _, w := range words {
		t.ids[w] = int32(len(t.ids))
	}
	return t
}
func (t *wordTok) Encode(s string) []int32 {
	var out []int32
	for _, w := range strings.Fields(s) {
		id, ok := t.ids[w]
		if !ok {
			id = t.ids[tokenizer.Unk]
		}
		out = append(out, id)
	}
	return out
}
func (t *wordTok) Decode([]int32) string          { return "" }
func (t *wordTok) TokenID(s string) (int32, bool) { id, ok := t.ids[s]; return id, ok }
func (t *wordTok) VocabSize() int                 { return len(t.ids) }
func (t *wordTok) Hash() string                   { return "word" }
func (t *wordTok) JSON() ([]byte, error)          { return nil, nil }

func runCounter(t *testing.T, o Options) []table.Trajectory {
	t.Helper()
	o.Env, o.Split, o.Tok = counter{}, "train", newWordTok()
	if o.Policy == nil {
		o.Policy = TextPolicy{PolicyName: "oracle", New: counter{}.Oracle}
	}
	rows, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestRunOracle(t *testing.T) {
	rows := runCounter(t, Options{Group: 3, Seed: 7, Run: "r", Iteration: 2})
	if len(rows) != 30 {
		t.Fatalf("rows = %d, want 30", len(rows))
	}
	for i, r := range rows {
		n, _ := strconv.Atoi(r.TaskID)
		want := n
		if want < 0 {
			want = -want
		}
		if !r.Success || int(r.Steps) != want || r.FailureMode != "" {
			t.Errorf("row %d (%s): success %v steps %d failure %q", i, r.TaskID, r.Success, r.Steps, r.FailureMode)
		}
		if int(r.Sample) != i%3 || r.GroupID != GroupID(2, r.TaskID) || r.Iteration != 2 {
			t.Errorf("row %d ids: sample %d group %s", i, r.Sample, r.GroupID)
		}
		if len(r.Tokens) != len(r.Roles) || len(r.Tokens) != len(r.Logprobs) || int(r.NTokens) != len(r.Tokens) {
			t.Errorf("row %d: token lists out of step", i)
		}
		// Each action is one word and the end token.
		if int(r.NPolicyTokens) != 2*want {
			t.Errorf("row %d: policy tokens %d, want %d", i, r.NPolicyTokens, 2*want)
		}
		if len(r.Observations) != len(r.Actions)+1 {
			t.Errorf("row %d: %d observations for %d actions", i, len(r.Observations), len(r.Actions))
		}
	}
}

func TestRunFailureAndBudget(t *testing.T) {
	dec := TextPolicy{PolicyName: "dec", New: func() env.Agent { return constAgent("dec") }}
	rows := runCounter(t, Options{Group: 1, Policy: dec, Tasks: 0})
	for _, r := range rows {
		n, _ := strconv.Atoi(r.TaskID)
		if n > 0 && (r.Success || r.Steps != 6 || r.FailureMode != "max_steps") {
			t.Errorf("%s: success %v steps %d failure %q, want a failure at the budget", r.TaskID, r.Success, r.Steps, r.FailureMode)
		}
	}
	bad := TextPolicy{PolicyName: "bad", New: func() env.Agent { return constAgent("jump") }}
	rows = runCounter(t, Options{Group: 1, Policy: bad, Tasks: 2, Seed: 3})
	for _, r := range rows {
		if r.FailureMode != "invalid_action" {
			t.Errorf("%s: failure %q, want invalid_action", r.TaskID, r.FailureMode)
		}
	}
	rows = runCounter(t, Options{Group: 1, Policy: dec, MaxContext: 20})
	for _, r := range rows {
		if !r.Success && r.FailureMode != "context_limit" {
			t.Errorf("%s: failure %q, want context_limit", r.TaskID, r.FailureMode)
		}
	}
}

type constAgent string

func (constAgent) Start(string, string, int64)   {}
func (a constAgent) Act(string, []string) string { return string(a) }

func TestRunDeterministicAcrossWorkers(t *testing.T) {
	a := runCounter(t, Options{Group: 4, Seed: 9, Tasks: 5, Workers: 1})
	prev := runtime.GOMAXPROCS(2)
	defer runtime.GOMAXPROCS(prev)
	b := runCounter(t, Options{Group: 4, Seed: 9, Tasks: 5, Workers: 3})
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("rows differ with the worker count (-1 +3):\n%s", diff)
	}
}

func TestSelectTasksAndShards(t *testing.T) {
	all, _ := SelectTasks(counter{}, "train", 6, 5, Shard{0, 1})
	if len(all) != 6 {
		t.Fatalf("selected %d tasks, want 6", len(all))
	}
	var joined []string
	for i := 0; i < 3; i++ {
		part, err := SelectTasks(counter{}, "train", 6, 5, Shard{i, 3})
		if err != nil {
			t.Fatal(err)
		}
		joined = append(joined, part...)
	}
	seen := map[string]bool{}
	for _, id := range joined {
		seen[id] = true
	}
	if len(joined) != 6 || len(seen) != 6 {
		t.Errorf("shards cover %v, want the 6 selected tasks once each", joined)
	}
	for _, id := range all {
		if !seen[id] {
			t.Errorf("task %s missing from the shards", id)
		}
	}
	other, _ := SelectTasks(counter{}, "train", 6, 6, Shard{0, 1})
	if cmp.Equal(all, other) {
		t.Errorf("seeds 5 and 6 drew the same tasks %v", all)
	}
	if _, err := SelectTasks(counter{}, "train", 11, 1, Shard{0, 1}); err == nil {
		t.Error("drawing more tasks than the split has: no error")
	}
}

func TestParseShard(t *testing.T) {
	good := map[string]Shard{"": {0, 1}, "0/1": {0, 1}, "2/4": {2, 4}}
	for s, want := range good {
		got, err := ParseShard(s)
		if err != nil || got != want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"4/4", "-1/2", "1/0", "a/b", "1", "1/2/3", "1/2x"} {
		if _, err := ParseShard(s); err == nil {
			t.Errorf("ParseShard(%q): no error", s)
		}
	}
}

func TestFailureMode(t *testing.T) {
	cases := []struct {
		f    []string
		out  bool
		want string
	}{
		{[]string{"failure:loop", "failure:wrong_object"}, true, "wrong_object"},
		{[]string{"action:go"}, true, "max_steps"},
		{[]string{"action:go"}, false, "unfinished"},
		{[]string{"failure:strange"}, false, "strange"},
		{[]string{"failure:invalid_action", "failure:loop"}, true, "loop"},
	}
	for _, c := range cases {
		if got := FailureMode(c.f, c.out); got != c.want {
			t.Errorf("FailureMode(%v, %v) = %q, want %q", c.f, c.out, got, c.want)
		}
	}
}

func TestSkillReads(t *testing.T) {
	lib, err := skill.New([]skill.Skill{
		{Name: "go-up", Description: "d", Body: "inc until there", RightFor: []string{"up"}, MisleadingFor: []string{"down"}},
		{Name: "go-down", Description: "d", Body: "dec until there", RightFor: []string{"down"}, MisleadingFor: []string{"up"}},
		{Name: "other", Description: "d", Body: "nothing"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"right", "random", "none"} {
		rows := runCounter(t, Options{Group: 2, Seed: 4, Skills: lib, Slate: 3, TextRead: mode})
		for _, r := range rows {
			n, _ := strconv.Atoi(r.TaskID)
			if !r.Success {
				t.Errorf("%s %s: the oracle failed after its read", mode, r.TaskID)
			}
			switch mode {
			case "none":
				if len(r.Reads) != 0 {
					t.Errorf("none: %s read %v", r.TaskID, r.Reads)
				}
			case "right":
				want := "go-up"
				if n < 0 {
					want = "go-down"
				}
				if len(r.Reads) != 1 || r.Reads[0] != want || !r.ReadsRight[0] || r.ReadsMisleading[0] {
					t.Errorf("right: %s read %v right %v misleading %v", r.TaskID, r.Reads, r.ReadsRight, r.ReadsMisleading)
				}
			case "random":
				if len(r.Reads) != 1 {
					t.Errorf("random: %s read %v", r.TaskID, r.Reads)
				}
			}
			if len(r.Reads) == 1 {
				// The read is a turn with the skill body as its observation
				// and no environment step.
				if r.Actions[0] != "read_skill "+r.Reads[0] || int(r.Steps) != len(r.Actions)-1 {
					t.Errorf("%s: actions %v steps %d", r.TaskID, r.Actions, r.Steps)
				}
				sk, _ := lib.Get(r.Reads[0])
				if r.Observations[1] != sk.Body {
					t.Errorf("%s: observation after the read %q, want the body", r.TaskID, r.Observations[1])
				}
			}
		}
	}
}

// keyedEp is a counter episode whose environment names its own state keys.
type keyedEp struct{ counterEp }

func (e *keyedEp) InitialKey() string { return "s0" }
func (e *keyedEp) Step(a string) env.Step {
	st := e.counterEp.Step(a)
	st.Key = "s" + strconv.Itoa(e.at)
	return st
}

type keyedCounter struct{ counter }

func (keyedCounter) Reset(id string, seed int64) (env.Episode, error) {
	ep, err := counter{}.Reset(id, seed)
	if err != nil {
		return nil, err
	}
	return &keyedEp{*ep.(*counterEp)}, nil
}

// TestStepKeysAndRewards: one key and one reward per turn; the key is that
// of the state the turn acts from (a read leaves it unchanged), the hash of
// the observation unless the environment sends its own.
func TestStepKeysAndRewards(t *testing.T) {
	lib, err := skill.New([]skill.Skill{
		{Name: "go-up", Description: "d", Body: "inc until there", RightFor: []string{"up"}},
		{Name: "go-down", Description: "d", Body: "dec until there", RightFor: []string{"down"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	k := env.StateKey
	rows := runCounter(t, Options{Group: 2, Seed: 4, Skills: lib, Slate: 2, TextRead: "right"})
	seen := 0
	for _, r := range rows {
		if r.TaskID != "2" {
			continue
		}
		seen++
		// read, inc (at 1), inc (at 2: done, reward 1)
		want := []string{k("at 0"), k("at 0"), k("at 1")}
		if diff := cmp.Diff(want, r.StepKeys); diff != "" {
			t.Errorf("task 2 sample %d keys (-want +got):\n%s", r.Sample, diff)
		}
		if diff := cmp.Diff([]float64{0, 0, 1}, r.StepRewards); diff != "" {
			t.Errorf("task 2 sample %d rewards (-want +got):\n%s", r.Sample, diff)
		}
	}
	if seen != 2 {
		t.Errorf("%d episodes of task 2, want 2", seen)
	}
	o := Options{Group: 1, Seed: 4, Env: keyedCounter{}, Split: "train", Tok: newWordTok(),
		Policy: TextPolicy{PolicyName: "oracle", New: counter{}.Oracle}}
	rows, err = Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	seen = 0
	for _, r := range rows {
		if len(r.StepKeys) != len(r.Actions) || len(r.StepRewards) != len(r.Actions) {
			t.Fatalf("%s: %d keys, %d rewards for %d actions", r.TaskID, len(r.StepKeys), len(r.StepRewards), len(r.Actions))
		}
		if r.TaskID == "-3" {
			seen++
			if diff := cmp.Diff([]string{"s0", "s-1", "s-2"}, r.StepKeys); diff != "" {
				t.Errorf("keyed environment (-want +got):\n%s", diff)
			}
		}
	}
	if seen != 1 {
		t.Errorf("%d episodes of task -3, want 1", seen)
	}
}

// TestDefaultTextRead: with skills on and no TextRead, the oracle reads the
// right skill and the random policy a skill drawn from the slate (the
// same reads as TextRead "random"); a TextRead given is kept for both.
func TestDefaultTextRead(t *testing.T) {
	lib, err := skill.New([]skill.Skill{
		{Name: "go-up", Description: "d", Body: "inc until there", RightFor: []string{"up"}},
		{Name: "go-down", Description: "d", Body: "dec until there", RightFor: []string{"down"}},
		{Name: "other", Description: "d", Body: "nothing"},
		{Name: "more", Description: "d", Body: "nothing more"},
	})
	if err != nil {
		t.Fatal(err)
	}
	reads := func(policy, mode string) []string {
		var out []string
		p := TextPolicy{PolicyName: policy, New: counter{}.Oracle}
		for _, r := range runCounter(t, Options{Group: 2, Seed: 4, Skills: lib, Slate: 4, TextRead: mode, Policy: p}) {
			out = append(out, strings.Join(r.Reads, ","))
		}
		return out
	}
	cases := []struct{ policy, mode, same string }{
		{"oracle", "", "right"},
		{"random", "", "random"},
		{"random", "right", "right"},
		{"random", "none", "none"},
		{"oracle", "random", "random"},
	}
	for _, c := range cases {
		got, want := reads(c.policy, c.mode), reads("oracle", c.same)
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s with TextRead %q: reads differ from TextRead %q (-want +got):\n%s", c.policy, c.mode, c.same, d)
		}
	}
	// The random policy's own reads are not the right skill every time.
	right, all := 0, reads("oracle", "right")
	for i, r := range reads("random", "") {
		if r == all[i] {
			right++
		}
	}
	if right == len(all) {
		t.Errorf("the random policy read the right skill in all %d episodes", right)
	}
}

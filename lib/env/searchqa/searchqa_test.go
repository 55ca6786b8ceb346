package searchqa

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/env/internal/envtest"
)

func mustEnv(t testing.TB) *Env {
	t.Helper()
	e, err := New()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// play plays one episode to its end (at most 50 steps).
func play(t testing.TB, e env.Env, id string, ag env.Agent, seed int64) envtest.Episode {
	t.Helper()
	return envtest.Play(t, e, id, ag, seed, 50)
}

// searches counts the search actions.
func searches(actions []string) int {
	n := 0
	for _, a := range actions {
		if strings.HasPrefix(a, "search[") {
			n++
		}
	}
	return n
}

// sample spreads n picks over ids; task types cycle with the index (hops =
// 1 + index%3), so each pick is offset to sample every type.
func sample(ids []string, n int) []string { return envtest.Sample(ids, n, 3) }

func TestRegisteredSplitsAndCorpus(t *testing.T) {
	e, err := env.Open("searchqa")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{env.SplitTrain: TrainSize, env.SplitValidSeen: ValidSeenSize, env.SplitValidUnseen: ValidUnseenSize, SplitTest: TestSize}
	for _, sp := range e.Splits() {
		ids, err := e.Tasks(sp)
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) != want[sp] {
			t.Errorf("%s: %d tasks, want %d", sp, len(ids), want[sp])
		}
		types := map[string]int{}
		for i, id := range ids {
			if id != fmt.Sprintf("searchqa/%s/%05d", sp, i) {
				t.Fatalf("id %q at %d", id, i)
			}
			ep, _ := e.Reset(id, 0)
			types[ep.TaskType()]++
		}
		if len(types) != 3 {
			t.Errorf("%s: task types %v", sp, types)
		}
	}
	if n := mustEnv(t).NumPassages(); n < 10000 {
		t.Errorf("corpus has %d passages", n)
	}
	if _, err := e.Tasks("dev"); err == nil {
		t.Error("unknown split accepted")
	}
	if _, err := e.Reset("searchqa/train/x", 0); err == nil {
		t.Error("unknown id accepted")
	}
}

func TestOracleSolvesSampledTasks(t *testing.T) {
	e := mustEnv(t)
	for _, sp := range e.Splits() {
		ids, _ := e.Tasks(sp)
		ids = sample(ids, 500)
		steps := map[string][2]int{}
		for _, id := range ids {
			o := play(t, e, id, e.Oracle(), 3)
			if !o.Last.Success || o.Last.Reward != 1 || o.Last.Score != 1 {
				q, _ := e.Question(id)
				t.Fatalf("%s: oracle failed on %q (answer %q): %+v", id, q.Text, q.Answer, o.Last)
			}
			q, _ := e.Question(id)
			if n := searches(o.Actions); n != q.Hops() {
				t.Errorf("%s: oracle used %d searches for %d hops", id, n, q.Hops())
			}
			s := steps[q.Type]
			steps[q.Type] = [2]int{s[0] + o.Steps, s[1] + 1}
		}
		var b strings.Builder
		for _, ty := range taskTypes {
			fmt.Fprintf(&b, " %s %.2f", ty, float64(steps[ty][0])/float64(steps[ty][1]))
		}
		t.Logf("%s: oracle solved %d/%d sampled tasks; steps/episode:%s", sp, len(ids), len(ids), b.String())
	}
	t.Logf("candidate questions rejected during generation: %d", e.Rejected)
}

func TestRandomAgentSuccessRate(t *testing.T) {
	e := mustEnv(t)
	ids, _ := e.Tasks(env.SplitTrain)
	ids = sample(ids, 1000)
	succ := 0
	for i, id := range ids {
		if play(t, e, id, env.RandomAgent(), int64(i)).Last.Success {
			succ++
		}
	}
	rate := float64(succ) / float64(len(ids))
	t.Logf("random agent on 1000 train tasks: success %.3f over %d episodes", rate, len(ids))
	if rate > 0.5 {
		t.Errorf("random agent succeeds too often (%.2f)", rate)
	}
}

func TestUnseenCombinationsNeverInTrain(t *testing.T) {
	e := mustEnv(t)
	train := map[string]bool{}
	starts := map[string]bool{}
	for _, q := range e.tasks.Split(env.SplitTrain) {
		train[DefiningCombination(q.ID)] = true
		starts[q.Start] = true
	}
	ids, _ := e.Tasks(env.SplitValidUnseen)
	for _, id := range ids {
		c := DefiningCombination(id)
		if c == "" || train[c] {
			t.Fatalf("%s: defining combination %q empty or in train", id, c)
		}
		q, _ := e.Question(id)
		if starts[q.Start] {
			t.Fatalf("%s: start entity %q also starts a train question", id, q.Start)
		}
	}
	// No two tasks anywhere share a combination (so no question repeats).
	all := map[string]string{}
	for _, sp := range e.Splits() {
		for _, q := range e.tasks.Split(sp) {
			if w, ok := all[q.DefiningCombination()]; ok {
				t.Fatalf("combination %q in %s and %s", q.DefiningCombination(), w, q.ID)
			}
			all[q.DefiningCombination()] = q.ID
		}
	}
	if DefiningCombination("nope") != "" {
		t.Error("unknown id has a combination")
	}
}

func TestDeterministicGeneration(t *testing.T) {
	a := mustEnv(t)
	b, err := build()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.w.passages, b.w.passages) || !reflect.DeepEqual(a.vocab, b.vocab) {
		t.Fatal("corpus or vocabulary differs between builds")
	}
	for _, sp := range a.Splits() {
		if !reflect.DeepEqual(a.tasks.Split(sp), b.tasks.Split(sp)) {
			t.Fatalf("split %s differs between builds", sp)
		}
	}
	id := a.tasks.Split(SplitTest)[7].ID
	if o1, o2 := play(t, a, id, env.RandomAgent(), 9), play(t, a, id, env.RandomAgent(), 9); !reflect.DeepEqual(o1.Texts, o2.Texts) {
		t.Fatal("replaying an episode changed its transcript")
	}
	// Tie-breaking: a query matching many passages equally returns the lowest indices.
	got := a.idx.Search("enjoys", 3)
	if len(got) != 3 || !(got[0] < got[1] && got[1] < got[2]) {
		t.Fatalf("ties not broken by index: %v", got)
	}
}

func TestNormalizeAndExactMatch(t *testing.T) {
	cases := []struct {
		in, want string
	}{
		{"The Amber River", "amber river"},
		{"  port   MARLOW. ", "port marlow"},
		{"an apple, a pear!", "apple pear"},
		{"o'brien", "obrien"},
		{"theatre", "theatre"},
		{"", ""},
	}
	for _, c := range cases {
		if got := Normalize(c.in); got != c.want {
			t.Errorf("Normalize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	matches := []struct {
		pred, gold string
		want       bool
	}{
		{"the amber river", "amber river", true},
		{"Amber river.", "amber river", true},
		{"amber", "amber river", false},
		{"port marlow", "new marlow", false},
	}
	for _, m := range matches {
		if got := ExactMatch(m.pred, m.gold); got != m.want {
			t.Errorf("ExactMatch(%q, %q) = %v", m.pred, m.gold, got)
		}
	}
}

func TestParseAction(t *testing.T) {
	cases := []struct {
		in, verb, arg string
		ok            bool
	}{
		{"search[ada voss born]", "search", "ada voss born", true},
		{" SEARCH [ ada  voss ] ", "search", "ada voss", true},
		{"answer[Port Marlow]", "answer", "Port Marlow", true},
		{"answer[]", "", "", false},
		{"search[  ]", "", "", false},
		{"port marlow", "", "", false},
		{"lookup[x]", "", "", false},
		{"answer port marlow", "", "", false},
	}
	for _, c := range cases {
		v, a, ok := parseAction(c.in)
		if v != c.verb || a != c.arg || ok != c.ok {
			t.Errorf("parseAction(%q) = %q %q %v, want %q %q %v", c.in, v, a, ok, c.verb, c.arg, c.ok)
		}
	}
}

func TestQuestionParseRoundTrip(t *testing.T) {
	e := mustEnv(t)
	for _, q := range e.tasks.Split(env.SplitTrain) {
		start, rels, ok := parseQuestion(q.Text)
		if !ok || start != q.Start || !reflect.DeepEqual(rels, q.rels) {
			t.Fatalf("parse %q: %q %v, want %q %v", q.Text, start, rels, q.Start, q.rels)
		}
	}
}

func TestVocabularyCoversEpisodes(t *testing.T) {
	n := envtest.CheckVocabulary(t, mustEnv(t), 60, 3, 50)
	if n > 3000 {
		t.Errorf("vocabulary has %d words", n)
	}
	t.Logf("vocabulary: %d words", n)
}

func TestEpisodeMechanicsAndFeatures(t *testing.T) {
	e := mustEnv(t)
	var q *Question
	for _, x := range e.tasks.Split(env.SplitValidSeen) {
		if x.Hops() == 2 {
			q = x
			break
		}
	}
	ep, _ := e.Reset(q.ID, 0)
	if ep.MaxSteps() != 5 || ep.TaskType() != "two_hop" || !strings.Contains(ep.Observation(), q.Text) {
		t.Fatal("episode header wrong")
	}
	if st := ep.Step("think about it"); st.Valid || st.Done {
		t.Fatalf("invalid action: %+v", st)
	}
	for i := 0; i < 3; i++ {
		st := ep.Step("search[" + q.Start + "]")
		if !st.Valid || st.Done || !strings.HasPrefix(st.Observation, "[1] ") {
			t.Fatalf("search %d: %+v", i, st)
		}
	}
	// Step 5: the budget ends the episode even with a search left.
	st := ep.Step("search[" + q.Path[1] + "]")
	if !st.Done || st.Success || st.Reward != 0 {
		t.Fatalf("budget: %+v", st)
	}
	f := strings.Join(ep.Features(), " ")
	for _, want := range []string{"hops:2", "action:search", "failure:invalid_action", "failure:loop", "failure:max_steps", "failure:no_answer", "query:entity"} {
		if !strings.Contains(f, want) {
			t.Errorf("features %q lack %s", f, want)
		}
	}

	// A fifth search ends the episode; answering the bridge is diagnosed.
	ep, _ = e.Reset(q.ID, 0)
	for i := 0; i < MaxSearches; i++ {
		ep.Step(fmt.Sprintf("search[%s %d]", q.Start, i))
	}
	if adm := ep.Admissible(); len(adm) == 0 || strings.HasPrefix(adm[0], "search[") {
		t.Fatalf("admissible after 4 searches: %v", adm)
	}
	st = ep.Step("search[more]")
	if !st.Done || st.Valid || st.Reward != 0 || !strings.Contains(strings.Join(ep.Features(), " "), "failure:search_budget") {
		t.Fatalf("fifth search: %+v %v", st, ep.Features())
	}
	ep, _ = e.Reset(q.ID, 0)
	st = ep.Step("answer[The " + strings.ToUpper(q.Path[1]) + "]")
	if !st.Done || st.Success || st.Reward != 0 || !strings.Contains(strings.Join(ep.Features(), " "), "failure:answered_bridge") {
		t.Fatalf("bridge answer: %+v %v", st, ep.Features())
	}
	ep, _ = e.Reset(q.ID, 0)
	if st = ep.Step("answer[the " + strings.ToUpper(q.Answer) + ".]"); !st.Success || st.Reward != 1 {
		t.Fatalf("normalised answer not accepted: %+v", st)
	}
	o := play(t, e, q.ID, e.Oracle(), 0)
	f = strings.Join(o.Features, " ")
	for _, want := range []string{"milestone:found_bridge", "milestone:found_answer", "query:relation", "action:answer"} {
		if !strings.Contains(f, want) {
			t.Errorf("oracle features %q lack %s", f, want)
		}
	}
	for i := 1; i < len(o.Features); i++ {
		if o.Features[i-1] >= o.Features[i] {
			t.Fatalf("features not sorted/deduped: %v", o.Features)
		}
	}
}

func BenchmarkOracleEpisode(b *testing.B) {
	e := mustEnv(b)
	ids, _ := e.Tasks(SplitTest)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		play(b, e, ids[i%len(ids)], e.Oracle(), 0)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "episodes/s")
}

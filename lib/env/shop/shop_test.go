package shop

import (
	"fmt"
	"math"
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

// play plays one episode to its end (at most 100 steps).
func play(t testing.TB, e env.Env, id string, ag env.Agent, seed int64) envtest.Episode {
	t.Helper()
	return envtest.Play(t, e, id, ag, seed, 100)
}

// sample returns every k-th id so that n (or all) are chosen.
func sample(ids []string, n int) []string { return envtest.Sample(ids, n, 1) }

func TestRegisteredAndSplits(t *testing.T) {
	e, err := env.Open("shop")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{env.SplitTrain: TrainSize, env.SplitValidSeen: ValidSeenSize, env.SplitValidUnseen: ValidUnseenSize, SplitTest: TestSize}
	seen := map[string]bool{}
	for _, sp := range e.Splits() {
		ids, err := e.Tasks(sp)
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) != want[sp] {
			t.Errorf("split %s: %d tasks, want %d", sp, len(ids), want[sp])
		}
		for i, id := range ids {
			if id != fmt.Sprintf("shop/%s/%05d", sp, i) {
				t.Fatalf("task id %q at %d", id, i)
			}
			if seen[id] {
				t.Fatalf("duplicate id %s", id)
			}
			seen[id] = true
		}
	}
	if len(mustEnv(t).Products()) < 1000 {
		t.Errorf("catalogue has %d products", len(mustEnv(t).Products()))
	}
	if _, err := e.Tasks("nope"); err == nil {
		t.Error("unknown split accepted")
	}
	if _, err := e.Reset("shop/train/99999", 0); err == nil {
		t.Error("unknown id accepted")
	}
	if got := e.TaskTypes(); !reflect.DeepEqual(got, []string{"beauty", "electronics", "fashion", "food", "furniture"}) {
		t.Errorf("task types %v", got)
	}
}

func TestGoalTextsDistinctAcrossSplits(t *testing.T) {
	e := mustEnv(t)
	where := map[string]string{}
	for _, sp := range e.Splits() {
		for _, g := range e.tasks.Split(sp) {
			if w, ok := where[g.Text]; ok {
				t.Fatalf("goal %q in %s and %s", g.Text, w, sp)
			}
			where[g.Text] = sp
		}
	}
}

func TestOracleSolvesSampledTasks(t *testing.T) {
	e := mustEnv(t)
	for _, sp := range e.Splits() {
		ids, _ := e.Tasks(sp)
		ids = sample(ids, 500)
		steps := 0
		for _, id := range ids {
			o := play(t, e, id, e.Oracle(), 1)
			if !o.Last.Success || o.Last.Score != 1 || o.Last.Reward != 1 {
				t.Fatalf("%s: oracle failed: %+v (goal %q)", id, o.Last, mustGoal(t, e, id).Text)
			}
			steps += o.Steps
		}
		t.Logf("%s: oracle solved %d/%d sampled tasks, %.2f steps/episode", sp, len(ids), len(ids), float64(steps)/float64(len(ids)))
	}
	t.Logf("candidate goals rejected during generation: %d", e.Rejected)
}

func TestRandomAgentSuccessRate(t *testing.T) {
	e := mustEnv(t)
	ids, _ := e.Tasks(env.SplitTrain)
	ids = sample(ids, 1000)
	succ, score := 0, 0.0
	for i, id := range ids {
		o := play(t, e, id, env.RandomAgent(), int64(i))
		if o.Last.Success {
			succ++
		}
		score += o.Last.Score
	}
	rate := float64(succ) / float64(len(ids))
	t.Logf("random agent on 1000 train tasks: success %.3f, mean score %.3f over %d episodes", rate, score/float64(len(ids)), len(ids))
	if rate > 0.5 {
		t.Errorf("random agent succeeds too often (%.2f): the admissible set gives the task away", rate)
	}
}

func TestUnseenCombinationsNeverInTrain(t *testing.T) {
	e := mustEnv(t)
	train := map[string]bool{}
	pairs := map[string]bool{} // every (type, attribute) pair any train goal names
	for _, g := range e.tasks.Split(env.SplitTrain) {
		train[DefiningCombination(g.ID)] = true
		for _, a := range g.Attributes {
			pairs[g.Type+"|"+a] = true
		}
	}
	ids, _ := e.Tasks(env.SplitValidUnseen)
	for _, id := range ids {
		c := DefiningCombination(id)
		if c == "" || !strings.Contains(c, "|") {
			t.Fatalf("%s: bad defining combination %q", id, c)
		}
		if train[c] || pairs[c] {
			t.Fatalf("%s: defining combination %q occurs in train", id, c)
		}
	}
	seenIDs, _ := e.Tasks(env.SplitValidSeen)
	for _, id := range seenIDs {
		if !train[DefiningCombination(id)] && !pairs[DefiningCombination(id)] {
			t.Errorf("valid_seen %s: combination %q never in train", id, DefiningCombination(id))
		}
	}
	if DefiningCombination("shop/train/xx") != "" {
		t.Error("unknown id has a combination")
	}
}

func TestDeterministicGeneration(t *testing.T) {
	a := mustEnv(t)
	b, err := build()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.products, b.products) {
		t.Fatal("catalogues differ between builds")
	}
	for _, sp := range a.Splits() {
		for i := range a.tasks.Split(sp) {
			if !reflect.DeepEqual(a.tasks.Split(sp)[i], b.tasks.Split(sp)[i]) {
				t.Fatalf("%s goal %d differs between builds", sp, i)
			}
		}
	}
	if !reflect.DeepEqual(a.vocab, b.vocab) {
		t.Fatal("vocabularies differ")
	}
	// Episodes: same actions give the same observations.
	id := a.tasks.Split(SplitTest)[3].ID
	o1 := play(t, a, id, env.RandomAgent(), 5)
	o2 := play(t, a, id, env.RandomAgent(), 5)
	if !reflect.DeepEqual(o1.Texts, o2.Texts) {
		t.Fatal("replaying an episode changed its transcript")
	}
}

func TestScoreHandWorked(t *testing.T) {
	g := &Goal{
		Category: "fashion", Type: "jacket",
		Attributes: []string{"water resistant", "breathable"},
		Options:    []Option{{"color", "black"}, {"size", "large"}},
		PriceLimit: 50,
	}
	jacket := &Product{Category: "fashion", Type: "jacket", Title: "acme water resistant jacket",
		Attributes: []string{"breathable", "slim fit", "water resistant"},
		Options:    []Option{{"color", "black"}, {"color", "navy"}, {"size", "large"}, {"size", "small"}},
		PriceCents: 4599}
	hoodie := *jacket
	hoodie.Type, hoodie.Title = "hoodie", "acme water resistant hoodie"
	table := *jacket
	table.Category, table.Type, table.Title = "furniture", "coffee table", "acme solid wood coffee table"
	coffee := &Goal{Category: "food", Type: "coffee", Attributes: []string{"organic"}, PriceLimit: 50}
	both := map[string]string{"color": "black", "size": "large"}
	cases := []struct {
		name string
		g    *Goal
		p    *Product
		sel  map[string]string
		cost int
		want float64
	}{
		{"perfect", g, jacket, both, 0, 1},
		{"one option missing", g, jacket, map[string]string{"color": "black"}, 0, 4.0 / 5},
		{"wrong option value", g, jacket, map[string]string{"color": "navy", "size": "large"}, 0, 4.0 / 5},
		{"no options", g, jacket, nil, 0, 3.0 / 5},
		{"over price", g, jacket, both, 5000, 4.0 / 5},
		{"price equal to limit is over", g, jacket, both, 5000, 4.0 / 5},
		{"same category other type", g, &hoodie, both, 0, 0.5},
		{"other category sharing a word", coffee, &table, nil, 0, 0.1 * 1.0 / 2},
		{"unrelated", g, &table, both, 0, 0},
	}
	for _, c := range cases {
		p := *c.p
		if c.cost != 0 {
			p.PriceCents = c.cost
		}
		got := Score(c.g, &p, c.sel)
		if math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: score %v, want %v", c.name, got, c.want)
		}
	}
}

func TestParseAction(t *testing.T) {
	cases := []struct {
		in, verb, arg string
		ok            bool
	}{
		{"search[water resistant jacket]", "search", "water resistant jacket", true},
		{"  Search [ Water  Resistant ]  ", "search", "water resistant", true},
		{"click[b-07-42]", "click", "b-07-42", true},
		{"click[< prev]", "click", "< prev", true},
		{"click[buy now]", "click", "buy now", true},
		{"click[]", "", "", false},
		{"search[   ]", "", "", false},
		{"buy now", "", "", false},
		{"click b-07-42", "", "", false},
		{"look[x]", "", "", false},
	}
	for _, c := range cases {
		v, a, ok := parseAction(c.in)
		if v != c.verb || a != c.arg || ok != c.ok {
			t.Errorf("parseAction(%q) = %q %q %v, want %q %q %v", c.in, v, a, ok, c.verb, c.arg, c.ok)
		}
	}
}

func TestGoalParseRoundTrip(t *testing.T) {
	e := mustEnv(t)
	for _, g := range e.tasks.Split(env.SplitTrain)[:500] {
		pg, ok := parseGoal(g.Text)
		if !ok || pg.typ != g.Type || pg.limit != g.PriceLimit || len(pg.attrs) != len(g.Attributes) {
			t.Fatalf("parse %q: %+v", g.Text, pg)
		}
		for _, o := range g.Options {
			if pg.options[o.Dim] != o.Value {
				t.Fatalf("parse %q: option %s = %q, want %q", g.Text, o.Dim, pg.options[o.Dim], o.Value)
			}
		}
	}
}

func TestVocabularyCoversEpisodes(t *testing.T) {
	n := envtest.CheckVocabulary(t, mustEnv(t), 60, 1, 100)
	if n > 2000 {
		t.Errorf("vocabulary has %d words", n)
	}
	t.Logf("vocabulary: %d words", n)
}

func TestEpisodeMechanicsAndFeatures(t *testing.T) {
	e := mustEnv(t)
	g := e.tasks.Split(env.SplitValidSeen)[0]
	ep, _ := e.Reset(g.ID, 0)
	if ep.MaxSteps() != 15 || ep.TaskType() != g.Category || !strings.Contains(ep.Observation(), g.Text) {
		t.Fatal("episode header wrong")
	}
	// click on the search page is invalid, search elsewhere is invalid.
	if st := ep.Step("click[buy now]"); st.Valid || st.Done {
		t.Fatalf("click on search page: %+v", st)
	}
	// a query without the product type, then buy the first result without options.
	other := ""
	for _, c := range categories {
		if c.name != g.Category {
			other = c.types[0]
			break
		}
	}
	st := ep.Step("search[" + other + "]")
	if !st.Valid || !strings.HasPrefix(st.Observation, "[back to search] page 1 (total ") {
		t.Fatalf("search: %+v", st)
	}
	if st2 := ep.Step("search[x]"); st2.Valid {
		t.Fatal("search on results page accepted")
	}
	first := resultRe.FindStringSubmatch(st.Observation)[1]
	if st = ep.Step("click[" + first + "]"); !st.Valid || !strings.Contains(st.Observation, "[buy now]") {
		t.Fatalf("click result: %+v", st)
	}
	st = ep.Step("click[buy now]")
	if !st.Done || st.Success || st.Reward != st.Score || st.Score >= 0.5 {
		t.Fatalf("buy wrong product: %+v", st)
	}
	f := strings.Join(ep.Features(), " ")
	for _, want := range []string{"action:search", "action:click_result", "action:buy", "query:no_type", "failure:wrong_type", "failure:missing_option", "failure:invalid_action"} {
		if !strings.Contains(f, want) {
			t.Errorf("features %q lack %s", f, want)
		}
	}
	if st := ep.Step("click[buy now]"); !st.Done || st.Valid {
		t.Fatal("step after done")
	}

	// Budget: 15 invalid actions end the episode with reward 0 and a loop.
	ep, _ = e.Reset(g.ID, 0)
	var last env.Step
	for i := 0; i < MaxSteps; i++ {
		if last.Done {
			t.Fatalf("done after %d steps", i)
		}
		last = ep.Step("dance")
	}
	if !last.Done || last.Reward != 0 || last.Success {
		t.Fatalf("budget: %+v", last)
	}
	f = strings.Join(ep.Features(), " ")
	for _, want := range []string{"failure:max_steps", "failure:loop", "failure:invalid_action"} {
		if !strings.Contains(f, want) {
			t.Errorf("features %q lack %s", f, want)
		}
	}
	fs := ep.Features()
	for i := 1; i < len(fs); i++ {
		if fs[i-1] >= fs[i] {
			t.Fatalf("features not sorted/deduped: %v", fs)
		}
	}

	// Oracle run shows the milestones; pagination works.
	o := play(t, e, g.ID, e.Oracle(), 0)
	f = strings.Join(o.Features, " ")
	for _, want := range []string{"milestone:found_product", "milestone:selected_options", "action:click_option", "query:type"} {
		if !strings.Contains(f, want) {
			t.Errorf("oracle features %q lack %s", f, want)
		}
	}
	ep, _ = e.Reset(g.ID, 0)
	st = ep.Step("search[" + g.Category + "]")
	if !strings.Contains(st.Observation, "[next >]") {
		t.Fatalf("expected several pages: %s", st.Observation)
	}
	st = ep.Step("click[next >]")
	if !st.Valid || !strings.Contains(st.Observation, "page 2 ") || !strings.Contains(st.Observation, "[< prev]") {
		t.Fatalf("next page: %+v", st)
	}
	if st = ep.Step("click[< prev]"); !st.Valid || !strings.Contains(st.Observation, "page 1 ") {
		t.Fatalf("prev page: %+v", st)
	}
	if st = ep.Step("click[back to search]"); !st.Valid || !strings.HasPrefix(st.Observation, "instruction: ") {
		t.Fatalf("back to search: %+v", st)
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

func mustGoal(t *testing.T, e *Env, id string) *Goal {
	t.Helper()
	g, ok := e.Goal(id)
	if !ok {
		t.Fatalf("no goal %s", id)
	}
	return g
}

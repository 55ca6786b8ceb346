package household

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/words"
)

// result is what a test needs of one finished episode.
type result struct {
	success bool
	steps   int
	texts   []string // goal, observations and actions, in order
	feats   []string
}

// run plays one episode of task id with agent a.
func run(t testing.TB, e env.Env, id string, seed int64, a env.Agent) result {
	t.Helper()
	ep, err := e.Reset(id, seed)
	if err != nil {
		t.Fatalf("Reset(%s): %v", id, err)
	}
	res := result{texts: []string{ep.Goal(), ep.Observation()}}
	a.Start(ep.Goal(), ep.Observation(), seed)
	obs := ep.Observation()
	for i := 0; i < ep.MaxSteps(); i++ {
		act := a.Act(obs, ep.Admissible())
		st := ep.Step(act)
		res.steps++
		res.texts = append(res.texts, act, st.Observation)
		obs = st.Observation
		if st.Done {
			res.success = st.Success
			if st.Success && (st.Reward != RewardSuccess || st.Score != 1) {
				t.Fatalf("%s: success with reward %v score %v", id, st.Reward, st.Score)
			}
			if !st.Success && (st.Reward != 0 || st.Score != 0) {
				t.Fatalf("%s: failure with reward %v score %v", id, st.Reward, st.Score)
			}
			break
		}
		if st.Reward != 0 {
			t.Fatalf("%s: reward %v before the end", id, st.Reward)
		}
	}
	res.feats = ep.Features()
	return res
}

// randomAgent picks uniformly among the admissible actions.
type randomAgent struct{ r *rand.Rand }

func (a *randomAgent) Start(goal, obs string, seed int64) {
	a.r = rand.New(rand.NewPCG(uint64(seed), 7))
}
func (a *randomAgent) Act(obs string, adm []string) string { return adm[a.r.IntN(len(adm))] }

// sample returns every k-th id of a split, at least n of them.
func sample(t testing.TB, e env.Env, split string, n int) []string {
	ids, err := e.Tasks(split)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) <= n {
		return ids
	}
	var out []string
	step := len(ids) / n
	for i := 0; i < len(ids) && len(out) < n; i += step {
		out = append(out, ids[i])
	}
	return out
}

func TestKindCounts(t *testing.T) {
	if len(recepKinds) < 20 || len(objKinds) < 40 || len(roomKinds) != 4 {
		t.Errorf("%d receptacle kinds, %d object kinds, %d room kinds", len(recepKinds), len(objKinds), len(roomKinds))
	}
	for _, o := range objKinds {
		for _, s := range o.spawn {
			if recepByName[s] == nil {
				t.Errorf("object %s: unknown receptacle kind %s", o.name, s)
			}
		}
	}
}

func TestRegistered(t *testing.T) {
	e, err := env.Open("household")
	if err != nil {
		t.Fatal(err)
	}
	if e.Name() != "household" {
		t.Fatalf("name %q", e.Name())
	}
	if got := e.TaskTypes(); len(got) != 6 || got[0] != TypePickAndPlace || got[5] != TypePickTwo {
		t.Fatalf("task types %v", got)
	}
}

func TestSplitSizes(t *testing.T) {
	e := New()
	for _, tc := range []struct {
		split string
		n     int
	}{{env.SplitTrain, 3553}, {env.SplitValidSeen, 140}, {env.SplitValidUnseen, 134}} {
		ids, err := e.Tasks(tc.split)
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) != tc.n {
			t.Errorf("%s: %d tasks, want %d", tc.split, len(ids), tc.n)
		}
		seen := map[string]bool{}
		for _, id := range ids {
			if seen[id] {
				t.Fatalf("%s: duplicate id %s", tc.split, id)
			}
			seen[id] = true
		}
		if want := "household/" + tc.split + "/00042"; ids[42] != want {
			t.Errorf("%s: id 42 is %q, want %q", tc.split, ids[42], want)
		}
	}
	if _, err := e.Tasks("test"); err == nil {
		t.Error("unknown split accepted")
	}
	for _, bad := range []string{"household/train/3553", "household/train/42", "household/bogus/00001", "shop/train/00001", ""} {
		if _, err := e.Reset(bad, 0); err == nil {
			t.Errorf("Reset(%q) accepted", bad)
		}
	}
}

// closedCount is the number of openable receptacles of room w.
func closedCount(w *world) int {
	n := 0
	for _, r := range w.receps {
		if r.openable {
			n++
		}
	}
	return n
}

// TestDistinctTrainTasks checks that the training tasks are distinct rooms
// and goals, and that every type is represented evenly.
func TestDistinctTrainTasks(t *testing.T) {
	e := New()
	sig := func(id string) (string, *taskSpec) {
		s, err := specFor(id)
		if err != nil {
			t.Fatal(err)
		}
		w := generate(s)
		if closed := closedCount(w); len(w.receps) > maxReceptacles || closed > maxClosed {
			t.Errorf("%s: %d receptacles, %d closed", id, len(w.receps), closed)
		}
		goals := 0
		for _, o := range w.objs {
			if o.kind == s.c.obj {
				goals++
				if s.c.typ != TypeLookInLight && w.receps[o.loc].kind == s.c.recep {
					t.Errorf("%s: %s starts in a %s", id, o.name, s.c.recep)
				}
			}
		}
		if goals == 0 || (s.c.typ == TypePickTwo && goals < 2) {
			t.Errorf("%s: %d objects of kind %s", id, goals, s.c.obj)
		}
		var b strings.Builder
		b.WriteString(s.goal)
		for _, r := range w.receps {
			b.WriteString("|" + r.name)
		}
		for _, o := range w.objs {
			fmt.Fprintf(&b, "|%s@%d", o.name, o.loc)
		}
		return b.String(), s
	}
	ids, _ := e.Tasks(env.SplitTrain)
	sigs := map[string]bool{}
	types := map[string]int{}
	for _, id := range ids {
		g, s := sig(id)
		sigs[g] = true
		types[s.c.typ]++
	}
	if len(sigs) < 3000 {
		t.Errorf("%d distinct training tasks, want >= 3000", len(sigs))
	}
	for _, typ := range taskTypes {
		if types[typ] < len(ids)/6 {
			t.Errorf("type %s has %d training tasks", typ, types[typ])
		}
	}
	seen, _ := e.Tasks(env.SplitValidSeen)
	for _, id := range seen {
		if g, _ := sig(id); sigs[g] {
			t.Errorf("valid_seen task %s repeats a training room", id)
		}
	}
}

// TestUnseenCombinations checks the split design: valid_unseen pairs never
// occur in train or valid_seen; valid_seen combinations all occur in train.
func TestUnseenCombinations(t *testing.T) {
	e := New()
	trainCombos, trainPairs := map[string]bool{}, map[string]bool{}
	pairOf := func(c string) string { p := strings.SplitN(c, "/", 2); return p[1] }
	for _, split := range []string{env.SplitTrain, env.SplitValidSeen} {
		ids, _ := e.Tasks(split)
		for _, id := range ids {
			c, err := DefiningCombination(id)
			if err != nil {
				t.Fatal(err)
			}
			if split == env.SplitTrain {
				trainCombos[c] = true
				trainPairs[pairOf(c)] = true
			} else if !trainCombos[c] {
				t.Errorf("valid_seen task %s has combination %s, absent from train", id, c)
			}
		}
	}
	ids, _ := e.Tasks(env.SplitValidUnseen)
	types := map[string]bool{}
	for _, id := range ids {
		c, err := DefiningCombination(id)
		if err != nil {
			t.Fatal(err)
		}
		if trainPairs[pairOf(c)] {
			t.Errorf("valid_unseen task %s shares its pair %s with train", id, c)
		}
		types[strings.SplitN(c, "/", 2)[0]] = true
	}
	if len(types) != 6 {
		t.Errorf("valid_unseen covers %d task types, want 6", len(types))
	}
	if len(trainCombos) < 300 {
		t.Errorf("only %d training combinations", len(trainCombos))
	}
}

func TestOracleSolvesEveryTask(t *testing.T) {
	e := New()
	for _, split := range e.Splits() {
		ids, _ := e.Tasks(split) // every task: about 2 s in all
		total, worst := 0, 0
		for _, id := range ids {
			r := run(t, e, id, 1, e.Oracle())
			if !r.success {
				t.Errorf("oracle failed %s in %d steps:\n%s", id, r.steps, strings.Join(r.texts, "\n"))
				continue
			}
			for _, f := range r.feats {
				if strings.HasPrefix(f, "failure:") {
					t.Errorf("oracle episode %s has %s", id, f)
				}
			}
			total += r.steps
			worst = max(worst, r.steps)
		}
		t.Logf("%s: %d tasks, oracle %.1f steps/episode, worst %d", split, len(ids), float64(total)/float64(len(ids)), worst)
	}
}

func TestRandomPolicyRarelySucceeds(t *testing.T) {
	e := New()
	ids := sample(t, e, env.SplitTrain, 200)
	wins := 0
	for i, id := range ids {
		if run(t, e, id, int64(i), &randomAgent{}).success {
			wins++
		}
	}
	rate := float64(wins) / float64(len(ids))
	t.Logf("random policy: %d/%d = %.3f", wins, len(ids), rate)
	if rate >= 0.10 {
		t.Errorf("random success rate %.3f, want < 0.10", rate)
	}
}

func TestDeterminism(t *testing.T) {
	e := New()
	for _, id := range sample(t, e, env.SplitValidUnseen, 20) {
		a := run(t, e, id, 5, e.Oracle())
		b := run(t, e, id, 5, NewOracle())
		c := run(t, New(), id, 5, &randomAgent{})
		d := run(t, New(), id, 5, &randomAgent{})
		if strings.Join(a.texts, "\n") != strings.Join(b.texts, "\n") {
			t.Errorf("%s: oracle episodes differ", id)
		}
		if strings.Join(c.texts, "\n") != strings.Join(d.texts, "\n") || strings.Join(c.feats, ",") != strings.Join(d.feats, ",") {
			t.Errorf("%s: random episodes with the same seed differ", id)
		}
	}
}

func TestVocabularyCoversEverything(t *testing.T) {
	e := New()
	vocab := map[string]bool{}
	for _, w := range e.Vocabulary() {
		if w != strings.ToLower(w) {
			t.Errorf("vocabulary word %q is not lower case", w)
		}
		vocab[w] = true
	}
	if n := len(vocab); n > 1500 || n < 100 {
		t.Errorf("vocabulary has %d words", n)
	}
	missing := map[string]string{}
	// every world: the large ones number up to 14 instances of a kind
	for _, world := range []env.Env{e, NewRL(), NewDrawn(), NewRLLarge(), NewDrawnLarge()} {
		for _, split := range world.Splits() {
			for i, id := range sample(t, world, split, 30) {
				for _, a := range []env.Agent{world.Oracle(), &randomAgent{}} {
					r := run(t, world, id, int64(i), a)
					for _, text := range r.texts {
						for _, word := range words.Split(text) {
							if !vocab[word] {
								missing[word] = text
							}
						}
					}
				}
			}
		}
	}
	for w, text := range missing {
		t.Errorf("word %q not in the vocabulary (from %q)", w, text)
	}
}

func TestWords(t *testing.T) {
	got := strings.Join(words.Split("Your task is to: put a Mug 12 in/on shelf."), "|")
	if want := "your|task|is|to|:|put|a|mug|12|in|/|on|shelf|."; got != want {
		t.Errorf("words = %s, want %s", got, want)
	}
}

func TestParseGoal(t *testing.T) {
	for _, tc := range []struct{ goal, typ, obj, target string }{
		{"Your task is to: put some apple in fridge.", TypePickAndPlace, "apple", "fridge"},
		{"Your task is to: put a pen on desk.", TypePickAndPlace, "pen", "desk"},
		{"Your task is to: look at book under the desklamp.", TypeLookInLight, "book", "desklamp"},
		{"Your task is to: examine the cd with the floorlamp.", TypeLookInLight, "cd", "floorlamp"},
		{"Your task is to: clean some mug and put it in cabinet.", TypeClean, "mug", "cabinet"},
		{"Your task is to: put a clean mug in cabinet.", TypeClean, "mug", "cabinet"},
		{"Your task is to: heat some egg and put it on countertop.", TypeHeat, "egg", "countertop"},
		{"Your task is to: put a hot egg on countertop.", TypeHeat, "egg", "countertop"},
		{"Your task is to: cool some pot and put it on stoveburner.", TypeCool, "pot", "stoveburner"},
		{"Your task is to: put a cool pot on stoveburner.", TypeCool, "pot", "stoveburner"},
		{"Your task is to: put two cd in safe.", TypePickTwo, "cd", "safe"},
		{"Your task is to: find two cd and put them in safe.", TypePickTwo, "cd", "safe"},
	} {
		typ, obj, target, ok := parseGoal(tc.goal)
		if !ok || typ != tc.typ || obj != tc.obj || target != tc.target {
			t.Errorf("parseGoal(%q) = %s %s %s %v", tc.goal, typ, obj, target, ok)
		}
	}
	if _, _, _, ok := parseGoal("Your task is to: dance."); ok {
		t.Error("parseGoal accepted an unknown goal")
	}
}

// TestGoalPhrasings checks that the generated goals use every form.
func TestGoalPhrasings(t *testing.T) {
	e := New()
	ids, _ := e.Tasks(env.SplitTrain)
	forms := map[string]bool{}
	for _, id := range ids[:600] {
		ep, err := e.Reset(id, 0)
		if err != nil {
			t.Fatal(err)
		}
		g := ep.Goal()
		if !strings.HasPrefix(g, "Your task is to: ") || !strings.HasSuffix(g, ".") {
			t.Fatalf("goal %q", g)
		}
		typ, obj, target, ok := parseGoal(g)
		s, _ := specFor(id)
		if !ok || typ != ep.TaskType() || obj != s.c.obj || target != s.c.recep {
			t.Errorf("%s: goal %q parses as %s %s %s", id, g, typ, obj, target)
		}
		f := strings.Fields(strings.TrimPrefix(g, "Your task is to: "))
		forms[typ+" "+f[0]+" "+f[1]] = true
	}
	if len(forms) < 12 {
		t.Errorf("only %d goal forms seen: %v", len(forms), forms)
	}
}

// fixedWorld is a small kitchen built by hand for the grammar tests.
func fixedWorld(typ, obj, recep string) *episode {
	s := &taskSpec{id: "household/train/00000", c: combo{typ: typ, obj: obj, recep: recep}, goal: "test"}
	w := &world{room: roomKitchen,
		receps: []receptacle{
			{name: "countertop 1", kind: "countertop"},
			{name: "fridge 1", kind: "fridge", openable: true},
			{name: "microwave 1", kind: "microwave", openable: true},
			{name: "sinkbasin 1", kind: "sinkbasin"},
			{name: "cabinet 1", kind: "cabinet", openable: true},
			{name: "desk 1", kind: "desk"},
		},
		objs: []object{
			{name: "apple 1", kind: "apple", loc: 0},
			{name: "mug 2", kind: "mug", loc: 0},
			{name: "egg 1", kind: "egg", loc: 1},
			{name: "desklamp 1", kind: "desklamp", loc: 5, lamp: true},
			{name: "book 1", kind: "book", loc: 5},
		},
	}
	return newEpisode(s, w)
}

func TestCommandGrammar(t *testing.T) {
	type step struct {
		act   string
		valid bool
		obs   string // expected prefix of the observation
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"start and look", []step{
			{"look", true, "You are in the middle of a room. Looking quickly around you, you see a countertop 1, a fridge 1,"},
			{"inventory", true, "You are not carrying anything."},
			{"dance", false, "Nothing happens."},
			{"", false, "Nothing happens."},
		}},
		{"go to", []step{
			{"go to countertop 1", true, "You arrive at countertop 1. On the countertop 1, you see a apple 1, and a mug 2."},
			{"go to countertop 1", false, "Nothing happens."},
			{"go to countertop", false, "Nothing happens."},
			{"go to fridge 9", false, "Nothing happens."},
			{"Go  to fridge 1.", true, "You arrive at fridge 1. The fridge 1 is closed."},
			{"look", true, "You are facing the fridge 1."},
		}},
		{"open and close", []step{
			{"open fridge 1", false, "Nothing happens."},
			{"go to fridge 1", true, "You arrive at fridge 1. The fridge 1 is closed."},
			{"take egg 1 from fridge 1", false, "Nothing happens."},
			{"examine egg 1", false, "Nothing happens."},
			{"close fridge 1", false, "Nothing happens."},
			{"open fridge 1", true, "You open the fridge 1. The fridge 1 is open. In it, you see a egg 1."},
			{"open fridge 1", false, "Nothing happens."},
			{"close fridge 1", true, "You close the fridge 1."},
			{"go to countertop 1", true, "You arrive at countertop 1."},
			{"open countertop 1", false, "Nothing happens."},
		}},
		{"take and put", []step{
			{"take apple 1 from countertop 1", false, "Nothing happens."},
			{"go to countertop 1", true, "You arrive"},
			{"take apple 1 from fridge 1", false, "Nothing happens."},
			{"take egg 1 from countertop 1", false, "Nothing happens."},
			{"take apple 1 from countertop 1", true, "You pick up the apple 1 from the countertop 1."},
			{"take mug 2 from countertop 1", false, "Nothing happens."},
			{"inventory", true, "You are carrying: a apple 1."},
			{"examine apple 1", true, "This is a apple 1."},
			{"put mug 2 in/on countertop 1", false, "Nothing happens."},
			{"put apple 1 in/on fridge 1", false, "Nothing happens."},
			{"go to fridge 1", true, "You arrive"},
			{"put apple 1 in/on fridge 1", false, "Nothing happens."},
			{"open fridge 1", true, "You open"},
			{"put apple 1 in fridge 1", true, "You put the apple 1 in/on the fridge 1."},
			{"put apple 1 in/on fridge 1", false, "Nothing happens."},
		}},
		{"heat cool clean", []step{
			{"go to countertop 1", true, "You arrive"},
			{"heat apple 1 with microwave 1", false, "Nothing happens."},
			{"take apple 1 from countertop 1", true, "You pick up"},
			{"heat apple 1 with microwave 1", false, "Nothing happens."},
			{"go to microwave 1", true, "You arrive at microwave 1. The microwave 1 is closed."},
			{"cool apple 1 with microwave 1", false, "Nothing happens."},
			{"heat mug 2 with microwave 1", false, "Nothing happens."},
			{"heat apple 1 with microwave 1", true, "You heat the apple 1 using the microwave 1."},
			{"examine apple 1", true, "This is a hot apple 1."},
			{"go to fridge 1", true, "You arrive"},
			{"clean apple 1 with fridge 1", false, "Nothing happens."},
			{"cool apple 1 with fridge 1", true, "You cool the apple 1 using the fridge 1."},
			{"go to sinkbasin 1", true, "You arrive at sinkbasin 1. On the sinkbasin 1, you see nothing."},
			{"clean apple 1 with sinkbasin 1", true, "You clean the apple 1 using the sinkbasin 1."},
			{"examine apple 1", true, "This is a clean cool apple 1."},
		}},
		{"use and examine", []step{
			{"use desklamp 1", false, "Nothing happens."},
			{"go to desk 1", true, "You arrive at desk 1. On the desk 1, you see a desklamp 1, and a book 1."},
			{"use book 1", false, "Nothing happens."},
			{"take desklamp 1 from desk 1", false, "Nothing happens."},
			{"examine desklamp 1", true, "This is a desklamp 1. It is off."},
			{"use desklamp 1", true, "You turn on the desklamp 1."},
			{"use desklamp 1", true, "You turn off the desklamp 1."},
			{"examine desk 1", true, "On the desk 1, you see a desklamp 1, and a book 1."},
			{"examine fridge 1", false, "Nothing happens."},
			{"examine apple 1", false, "Nothing happens."},
			{"examine spaceship 1", false, "Nothing happens."},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := fixedWorld(TypePickAndPlace, "egg", "diningtable")
			for i, s := range tc.steps {
				adm := e.Admissible()
				listed := false
				for _, a := range adm {
					listed = listed || a == normalize(s.act)
				}
				st := e.Step(s.act)
				if st.Valid != s.valid || !strings.HasPrefix(st.Observation, s.obs) {
					t.Fatalf("step %d %q: valid=%v obs=%q, want valid=%v obs prefix %q", i, s.act, st.Valid, st.Observation, s.valid, s.obs)
				}
				// Admissible lists the valid canonical forms (put uses "in/on").
				canonical := !strings.Contains(s.act, " in ") && s.act == normalize(s.act)
				if canonical && s.act != "" && listed != s.valid {
					t.Errorf("step %d %q: listed in Admissible=%v, valid=%v (%v)", i, s.act, listed, s.valid, adm)
				}
			}
		})
	}
}

// TestAdmissibleAreValid checks that every admissible action is accepted.
func TestAdmissibleAreValid(t *testing.T) {
	e := New()
	r := rand.New(rand.NewPCG(1, 2))
	for _, id := range sample(t, e, env.SplitValidSeen, 30) {
		ep, _ := e.Reset(id, 0)
		for i := 0; i < 30; i++ {
			adm := ep.Admissible()
			act := adm[r.IntN(len(adm))]
			if st := ep.Step(act); !st.Valid {
				t.Fatalf("%s: admissible %q answered %q", id, act, st.Observation)
			} else if st.Done {
				break
			}
		}
	}
}

func TestGoalConditions(t *testing.T) {
	t.Run("heat needs heating", func(t *testing.T) {
		e := fixedWorld(TypeHeat, "apple", "fridge")
		for _, a := range []string{"go to countertop 1", "take apple 1 from countertop 1", "go to fridge 1", "open fridge 1"} {
			e.Step(a)
		}
		if st := e.Step("put apple 1 in/on fridge 1"); st.Done {
			t.Fatal("cold apple in fridge counted as heated")
		}
		feats := strings.Join(e.Features(), ",")
		if !strings.Contains(feats, "failure:missing_transform") {
			t.Errorf("features %s lack failure:missing_transform", feats)
		}
		for _, a := range []string{"take apple 1 from fridge 1", "go to microwave 1", "heat apple 1 with microwave 1", "go to fridge 1"} {
			if st := e.Step(a); !st.Valid {
				t.Fatalf("%q invalid", a)
			}
		}
		st := e.Step("put apple 1 in/on fridge 1")
		if !st.Done || !st.Success || st.Reward != 10 || st.Score != 1 {
			t.Fatalf("heated apple in fridge: %+v", st)
		}
		if st := e.Step("look"); st.Valid || !st.Done {
			t.Errorf("step after the end: %+v", st)
		}
	})
	t.Run("look needs the lamp on while holding", func(t *testing.T) {
		e := fixedWorld(TypeLookInLight, "book", "desklamp")
		for _, a := range []string{"go to desk 1", "use desklamp 1"} {
			if st := e.Step(a); st.Done {
				t.Fatalf("%q ended the episode", a)
			}
		}
		st := e.Step("take book 1 from desk 1")
		if !st.Success {
			t.Fatalf("holding the book under the lit lamp: %+v", st)
		}
	})
	t.Run("wrong object and receptacle", func(t *testing.T) {
		e := fixedWorld(TypePickAndPlace, "apple", "fridge")
		for _, a := range []string{"go to countertop 1", "take mug 2 from countertop 1", "put mug 2 in/on countertop 1", "take apple 1 from countertop 1", "go to sinkbasin 1", "put apple 1 in/on sinkbasin 1"} {
			e.Step(a)
		}
		want := []string{"action:go", "action:put", "action:take", "failure:wrong_object", "failure:wrong_receptacle",
			"milestone:found_target", "milestone:took_target", "object:apple", "object:mug", "recep:countertop", "recep:fridge", "recep:sinkbasin", "visited:countertop", "visited:sinkbasin"}
		if got := e.Features(); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("features\n got %v\nwant %v", got, want)
		}
	})
	t.Run("max steps", func(t *testing.T) {
		e := fixedWorld(TypePickAndPlace, "apple", "fridge")
		var st env.Step
		for i := 0; i < MaxSteps; i++ {
			if i%2 == 0 {
				st = e.Step("go to countertop 1")
			} else {
				st = e.Step("go to desk 1")
			}
		}
		if !st.Done || st.Success {
			t.Fatalf("after %d steps: %+v", MaxSteps, st)
		}
		feats := strings.Join(e.Features(), ",")
		for _, f := range []string{"failure:max_steps", "failure:loop"} {
			if !strings.Contains(feats, f) {
				t.Errorf("features %s lack %s", feats, f)
			}
		}
	})
}

func TestLooping(t *testing.T) {
	for _, tc := range []struct {
		h    string
		want bool
	}{
		{"a a a", true}, {"a a", false}, {"a b a b", true}, {"a b a", false},
		{"a b c a b c", true}, {"a b c a b d", false}, {"x a a a", true}, {"a b c d e f", false},
	} {
		if got := looping(strings.Fields(tc.h)); got != tc.want {
			t.Errorf("looping(%s) = %v", tc.h, got)
		}
	}
}

func BenchmarkOracleEpisode(b *testing.B) {
	e := New()
	ids, _ := e.Tasks(env.SplitTrain)
	a := e.Oracle()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id := ids[i%len(ids)]
		ep, err := e.Reset(id, 0)
		if err != nil {
			b.Fatal(err)
		}
		a.Start(ep.Goal(), ep.Observation(), 0)
		obs := ep.Observation()
		for {
			st := ep.Step(a.Act(obs, ep.Admissible()))
			obs = st.Observation
			if st.Done {
				if !st.Success {
					b.Fatalf("%s failed", id)
				}
				break
			}
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "episodes/s")
}

// TestConcurrentUse runs episodes from several goroutines on one Env and
// checks they match sequential runs.
func TestConcurrentUse(t *testing.T) {
	e := New()
	ids := sample(t, e, env.SplitTrain, 40)
	want := make([]string, len(ids))
	for i, id := range ids {
		want[i] = strings.Join(run(t, e, id, 3, e.Oracle()).texts, "\n")
	}
	got := make([]string, len(ids))
	done := make(chan struct{})
	for w := 0; w < 4; w++ {
		go func(w int) {
			defer func() { done <- struct{}{} }()
			for i := w; i < len(ids); i += 4 {
				ep, err := e.Reset(ids[i], 3)
				if err != nil {
					return
				}
				a := e.Oracle()
				a.Start(ep.Goal(), ep.Observation(), 3)
				texts := []string{ep.Goal(), ep.Observation()}
				obs := ep.Observation()
				for {
					act := a.Act(obs, ep.Admissible())
					st := ep.Step(act)
					texts = append(texts, act, st.Observation)
					obs = st.Observation
					if st.Done {
						break
					}
				}
				got[i] = strings.Join(texts, "\n")
			}
		}(w)
	}
	for w := 0; w < 4; w++ {
		<-done
	}
	for i := range ids {
		if got[i] != want[i] {
			t.Errorf("%s: concurrent episode differs from the sequential one", ids[i])
		}
	}
}

package searchqa

import (
	"fmt"
	"sort"
	"strconv"
	"sync"

	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/env/internal/splitmix"
	"github.com/pats-rl/pats/lib/env/internal/textindex"
	"github.com/pats-rl/pats/lib/words"
)

// Name is the registry name.
const Name = "searchqa"

// SplitTest is the held-out test split.
const SplitTest = "test"

// Split sizes.
const (
	TrainSize       = 3000
	ValidSeenSize   = 200
	ValidUnseenSize = 200
	TestSize        = 500
)

// unseenPercent of the entities are reserved as start entities of
// valid_unseen questions.
const unseenPercent = 15

func init() {
	env.Register(Name, func() (env.Env, error) { return New() })
}

// Env is the searchqa environment. Immutable after construction, safe for
// concurrent use.
type Env struct {
	w      *world
	idx    *textindex.Index
	unseen []bool // per entity: reserved for valid_unseen starts
	tasks  *env.TaskSet[*Question]
	vocab  []string
	// Rejected counts candidate questions dropped while generating (the
	// oracle could not answer them within the budget).
	Rejected int
}

var (
	once    sync.Once
	shared  *Env
	initErr error
)

// New returns the environment; the corpus and questions are generated once
// per process, deterministically.
func New() (*Env, error) {
	once.Do(func() { shared, initErr = build() })
	return shared, initErr
}

// startKinds weights the kind of a question's start entity.
var startKinds = []int{kindPerson, kindPerson, kindPerson, kindCompany, kindCompany, kindCompany,
	kindCity, kindCity, kindUniversity, kindCountry, kindRiver}

func build() (*Env, error) {
	e := &Env{tasks: env.NewTaskSet(Name, []string{env.SplitTrain, env.SplitValidSeen, env.SplitValidUnseen, SplitTest}, func(q *Question) string { return q.ID })}
	e.w = buildWorld(splitmix.New(0x5EA201))
	texts := make([]string, len(e.w.passages))
	for i, p := range e.w.passages {
		texts[i] = p.text
	}
	e.idx = newIndex(texts)
	ur := splitmix.New(0x5EA202)
	e.unseen = make([]bool, len(e.w.ents))
	for i := range e.unseen {
		e.unseen[i] = ur.Intn(100) < unseenPercent
	}
	used := map[string]bool{}
	plan := []struct {
		split  string
		n      int
		unseen bool
		seed   uint64
	}{
		{env.SplitTrain, TrainSize, false, 0x5EA210},
		{env.SplitValidSeen, ValidSeenSize, false, 0x5EA211},
		{env.SplitValidUnseen, ValidUnseenSize, true, 0x5EA212},
		{SplitTest, TestSize, false, 0x5EA213},
	}
	for _, sp := range plan {
		r := splitmix.New(sp.seed)
		for i := 0; i < sp.n; i++ {
			hops := 1 + i%3
			var q *Question
			for tries := 0; q == nil; tries++ {
				if tries > 10000 {
					return nil, fmt.Errorf("searchqa: cannot generate question %d of split %s", i, sp.split)
				}
				q = e.draw(r, hops, sp.unseen)
				if q == nil {
					continue
				}
				if used[q.DefiningCombination()] {
					q = nil
					continue
				}
				if !e.oracleSolves(q) {
					e.Rejected++
					q = nil
				}
			}
			used[q.DefiningCombination()] = true
			q.Split = sp.split
			q.ID = fmt.Sprintf("%s/%s/%05d", Name, sp.split, i)
			e.tasks.Add(sp.split, q)
		}
	}
	e.vocab = e.buildVocab()
	return e, nil
}

// draw samples a chain of hops relations from a random start entity of the
// wanted pool. Chains never revisit an entity. nil means retry.
func (e *Env) draw(r *splitmix.Rand, hops int, unseen bool) *Question {
	w := e.w
	kind := startKinds[r.Intn(len(startKinds))]
	ids := w.byKind[kind]
	s := ids[r.Intn(len(ids))]
	if e.unseen[s] != unseen {
		return nil
	}
	path, rels := []int{s}, []int(nil)
	cur := s
	for h := 0; h < hops; h++ {
		var opts []int
		for ri, rel := range relations {
			if rel.from == w.ents[cur].kind {
				opts = append(opts, ri)
			}
		}
		ri := opts[r.Intn(len(opts))]
		o := w.obj[ri][cur]
		if o < 0 {
			return nil
		}
		for _, p := range path {
			if p == o {
				return nil
			}
		}
		path, rels, cur = append(path, o), append(rels, ri), o
	}
	q := &Question{Type: taskTypes[hops-1], start: s, rels: rels, path: path}
	q.Start = w.ents[s].name
	for _, ri := range rels {
		q.Chain = append(q.Chain, relations[ri].name)
	}
	for _, p := range path {
		q.Path = append(q.Path, w.ents[p].name)
	}
	q.Answer = q.Path[len(q.Path)-1]
	q.Text = questionText(q.Start, rels)
	return q
}

func (e *Env) oracleSolves(q *Question) bool {
	ep := e.newEpisode(q)
	ag := NewOracle()
	ag.Start(ep.Goal(), ep.Observation(), 0)
	obs := ep.Observation()
	for {
		st := ep.Step(ag.Act(obs, nil))
		obs = st.Observation
		if st.Done {
			return st.Success
		}
	}
}

func (e *Env) newEpisode(q *Question) *episode {
	ep := &episode{env: e, q: q, feats: map[string]bool{}, queries: map[string]bool{}}
	ep.feature(fmt.Sprintf("hops:%d", q.Hops()))
	ep.obs = "question: " + q.Text
	return ep
}

// Name implements env.Env.
func (e *Env) Name() string { return Name }

// TaskTypes: single_hop, two_hop, three_hop.
func (e *Env) TaskTypes() []string { return append([]string(nil), taskTypes...) }

// Splits lists train, valid_seen, valid_unseen and test.
func (e *Env) Splits() []string { return e.tasks.Splits() }

// Tasks lists the ids of a split in order.
func (e *Env) Tasks(split string) ([]string, error) { return e.tasks.Tasks(split) }

// Reset starts an episode. Episodes are fully determined by the task; the
// seed does not change anything.
func (e *Env) Reset(id string, seed int64) (env.Episode, error) {
	q, err := e.tasks.Get(id)
	if err != nil {
		return nil, err
	}
	return e.newEpisode(q), nil
}

// Question returns the question of a task id.
func (e *Env) Question(id string) (*Question, bool) {
	return e.tasks.Lookup(id)
}

// NumPassages is the corpus size.
func (e *Env) NumPassages() int { return len(e.w.passages) }

// Search returns the texts of the top-3 passages for query, as search[query]
// would show them.
func (e *Env) Search(query string) []string {
	var out []string
	for _, p := range e.idx.Search(query, TopK) {
		out = append(out, e.w.passages[p].text)
	}
	return out
}

// Oracle returns a fresh oracle agent.
func (e *Env) Oracle() env.Agent { return NewOracle() }

// Vocabulary lists every word questions, observations and admissible
// actions can contain, sorted.
func (e *Env) Vocabulary() []string { return append([]string(nil), e.vocab...) }

// DefiningCombination returns "<start entity>|<relation chain>" of a task
// (never shared between valid_unseen and train), or "" for an unknown id.
func DefiningCombination(taskID string) string {
	e, err := New()
	if err != nil {
		return ""
	}
	q, ok := e.tasks.Lookup(taskID)
	if !ok {
		return ""
	}
	return q.DefiningCombination()
}

func (e *Env) buildVocab() []string {
	set := map[string]bool{}
	add := func(s string) {
		for _, w := range words.Split(s) {
			set[w] = true
		}
	}
	for _, s := range []string{"question:", invalidText, "search budget used up. no answer given.",
		"your answer is correct.", "your answer is wrong.", "no passages found.", "search[ ]", "answer[ ]", "answer[unknown]"} {
		add(s)
	}
	for i := 1; i <= TopK; i++ {
		add("[" + strconv.Itoa(i) + "]")
	}
	for _, p := range e.w.passages {
		add(p.text)
	}
	e.tasks.Each(func(_ string, qs []*Question) {
		for _, q := range qs {
			add(q.Text)
		}
	})
	for _, r := range relations {
		add(r.final)
		add(r.np)
		add(r.keyword)
	}
	out := make([]string, 0, len(set))
	for w := range set {
		out = append(out, w)
	}
	sort.Strings(out)
	return out
}

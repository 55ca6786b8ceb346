package shop

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
const Name = "shop"

// SplitTest is the held-out test split (WebShop's 500 test goals).
const SplitTest = "test"

// Split sizes.
const (
	TrainSize       = 3000
	ValidSeenSize   = 200
	ValidUnseenSize = 200
	TestSize        = 500
)

func init() {
	env.Register(Name, func() (env.Env, error) { return New() })
}

// Env is the shop environment: a fixed generated catalogue and goal set.
// It is immutable after construction and safe for concurrent use.
type Env struct {
	products []Product
	byType   map[string][]int
	idx      *textindex.Index
	heldOut  map[string]bool // "type|attribute" combinations reserved for valid_unseen
	tasks    *env.TaskSet[*Goal]
	vocab    []string
	// Rejected counts candidate goals dropped while generating (duplicate
	// text, or the oracle failed to solve them within the budget).
	Rejected int
}

var (
	once    sync.Once
	shared  *Env
	initErr error
)

// New returns the shop environment. The catalogue and goals are generated
// once per process (deterministically) and shared.
func New() (*Env, error) {
	once.Do(func() { shared, initErr = build() })
	return shared, initErr
}

func build() (*Env, error) {
	e := &Env{byType: map[string][]int{}, heldOut: map[string]bool{}, tasks: env.NewTaskSet(Name, []string{env.SplitTrain, env.SplitValidSeen, env.SplitValidUnseen, SplitTest}, func(g *Goal) string { return g.ID })}
	e.products = buildCatalogue(splitmix.New(0x5E0901))
	texts := make([]string, len(e.products))
	for i := range e.products {
		texts[i] = e.products[i].text()
		e.byType[e.products[i].Type] = append(e.byType[e.products[i].Type], i)
	}
	e.idx = newIndex(texts)

	hr := splitmix.New(0x5E0902)
	for _, c := range categories {
		for _, t := range c.types {
			e.heldOut[t+"|"+c.attrs[hr.Intn(len(c.attrs))]] = true
		}
	}

	texts2 := map[string]bool{}
	plan := []struct {
		split  string
		n      int
		unseen bool
		seed   uint64
	}{
		{env.SplitTrain, TrainSize, false, 0x5E0910},
		{env.SplitValidSeen, ValidSeenSize, false, 0x5E0911},
		{env.SplitValidUnseen, ValidUnseenSize, true, 0x5E0912},
		{SplitTest, TestSize, false, 0x5E0913},
	}
	for _, sp := range plan {
		r := splitmix.New(sp.seed)
		for i := 0; i < sp.n; i++ {
			cat := &categories[i%len(categories)]
			var g *Goal
			for tries := 0; g == nil; tries++ {
				if tries > 1000 {
					return nil, fmt.Errorf("shop: cannot generate goal %d of split %s", i, sp.split)
				}
				g = e.drawGoal(r, cat, sp.unseen)
				if g == nil {
					continue
				}
				if texts2[g.Text] || !e.oracleSolves(g) {
					e.Rejected++
					g = nil
				}
			}
			texts2[g.Text] = true
			g.Split = sp.split
			g.ID = fmt.Sprintf("%s/%s/%05d", Name, sp.split, i)
			e.tasks.Add(sp.split, g)
		}
	}
	e.vocab = e.buildVocab()
	return e, nil
}

// drawGoal draws a goal of category cat from a random product of a random
// type, so a perfect product always exists. Seen goals avoid every held-out
// (type, attribute) pair; unseen goals lead with one. nil means retry.
func (e *Env) drawGoal(r *splitmix.Rand, cat *category, unseen bool) *Goal {
	typ := cat.types[r.Intn(len(cat.types))]
	prods := e.byType[typ]
	p := &e.products[prods[r.Intn(len(prods))]]
	var allowed []string
	var primary string
	for _, a := range p.Attributes {
		if e.heldOut[typ+"|"+a] {
			if unseen {
				primary = a
			}
			continue
		}
		allowed = append(allowed, a)
	}
	if len(allowed) == 0 || (unseen && primary == "") {
		return nil
	}
	perm := r.Perm(len(allowed))
	var attrs []string
	if unseen {
		attrs = append(attrs, primary)
	}
	n := 1 + r.Intn(3)
	for _, k := range perm {
		if len(attrs) == n {
			break
		}
		attrs = append(attrs, allowed[k])
	}
	g := &Goal{Category: cat.name, Type: typ, Attributes: attrs, Source: p.ID}
	for _, d := range cat.dims {
		var vals []string
		for _, o := range p.Options {
			if o.Dim == d.name {
				vals = append(vals, o.Value)
			}
		}
		g.Options = append(g.Options, Option{Dim: d.name, Value: vals[r.Intn(len(vals))]})
	}
	g.PriceLimit = (p.PriceCents/1000+1)*10 + 10*r.Intn(2)
	g.Text = g.render(r.Intn(len(openings)))
	return g
}

// oracleSolves plays the oracle on g and reports whether it scores 1.
func (e *Env) oracleSolves(g *Goal) bool {
	ep := e.newEpisode(g)
	ag := NewOracle()
	ag.Start(ep.Goal(), ep.Observation(), 0)
	obs := ep.Observation()
	for {
		st := ep.Step(ag.Act(obs, ep.Admissible()))
		obs = st.Observation
		if st.Done {
			return st.Success
		}
	}
}

func (e *Env) newEpisode(g *Goal) *episode {
	ep := &episode{env: e, goal: g, sel: map[string]string{}, feats: map[string]bool{}, seen: map[string]bool{}}
	ep.obs = ep.render()
	return ep
}

// Name implements env.Env.
func (e *Env) Name() string { return Name }

// TaskTypes are WebShop's five categories.
func (e *Env) TaskTypes() []string {
	out := make([]string, len(categories))
	for i, c := range categories {
		out[i] = c.name
	}
	return out
}

// Splits lists train, valid_seen, valid_unseen and test.
func (e *Env) Splits() []string { return e.tasks.Splits() }

// Tasks lists the ids of a split in order.
func (e *Env) Tasks(split string) ([]string, error) { return e.tasks.Tasks(split) }

// Reset starts an episode. Shop episodes are fully determined by the task;
// the seed is accepted for the interface and does not change anything.
func (e *Env) Reset(id string, seed int64) (env.Episode, error) {
	g, err := e.tasks.Get(id)
	if err != nil {
		return nil, err
	}
	return e.newEpisode(g), nil
}

// Goal returns the goal of a task id.
func (e *Env) Goal(id string) (*Goal, bool) {
	return e.tasks.Lookup(id)
}

// Product returns a product by id.
func (e *Env) Product(id string) (*Product, bool) {
	for i := range e.products {
		if e.products[i].ID == id {
			return &e.products[i], true
		}
	}
	return nil, false
}

// Products returns the catalogue (do not modify).
func (e *Env) Products() []Product { return e.products }

// Oracle returns a fresh oracle agent.
func (e *Env) Oracle() env.Agent { return NewOracle() }

// Vocabulary lists every word goals, observations and admissible actions
// can contain, sorted.
func (e *Env) Vocabulary() []string { return append([]string(nil), e.vocab...) }

// DefiningCombination returns "<product type>|<first attribute>" of a task
// (the pair valid_unseen goals never share with train), or "" for an
// unknown id.
func DefiningCombination(taskID string) string {
	e, err := New()
	if err != nil {
		return ""
	}
	g, ok := e.tasks.Lookup(taskID)
	if !ok {
		return ""
	}
	return g.DefiningCombination()
}

func (e *Env) buildVocab() []string {
	set := map[string]bool{}
	add := func(s string) {
		for _, w := range words.Split(s) {
			set[w] = true
		}
	}
	fixed := []string{
		"instruction: [search]", "[back to search] page (total ) [< prev] [next >] no results.",
		"| price: attributes: , selected: [buy now]", "invalid action.",
		"thank you for shopping. you bought for $. score", "search[ ]", "click[ ]",
	}
	for _, s := range fixed {
		add(s)
	}
	for _, s := range openings {
		add(s)
	}
	for i := 0; i <= MaxResults*2; i++ {
		add(strconv.Itoa(i))
		add(fmt.Sprintf("%02d", i))
	}
	for _, c := range categories {
		add(c.name)
		for _, d := range c.dims {
			add(d.name)
			add(d.phrase)
			for _, v := range d.values {
				add(v)
			}
		}
		for _, a := range c.attrs {
			add(a)
		}
		for _, t := range c.types {
			add(t)
		}
	}
	for i := range e.products {
		p := &e.products[i]
		add(p.ID + " " + p.Title + " " + p.Price())
	}
	e.tasks.Each(func(_ string, gs []*Goal) {
		for _, g := range gs {
			add(g.Text)
		}
	})
	out := make([]string, 0, len(set))
	for w := range set {
		out = append(out, w)
	}
	sort.Strings(out)
	return out
}

package shop

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/env/internal/textindex"
)

// Page kinds.
const (
	pageSearch = iota
	pageResults
	pageItem
)

const (
	// MaxSteps is the step budget of an episode (WebShop's 15).
	MaxSteps = 15
	// ResultsPerPage is the number of results a results page shows.
	ResultsPerPage = 10
	// MaxResults caps the ranked result list (5 pages).
	MaxResults = 50
)

// Fixed clickables.
const (
	clickBuy    = "buy now"
	clickNext   = "next >"
	clickPrev   = "< prev"
	clickSearch = "back to search"
)

type episode struct {
	env   *Env
	goal  *Goal
	page  int
	query string
	res   []int // ranked product indices of the last search
	rpage int   // current results page, 0-based
	item  int   // product index shown on the item page
	sel   map[string]string
	steps int
	done  bool
	obs   string
	feats map[string]bool
	seen  map[string]bool // observation + action pairs already taken
}

func (e *episode) TaskID() string        { return e.goal.ID }
func (e *episode) TaskType() string      { return e.goal.Category }
func (e *episode) Goal() string          { return e.goal.Text }
func (e *episode) Observation() string   { return e.obs }
func (e *episode) MaxSteps() int         { return MaxSteps }
func (e *episode) feature(name string)   { e.feats[name] = true }
func (e *episode) product() *Product     { return &e.env.products[e.item] }
func (e *episode) pages() int            { return (len(e.res) + ResultsPerPage - 1) / ResultsPerPage }
func (e *episode) pageRange() (int, int) { return pageBounds(e.rpage, len(e.res)) }

func pageBounds(page, n int) (int, int) {
	lo := page * ResultsPerPage
	hi := lo + ResultsPerPage
	if hi > n {
		hi = n
	}
	return lo, hi
}

// Features lists what the episode showed so far, sorted.
func (e *episode) Features() []string {
	out := make([]string, 0, len(e.feats))
	for f := range e.feats {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

func (e *episode) render() string {
	switch e.page {
	case pageResults:
		var b strings.Builder
		fmt.Fprintf(&b, "[%s] page %d (total %d)", clickSearch, e.rpage+1, len(e.res))
		if e.rpage > 0 {
			b.WriteString(" [" + clickPrev + "]")
		}
		if e.rpage+1 < e.pages() {
			b.WriteString(" [" + clickNext + "]")
		}
		lo, hi := e.pageRange()
		for _, k := range e.res[lo:hi] {
			p := &e.env.products[k]
			fmt.Fprintf(&b, " [%s] %s | %s", p.ID, p.Title, p.Price())
		}
		if len(e.res) == 0 {
			b.WriteString(" no results.")
		}
		return b.String()
	case pageItem:
		p := e.product()
		var b strings.Builder
		fmt.Fprintf(&b, "[%s] [%s] %s | %s", clickSearch, clickPrev, p.Title, p.Price())
		last := ""
		for _, o := range p.Options {
			if o.Dim != last {
				b.WriteString(" | " + o.Dim + ":")
				last = o.Dim
			}
			b.WriteString(" [" + o.Value + "]")
		}
		b.WriteString(" | attributes: " + strings.Join(p.Attributes, ", "))
		var sel []string
		for _, o := range p.Options {
			if e.sel[o.Dim] == o.Value {
				sel = append(sel, o.Value)
			}
		}
		if len(sel) > 0 {
			b.WriteString(" | selected: " + strings.Join(sel, ", "))
		}
		b.WriteString(" | [" + clickBuy + "]")
		return b.String()
	}
	return "instruction: " + e.goal.Text + " [search]"
}

// Admissible lists the accepted actions. On the search page the free-text
// search is offered as a few queries built from the instruction (the
// instruction's key words, the type alone, attributes with the type, the
// category) so that a uniform random agent has a finite choice.
func (e *episode) Admissible() []string {
	if e.done {
		return nil
	}
	switch e.page {
	case pageResults:
		out := []string{"click[" + clickSearch + "]"}
		if e.rpage > 0 {
			out = append(out, "click["+clickPrev+"]")
		}
		if e.rpage+1 < e.pages() {
			out = append(out, "click["+clickNext+"]")
		}
		lo, hi := e.pageRange()
		for _, k := range e.res[lo:hi] {
			out = append(out, "click["+e.env.products[k].ID+"]")
		}
		return out
	case pageItem:
		out := []string{"click[" + clickSearch + "]", "click[" + clickPrev + "]"}
		for _, o := range e.product().Options {
			out = append(out, "click["+o.Value+"]")
		}
		return append(out, "click["+clickBuy+"]")
	}
	g := e.goal
	full := oracleQuery(parsedGoalOf(g))
	cands := []string{
		full,
		g.Type,
		strings.Join(g.Attributes, " ") + " " + g.Type,
		g.Category,
	}
	var out []string
	seen := map[string]bool{}
	for _, q := range cands {
		a := "search[" + q + "]"
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	return out
}

func parsedGoalOf(g *Goal) parsedGoal {
	pg := parsedGoal{typ: g.Type, attrs: g.Attributes, limit: g.PriceLimit, options: map[string]string{}}
	for _, o := range g.Options {
		pg.options[o.Dim] = o.Value
	}
	return pg
}

var actionRe = regexp.MustCompile(`^\s*(search|click)\s*\[(.*)\]\s*$`)

// parseAction splits "search[q]" / "click[x]" into verb and argument
// (lower case, spaces collapsed). ok is false for anything else.
func parseAction(a string) (verb, arg string, ok bool) {
	m := actionRe.FindStringSubmatch(strings.ToLower(a))
	if m == nil {
		return "", "", false
	}
	arg = strings.Join(strings.Fields(m[2]), " ")
	if arg == "" {
		return "", "", false
	}
	return m[1], arg, true
}

// Step applies one action. Every action, valid or not, uses one step of the
// budget; buying ends the episode with reward = score, and so does running
// out of steps (reward 0).
func (e *episode) Step(action string) env.Step {
	if e.done {
		return env.Step{Observation: e.obs, Done: true}
	}
	e.steps++
	key := e.obs + "\x00" + strings.Join(strings.Fields(strings.ToLower(action)), " ")
	if e.seen[key] {
		e.feature("failure:loop")
	}
	e.seen[key] = true

	st := e.apply(action)
	if !st.Valid {
		e.feature("failure:invalid_action")
	}
	if !st.Done && e.steps >= MaxSteps {
		st.Done = true
		e.feature("failure:max_steps")
	}
	if st.Done {
		e.done = true
	}
	st.Key = e.key(st.Observation)
	return st
}

// InitialKey implements env.KeyedEpisode (see key).
func (e *episode) InitialKey() string { return e.key(e.obs) }

// key is the anchor-state key of the state as the agent knows it after
// seeing obs: the page it is on (search, results of its query and which
// page of them, or a product with the options chosen so far) and what the
// observation shows.
func (e *episode) key(obs string) string {
	var b strings.Builder
	switch e.page {
	case pageSearch:
		b.WriteString("page: search")
	case pageResults:
		fmt.Fprintf(&b, "page: results of %q, page %d", e.query, e.rpage+1)
	case pageItem:
		fmt.Fprintf(&b, "page: item %d of the results of %q", e.item, e.query)
		names := make([]string, 0, len(e.sel))
		for k := range e.sel {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			fmt.Fprintf(&b, "; %s: %s", k, e.sel[k])
		}
	}
	return env.StateKey(b.String() + "\nobservation: " + obs)
}

func (e *episode) invalid() env.Step {
	return env.Step{Observation: "invalid action. " + e.obs}
}

func (e *episode) show(page int) env.Step {
	e.page = page
	e.obs = e.render()
	return env.Step{Observation: e.obs, Valid: true}
}

func (e *episode) apply(action string) env.Step {
	verb, arg, ok := parseAction(action)
	if !ok {
		return e.invalid()
	}
	if verb == "search" {
		if e.page != pageSearch {
			return e.invalid()
		}
		e.feature("action:search")
		e.queryFeatures(arg)
		e.query = arg
		e.res = e.env.idx.Search(arg, MaxResults)
		e.rpage = 0
		return e.show(pageResults)
	}
	switch e.page {
	case pageSearch:
		return e.invalid()
	case pageResults:
		switch arg {
		case clickSearch:
			e.feature("action:back_to_search")
			e.sel = map[string]string{}
			return e.show(pageSearch)
		case clickNext:
			if e.rpage+1 >= e.pages() {
				return e.invalid()
			}
			e.feature("action:next_page")
			e.rpage++
			return e.show(pageResults)
		case clickPrev:
			if e.rpage == 0 {
				return e.invalid()
			}
			e.feature("action:prev")
			e.rpage--
			return e.show(pageResults)
		}
		lo, hi := e.pageRange()
		for _, k := range e.res[lo:hi] {
			p := &e.env.products[k]
			if arg == p.ID || arg == p.Title {
				e.feature("action:click_result")
				e.item = k
				e.sel = map[string]string{}
				if e.perfectPossible(p) {
					e.feature("milestone:found_product")
				}
				return e.show(pageItem)
			}
		}
		return e.invalid()
	case pageItem:
		p := e.product()
		switch arg {
		case clickSearch:
			e.feature("action:back_to_search")
			e.sel = map[string]string{}
			return e.show(pageSearch)
		case clickPrev:
			e.feature("action:prev")
			e.sel = map[string]string{}
			return e.show(pageResults)
		case clickBuy:
			return e.buy()
		}
		if d := p.dimOf(arg); d != "" {
			e.feature("action:click_option")
			e.sel[d] = arg
			if e.perfectPossible(p) && e.optionsSelected() {
				e.feature("milestone:selected_options")
			}
			return e.show(pageItem)
		}
		return e.invalid()
	}
	return e.invalid()
}

// perfectPossible reports whether buying p with the right options scores 1.
func (e *episode) perfectPossible(p *Product) bool {
	g := e.goal
	if p.Type != g.Type || p.PriceCents >= g.PriceLimit*100 {
		return false
	}
	for _, a := range g.Attributes {
		if !p.hasAttr(a) {
			return false
		}
	}
	for _, o := range g.Options {
		if !p.offers(o.Dim, o.Value) {
			return false
		}
	}
	return true
}

func (e *episode) optionsSelected() bool {
	for _, o := range e.goal.Options {
		if e.sel[o.Dim] != o.Value {
			return false
		}
	}
	return true
}

func (e *episode) buy() env.Step {
	e.feature("action:buy")
	g, p := e.goal, e.product()
	score := Score(g, p, e.sel)
	if typeFactor(g, p) < 1 {
		e.feature("failure:wrong_type")
	}
	for _, a := range g.Attributes {
		if !p.hasAttr(a) {
			e.feature("failure:missing_attribute")
		}
	}
	for _, o := range g.Options {
		if e.sel[o.Dim] != o.Value || !p.offers(o.Dim, o.Value) {
			e.feature("failure:missing_option")
		}
	}
	if p.PriceCents >= g.PriceLimit*100 {
		e.feature("failure:over_price")
	}
	success := score >= 1-1e-9
	obs := fmt.Sprintf("thank you for shopping. you bought %s for %s. score %.2f", p.Title, p.Price(), score)
	e.obs = obs
	return env.Step{Observation: obs, Reward: score, Done: true, Success: success, Score: score, Valid: true}
}

// queryFeatures records what a search query named: the goal's product type
// (or not), a required attribute, a required option value, the category.
func (e *episode) queryFeatures(q string) {
	g := e.goal
	padded := textindex.PhraseText(q)
	if textindex.HasPhrase(padded, g.Type) {
		e.feature("query:type")
	} else {
		e.feature("query:no_type")
	}
	for _, a := range g.Attributes {
		if textindex.HasPhrase(padded, a) {
			e.feature("query:attribute")
			break
		}
	}
	for _, o := range g.Options {
		if textindex.HasPhrase(padded, o.Value) {
			e.feature("query:option")
			break
		}
	}
	if textindex.HasPhrase(padded, g.Category) {
		e.feature("query:category")
	}
}

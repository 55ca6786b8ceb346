package shop

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/pats-rl/pats/lib/env"
)

// oracleQuery is the search the oracle issues: required attributes, the
// product type and the required option values.
func oracleQuery(pg parsedGoal) string {
	parts := append([]string{}, pg.attrs...)
	parts = append(parts, pg.typ)
	if c := categoryOfType(pg.typ); c != nil {
		for _, d := range c.dims {
			if v, ok := pg.options[d.name]; ok {
				parts = append(parts, v)
			}
		}
	}
	return strings.Join(parts, " ")
}

// oracle solves shop tasks from the instruction and the observations only:
// it searches with the instruction's key words, opens results whose title
// names the wanted type and whose price is under the limit (in rank order,
// paging on when a page has none left), checks attributes and options on the
// item page, goes back when they do not fit, selects the options and buys.
type oracle struct {
	goal     parsedGoal
	parsed   bool
	visited  map[string]bool
	searches int
}

// NewOracle returns the shop oracle (also available as Env.Oracle()).
func NewOracle() env.Agent { return &oracle{} }

func (o *oracle) Start(goal, observation string, seed int64) {
	o.goal, o.parsed = parseGoal(goal)
	o.visited = map[string]bool{}
	o.searches = 0
}

var resultRe = regexp.MustCompile(`\[(b-\d\d-\d\d)\] ([^|\[\]]+?) \| \$(\d+)\.(\d\d)`)

func (o *oracle) Act(last string, admissible []string) string {
	obs := strings.TrimPrefix(last, "invalid action. ")
	switch {
	case strings.Contains(obs, "["+clickBuy+"]"):
		return o.actItem(obs)
	case strings.HasPrefix(obs, "["+clickSearch+"] page "):
		return o.actResults(obs)
	}
	o.searches++
	if o.searches > 1 {
		return "search[" + o.goal.typ + "]"
	}
	return "search[" + oracleQuery(o.goal) + "]"
}

func (o *oracle) actResults(obs string) string {
	for _, m := range resultRe.FindAllStringSubmatch(obs, -1) {
		id, title := m[1], strings.TrimSpace(m[2])
		dollars, _ := strconv.Atoi(m[3])
		cents, _ := strconv.Atoi(m[4])
		if o.visited[id] || titleType(title) != o.goal.typ || dollars*100+cents >= o.goal.limit*100 {
			continue
		}
		o.visited[id] = true
		return "click[" + id + "]"
	}
	if strings.Contains(obs, "["+clickNext+"]") {
		return "click[" + clickNext + "]"
	}
	return "click[" + clickSearch + "]"
}

var optionPartRe = regexp.MustCompile(`^([a-z]+): (\[.*\])$`)
var bracketRe = regexp.MustCompile(`\[([^\]]+)\]`)

func (o *oracle) actItem(obs string) string {
	offered := map[string]map[string]bool{}
	attrs := map[string]bool{}
	selected := map[string]bool{}
	for _, part := range strings.Split(obs, " | ") {
		switch {
		case strings.HasPrefix(part, "attributes: "):
			for _, a := range strings.Split(strings.TrimPrefix(part, "attributes: "), ", ") {
				attrs[a] = true
			}
		case strings.HasPrefix(part, "selected: "):
			for _, v := range strings.Split(strings.TrimPrefix(part, "selected: "), ", ") {
				selected[v] = true
			}
		default:
			if m := optionPartRe.FindStringSubmatch(part); m != nil {
				vals := map[string]bool{}
				for _, b := range bracketRe.FindAllStringSubmatch(m[2], -1) {
					vals[b[1]] = true
				}
				offered[m[1]] = vals
			}
		}
	}
	fits := true
	for _, a := range o.goal.attrs {
		fits = fits && attrs[a]
	}
	for d, v := range o.goal.options {
		fits = fits && offered[d][v]
	}
	if !fits {
		return "click[" + clickPrev + "]"
	}
	if c := categoryOfType(o.goal.typ); c != nil {
		for _, d := range c.dims {
			if v, ok := o.goal.options[d.name]; ok && !selected[v] {
				return "click[" + v + "]"
			}
		}
	}
	return "click[" + clickBuy + "]"
}

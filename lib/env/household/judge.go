package household

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/pats-rl/pats/lib/env"
)

// A world's rules are the right rules (hints) that hold for more than half
// of a task type's train tasks: in household-rl the kind where the house
// keeps each type's goal objects ("Look in the drawer first." for
// pick_and_place_simple) and the appliance of each transforming type (the
// stoveburner heats); in household-drawn only what no draw changes (the
// fridge cools, the sinkbasin cleans), since the kept kind and the heating
// appliance are drawn per task; in household the common-sense world's
// regularities. They are computed from the world's own tasks, once per
// world, and serve audits only (env.Judge).
const ruleMajority = 0.5

var (
	rulesOnce sync.Map // worldKind -> *worldRules
)

type worldRules struct {
	once  sync.Once
	rules []env.Rule
	byTyp map[string]map[string]bool // type -> rule text -> true
	err   error
}

func (h household) worldRules() *worldRules {
	v, _ := rulesOnce.LoadOrStore(h.kind, &worldRules{})
	wr := v.(*worldRules)
	wr.once.Do(func() { wr.rules, wr.byTyp, wr.err = h.computeRules() })
	return wr
}

func (h household) computeRules() ([]env.Rule, map[string]map[string]bool, error) {
	ids, err := h.Tasks("train")
	if err != nil {
		return nil, nil, err
	}
	count := map[string]map[string]int{}
	total := map[string]int{}
	for _, id := range ids {
		s, err := h.spec(id)
		if err != nil {
			return nil, nil, err
		}
		hs := hints(s, generate(s))
		t := s.c.typ
		total[t]++
		if count[t] == nil {
			count[t] = map[string]int{}
		}
		for _, r := range hs.Right {
			count[t][r]++
		}
	}
	var rules []env.Rule
	byTyp := map[string]map[string]bool{}
	for _, t := range taskTypes {
		byTyp[t] = map[string]bool{}
		for text, n := range count[t] {
			if float64(n) > ruleMajority*float64(total[t]) {
				kind := "tool"
				if strings.HasPrefix(text, "Look in") {
					kind = "place"
				}
				rules = append(rules, env.Rule{TaskType: t, Kind: kind, Text: text})
				byTyp[t][text] = true
			}
		}
	}
	sort.Slice(rules, func(i, j int) bool {
		if rules[i].TaskType != rules[j].TaskType {
			return rules[i].TaskType < rules[j].TaskType
		}
		return rules[i].Text < rules[j].Text
	})
	return rules, byTyp, nil
}

// Rules implements env.Judge.
func (h household) Rules() ([]env.Rule, error) {
	wr := h.worldRules()
	return append([]env.Rule(nil), wr.rules...), wr.err
}

// transform verbs and the type whose job each names.
var transformVerbs = map[string]string{
	"heat": TypeHeat, "heats": TypeHeat, "heated": TypeHeat, "heating": TypeHeat, "warm": TypeHeat,
	"cool": TypeCool, "cools": TypeCool, "cooled": TypeCool, "cooling": TypeCool, "chill": TypeCool,
	"clean": TypeClean, "cleans": TypeClean, "cleaned": TypeClean, "cleaning": TypeClean, "wash": TypeClean, "rinse": TypeClean,
}

// words that make a clause about the destination (which varies by task, so
// no rule of the world decides it), or negate its claim.
var (
	destinationWords = map[string]bool{"put": true, "place": true, "recep": true, "target": true, "destination": true}
	negationWords    = map[string]bool{"not": true, "never": true, "avoid": true, "don't": true, "dont": true, "no": true}
)

// JudgeItem implements env.Judge. Each clause of text (split at '.', ';'
// and '!') is read for claims in the world's words:
//
//   - a tool claim: a transforming verb (heat, cool, clean and their forms)
//     with a receptacle kind K: true when "<Verb> the object with/in the K
//     before placing it." is a rule of the verb's type (a fact of the world,
//     whatever the item's scope);
//   - a place claim: a receptacle kind K in a clause without a transforming
//     verb and without a destination word (put, place, recep, target,
//     destination): true when "Look in the K first." is a rule of type t, or
//     for the general layer (t == "") of every type;
//
// a negation (not, never, avoid, don't, no) turns a claim around. The item
// is true when it makes claims and all hold, false when one does not, and
// not judgeable when it makes none.
func (h household) JudgeItem(t, text string) (env.Judgement, error) {
	wr := h.worldRules()
	if wr.err != nil {
		return env.Judgement{}, wr.err
	}
	if t != "" {
		if _, ok := wr.byTyp[t]; !ok {
			return env.Judgement{}, fmt.Errorf("%s: unknown task type %q", h.Name(), t)
		}
	}
	j := env.Judgement{Verdict: env.VerdictNotJudgeable}
	allTrue := true
	states := map[env.Rule]bool{}
	for _, clause := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return r == '.' || r == ';' || r == '!' }) {
		ws := strings.FieldsFunc(clause, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r == '\'')
		})
		var verbTyp, verb string
		neg, dest := false, false
		var kinds []string
		for _, w := range ws {
			if vt, ok := transformVerbs[w]; ok && verbTyp == "" {
				verbTyp, verb = vt, typeToVerb[vt]
			}
			if negationWords[w] {
				neg = true
			}
			if destinationWords[w] {
				dest = true
			}
			if _, ok := recepByName[w]; ok {
				kinds = append(kinds, w)
			}
		}
		for _, k := range kinds {
			var claim string
			var holds bool
			var rules []env.Rule
			switch {
			case verbTyp != "":
				claim = verb + ":" + k
				rt := transformRule(verbTyp, k)
				holds = wr.byTyp[verbTyp][rt]
				rules = []env.Rule{{TaskType: verbTyp, Kind: "tool", Text: rt}}
			case !dest:
				claim = "look:" + k
				rt := fmt.Sprintf(RuleLookFirst, k)
				types := []string{t}
				if t == "" {
					types = taskTypes
				}
				holds = true
				for _, tt := range types {
					if !wr.byTyp[tt][rt] {
						holds = false
					}
					rules = append(rules, env.Rule{TaskType: tt, Kind: "place", Text: rt})
				}
			default:
				continue
			}
			if neg {
				claim = "not " + claim
				holds = !holds
				rules = nil
			}
			j.Claims = append(j.Claims, claim)
			if !holds {
				allTrue = false
				continue
			}
			for _, r := range rules {
				states[r] = true
			}
		}
	}
	if len(j.Claims) == 0 {
		return j, nil
	}
	if !allTrue {
		j.Verdict = env.VerdictFalse
		return j, nil
	}
	j.Verdict = env.VerdictTrue
	for r := range states {
		j.States = append(j.States, r)
	}
	sort.Slice(j.States, func(a, b int) bool {
		if j.States[a].TaskType != j.States[b].TaskType {
			return j.States[a].TaskType < j.States[b].TaskType
		}
		return j.States[a].Text < j.States[b].Text
	})
	return j, nil
}

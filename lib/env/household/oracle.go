package household

import (
	"regexp"
	"strings"

	"github.com/pats-rl/pats/lib/env"
)

// NewOracle returns the household oracle. It sees only what any agent
// sees: the goal text, the observations and the admissible actions. Its
// one piece of prior knowledge is common sense about where kinds of object
// are usually kept (the same table the room generator samples from, used
// as a search order, never as the answer).
func NewOracle() env.Agent { return &oracle{} }

type oracle struct {
	typ, obj, target string // target: receptacle kind, or lamp kind for look tasks

	receps   []string            // receptacle names in the order the room lists them
	contents map[string][]string // what was last seen on or in each receptacle
	searched map[string]bool     // contents observed at least once
	open     map[string]bool     // known to be open
	loc      string              // "" in the middle of the room
	held     string
	changed  map[string]bool // objects cleaned, heated or cooled
	placed   map[string]bool // goal objects already put in a target receptacle
	lamp     string          // name of a lamp of the goal kind, once seen
	lampLoc  string
	last     string
	adm      []string // the admissible actions now

	first string          // a rule said: look in this kind first
	tool  string          // a rule said: transform with this kind
	bad   map[string]bool // appliance kinds that could not do the job
}

var (
	reRuleFirst = regexp.MustCompile(`look (?:in|on) the ([a-z]+) first`)
	reRuleTool  = regexp.MustCompile(`(heat|cool|clean) the object (?:with|in|on|using) (?:the )?([a-z]+)`)
)

// Read follows the rules of a text in the context (env.Reader): a scaffold
// or a skill body. It understands two forms, wherever they stand in a line:
// "look in the K first" (search receptacles of kind K before any other) and
// "heat|cool|clean the object with [the] K" (do the task's transformation
// with K; a rule for another transformation than the task's is ignored).
// A later rule of a form replaces an earlier one. Only receptacle kinds
// count. When a rule is wrong the oracle still solves the task from what it
// observes, a few steps later.
func (o *oracle) Read(text string) {
	t := strings.ToLower(text)
	for _, m := range reRuleFirst.FindAllStringSubmatch(t, -1) {
		if recepByName[m[1]] != nil {
			o.first = m[1]
		}
	}
	for _, m := range reRuleTool.FindAllStringSubmatch(t, -1) {
		if recepByName[m[2]] != nil && verbToType[m[1]] == o.typ {
			o.tool = m[2]
		}
	}
}

var (
	reGoalLook1    = regexp.MustCompile(`^look at (\w+) under the (\w+)$`)
	reGoalLook2    = regexp.MustCompile(`^examine the (\w+) with the (\w+)$`)
	reGoalApply    = regexp.MustCompile(`^(clean|heat|cool) some (\w+) and put it (?:in|on) (\w+)$`)
	reGoalApplyAdj = regexp.MustCompile(`^put a (clean|hot|cool) (\w+) (?:in|on) (\w+)$`)
	reGoalTwo1     = regexp.MustCompile(`^put two (\w+) (?:in|on) (\w+)$`)
	reGoalTwo2     = regexp.MustCompile(`^find two (\w+) and put them (?:in|on) (\w+)$`)
	reGoalPick     = regexp.MustCompile(`^put (?:a|some) (\w+) (?:in|on) (\w+)$`)
	reListItem     = regexp.MustCompile(`a ([a-z]+ [0-9]+)`)
	adjToType      = map[string]string{"clean": TypeClean, "hot": TypeHeat, "cool": TypeCool}
	verbToType     = map[string]string{"clean": TypeClean, "heat": TypeHeat, "cool": TypeCool}
	typeToVerb     = map[string]string{TypeClean: "clean", TypeHeat: "heat", TypeCool: "cool"}
)

// parseGoal reads the task type, object kind and target kind of a goal
// text; ok is false when the text is in none of the known forms.
func parseGoal(goal string) (typ, obj, target string, ok bool) {
	g := strings.TrimSpace(strings.ToLower(goal))
	g = strings.TrimPrefix(g, "your task is to:")
	g = strings.TrimSuffix(strings.TrimSpace(g), ".")
	if m := reGoalLook1.FindStringSubmatch(g); m != nil {
		return TypeLookInLight, m[1], m[2], true
	}
	if m := reGoalLook2.FindStringSubmatch(g); m != nil {
		return TypeLookInLight, m[1], m[2], true
	}
	if m := reGoalApply.FindStringSubmatch(g); m != nil {
		return verbToType[m[1]], m[2], m[3], true
	}
	if m := reGoalApplyAdj.FindStringSubmatch(g); m != nil {
		return adjToType[m[1]], m[2], m[3], true
	}
	if m := reGoalTwo1.FindStringSubmatch(g); m != nil {
		return TypePickTwo, m[1], m[2], true
	}
	if m := reGoalTwo2.FindStringSubmatch(g); m != nil {
		return TypePickTwo, m[1], m[2], true
	}
	if m := reGoalPick.FindStringSubmatch(g); m != nil {
		return TypePickAndPlace, m[1], m[2], true
	}
	return "", "", "", false
}

// listed returns the instance names in the "you see ..." part of a text.
func listed(text string) []string {
	i := strings.Index(text, "you see ")
	if i < 0 {
		return nil
	}
	var out []string
	for _, m := range reListItem.FindAllStringSubmatch(text[i:], -1) {
		out = append(out, m[1])
	}
	return out
}

func kindOf(name string) string {
	if i := strings.IndexByte(name, ' '); i >= 0 {
		return name[:i]
	}
	return name
}

func (o *oracle) Start(goal, observation string, seed int64) {
	*o = oracle{
		contents: map[string][]string{}, searched: map[string]bool{}, open: map[string]bool{},
		changed: map[string]bool{}, placed: map[string]bool{}, bad: map[string]bool{},
	}
	o.typ, o.obj, o.target, _ = parseGoal(goal)
	o.receps = listed(observation)
}

func (o *oracle) Act(lastObservation string, admissible []string) string {
	o.observe(lastObservation)
	o.adm = admissible
	a := o.decide()
	o.last = a
	return a
}

// see records the contents of receptacle r.
func (o *oracle) see(r, text string) {
	o.searched[r] = true
	o.contents[r] = listed(text)
	for _, n := range o.contents[r] {
		if kindOf(n) == o.target && o.typ == TypeLookInLight && o.lamp == "" {
			o.lamp, o.lampLoc = n, r
		}
	}
}

// observe updates the memory from the answer to the previous action.
func (o *oracle) observe(obs string) {
	a := o.last
	if a == "" || obs == textNothing {
		return
	}
	switch {
	case reGo.MatchString(a):
		r := reGo.FindStringSubmatch(a)[1]
		if !strings.HasPrefix(obs, "You arrive at "+r+".") {
			return
		}
		o.loc = r
		if strings.Contains(obs, r+" is closed.") {
			o.open[r] = false
		} else {
			o.open[r] = true
			o.see(r, obs)
		}
	case reOpen.MatchString(a):
		m := reOpen.FindStringSubmatch(a)
		if m[1] == "open" && strings.HasPrefix(obs, "You open the "+m[2]+".") {
			o.open[m[2]] = true
			o.see(m[2], obs)
		}
	case reTake.MatchString(a):
		m := reTake.FindStringSubmatch(a)
		if strings.HasPrefix(obs, "You pick up the "+m[1]+" ") {
			o.held = m[1]
			o.contents[m[2]] = remove(o.contents[m[2]], m[1])
		}
	case rePut.MatchString(a):
		m := rePut.FindStringSubmatch(a)
		if strings.HasPrefix(obs, "You put the "+m[1]+" ") {
			o.held = ""
			o.contents[m[2]] = append(o.contents[m[2]], m[1])
			if kindOf(m[2]) == o.target {
				o.placed[m[1]] = true
			}
		}
	case reApply.MatchString(a):
		m := reApply.FindStringSubmatch(a)
		if strings.HasPrefix(obs, "You "+m[1]+" the "+m[2]+" ") {
			o.changed[m[2]] = true
		}
	}
}

func remove(list []string, x string) []string {
	out := list[:0:0]
	for _, s := range list {
		if s != x {
			out = append(out, s)
		}
	}
	return out
}

// goTo returns the action that moves to r, or "" when already there.
func (o *oracle) goTo(r string) string {
	if o.loc == r {
		return ""
	}
	return "go to " + r
}

func (o *oracle) decide() string {
	if o.held != "" {
		if kindOf(o.held) != o.obj {
			// Never happens under this policy; put it back where it is.
			return "put " + o.held + " in/on " + o.loc
		}
		switch o.typ {
		case TypeLookInLight:
			if o.lamp == "" {
				return o.search(o.lampRank)
			}
			if a := o.goTo(o.lampLoc); a != "" {
				return a
			}
			return "use " + o.lamp
		case TypeClean, TypeHeat, TypeCool:
			if !o.changed[o.held] {
				for {
					app := o.appliance()
					if app == "" {
						return "look"
					}
					if a := o.goTo(app); a != "" {
						return a
					}
					a := typeToVerb[o.typ] + " " + o.held + " with " + app
					if o.admissible(a) {
						return a
					}
					// this kind does not do the job here: try the next one
					o.bad[kindOf(app)] = true
				}
			}
		}
		t := o.targetRecep()
		if a := o.goTo(t); a != "" {
			return a
		}
		if kind := recepByName[kindOf(t)]; kind != nil && kind.openable && !o.open[t] {
			return "open " + t
		}
		return "put " + o.held + " in/on " + t
	}
	if n, r := o.knownObject(); n != "" {
		if a := o.goTo(r); a != "" {
			return a
		}
		return "take " + n + " from " + r
	}
	return o.search(o.objRank)
}

// knownObject finds a goal object seen somewhere and not yet delivered,
// preferring the current location.
func (o *oracle) knownObject() (obj, recep string) {
	order := append([]string{o.loc}, o.receps...)
	for _, r := range order {
		if r == "" || (o.typ != TypeLookInLight && kindOf(r) == o.target) {
			continue
		}
		for _, n := range o.contents[r] {
			if kindOf(n) == o.obj && !o.placed[n] {
				return n, r
			}
		}
	}
	return "", ""
}

// search moves to (or opens) the unsearched receptacle of lowest rank.
func (o *oracle) search(rank func(kind string) int) string {
	best, bestRank := "", 0
	for _, r := range o.receps {
		if o.searched[r] {
			continue
		}
		if k := rank(kindOf(r)); best == "" || k < bestRank {
			best, bestRank = r, k
		}
	}
	if best == "" {
		return "look"
	}
	if a := o.goTo(best); a != "" {
		return a
	}
	return "open " + best
}

// admissible reports whether a is among the admissible actions (true when
// the caller gave none).
func (o *oracle) admissible(a string) bool {
	if o.adm == nil {
		return true
	}
	for _, x := range o.adm {
		if x == a {
			return true
		}
	}
	return false
}

// objRank orders receptacle kinds for finding the goal object: the kind a
// rule named first, then its usual places, then open surfaces, then closed
// containers.
func (o *oracle) objRank(kind string) int {
	if o.first != "" && kind == o.first {
		return -1
	}
	var spawn []string
	if k := objByName[o.obj]; k != nil {
		spawn = k.spawn
	}
	return rankIn(spawn, kind)
}

// lampRank orders receptacle kinds for finding the goal lamp.
func (o *oracle) lampRank(kind string) int {
	var spawn []string
	if l := lampByName[o.target]; l != nil {
		spawn = l.spawn
	}
	return rankIn(spawn, kind)
}

func rankIn(likely []string, kind string) int {
	for i, k := range likely {
		if k == kind {
			return i
		}
	}
	if r := recepByName[kind]; r != nil && r.openable {
		return len(likely) + 1
	}
	return len(likely)
}

// applianceKinds lists, per transforming type, the receptacle kinds that
// might do the job, the common-sense one first.
var applianceKinds = map[string][]string{
	TypeClean: {applianceClean, "bathtubbasin"},
	TypeHeat:  {applianceHeat, "stoveburner", "toaster", "coffeemachine"},
	TypeCool:  {applianceCool},
}

// appliance is the receptacle to perform the task's transformation with:
// the first of the room's receptacles of the first kind, in order (the kind
// a rule named, then applianceKinds), that has not failed to do it.
func (o *oracle) appliance() string {
	kinds := applianceKinds[o.typ]
	if o.tool != "" {
		kinds = append([]string{o.tool}, kinds...)
	}
	for _, want := range kinds {
		if o.bad[want] {
			continue
		}
		for _, r := range o.receps {
			if kindOf(r) == want {
				return r
			}
		}
	}
	return ""
}

// targetRecep picks the receptacle to put the goal object in: the current
// one if it is of the target kind, else one known to be open, else the
// first listed.
func (o *oracle) targetRecep() string {
	if kindOf(o.loc) == o.target {
		return o.loc
	}
	first := ""
	for _, r := range o.receps {
		if kindOf(r) != o.target {
			continue
		}
		if first == "" {
			first = r
		}
		if o.open[r] {
			return r
		}
	}
	return first
}

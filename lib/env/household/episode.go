package household

import (
	"regexp"
	"sort"
	"strings"

	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/words"
)

// Fixed texts.
const (
	textNothing   = "Nothing happens."
	textRoomStart = "You are in the middle of a room. Looking quickly around you, you see "
)

// episode is one running episode; it owns a private copy of the world.
type episode struct {
	spec    *taskSpec
	w       *world
	loc     int // receptacle index, -1 in the middle of the room
	held    int // object index, -1 when the hands are empty
	steps   int
	done    bool
	success bool
	first   string
	hist    []string // normalised actions, for loop detection
	feats   map[string]bool
}

func newEpisode(s *taskSpec, w *world) *episode {
	e := &episode{spec: s, w: w, loc: -1, held: -1, feats: map[string]bool{}}
	e.first = textRoomStart + listText(e.recepNames()) + "."
	e.feats["object:"+s.c.obj] = true
	if s.c.typ == TypeLookInLight {
		e.feats["lamp:"+s.c.recep] = true
	} else {
		e.feats["recep:"+s.c.recep] = true
	}
	return e
}

func (e *episode) TaskID() string      { return e.spec.id }
func (e *episode) TaskType() string    { return e.spec.c.typ }
func (e *episode) Goal() string        { return e.spec.goal }
func (e *episode) Observation() string { return e.first }
func (e *episode) MaxSteps() int       { return MaxSteps }

func (e *episode) Features() []string {
	out := make([]string, 0, len(e.feats))
	for f := range e.feats {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

func (e *episode) recepNames() []string {
	out := make([]string, len(e.w.receps))
	for i, r := range e.w.receps {
		out[i] = r.name
	}
	return out
}

// mentions reports whether text names an instance of kind ("apple 2").
func mentions(text, kind string) bool {
	ws := words.Split(text)
	for i := 0; i+1 < len(ws); i++ {
		if ws[i] == kind && ws[i+1][0] >= '0' && ws[i+1][0] <= '9' {
			return true
		}
	}
	return false
}

// listText renders "a x 1, a y 2, and a z 1" (ALFWorld's list style).
func listText(names []string) string {
	switch len(names) {
	case 0:
		return "nothing"
	case 1:
		return "a " + names[0]
	}
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		if i == len(names)-1 {
			b.WriteString("and ")
		}
		b.WriteString("a " + n)
	}
	return b.String()
}

// accessible reports whether the inside of receptacle i can be seen and
// reached (it is not a closed container).
func (e *episode) accessible(i int) bool {
	r := e.w.receps[i]
	return !r.openable || r.open
}

// contents lists the objects on or in receptacle i, in world order.
func (e *episode) contents(i int) []int {
	var out []int
	for j, o := range e.w.objs {
		if o.loc == i && j != e.held {
			out = append(out, j)
		}
	}
	return out
}

func (e *episode) contentNames(i int) []string {
	var out []string
	for _, j := range e.contents(i) {
		out = append(out, e.w.objs[j].name)
	}
	return out
}

// describe is what one sees of receptacle i when standing at it.
func (e *episode) describe(i int) string {
	r := e.w.receps[i]
	if r.openable {
		if !r.open {
			return "The " + r.name + " is closed."
		}
		return "The " + r.name + " is open. In it, you see " + listText(e.contentNames(i)) + "."
	}
	return "On the " + r.name + ", you see " + listText(e.contentNames(i)) + "."
}

func (e *episode) findRecep(name string) int {
	for i, r := range e.w.receps {
		if r.name == name {
			return i
		}
	}
	return -1
}

func (e *episode) findObj(name string) int {
	for i, o := range e.w.objs {
		if o.name == name {
			return i
		}
	}
	return -1
}

// normalize lower-cases an action, trims it, collapses white space and
// drops one trailing full stop.
func normalize(a string) string {
	a = strings.Join(strings.Fields(strings.ToLower(a)), " ")
	return strings.TrimSuffix(a, ".")
}

const name = `([a-z]+ [0-9]+)`

var (
	reGo      = regexp.MustCompile(`^go to ` + name + `$`)
	reOpen    = regexp.MustCompile(`^(open|close) ` + name + `$`)
	reTake    = regexp.MustCompile(`^take ` + name + ` from ` + name + `$`)
	rePut     = regexp.MustCompile(`^put ` + name + ` (?:in/on|in|on) ` + name + `$`)
	reApply   = regexp.MustCompile(`^(heat|cool|clean) ` + name + ` with ` + name + `$`)
	reUse     = regexp.MustCompile(`^use ` + name + `$`)
	reExamine = regexp.MustCompile(`^examine ` + name + `$`)
)

// verbOf names an action's command word ("go" for "go to"), or "" when the
// action is not a command of the grammar.
func verbOf(a string) string {
	for _, v := range []string{"go", "open", "close", "take", "put", "heat", "cool", "clean", "use", "examine", "look", "inventory"} {
		if a == v || strings.HasPrefix(a, v+" ") {
			return v
		}
	}
	return ""
}

func (e *episode) Step(action string) env.Step {
	if e.done {
		return env.Step{Observation: textNothing, Key: e.key(textNothing), Done: true, Success: e.success, Score: e.score()}
	}
	a := normalize(action)
	e.steps++
	obs, ok := e.apply(a)
	if !ok {
		obs = textNothing
		e.feats["failure:invalid_action"] = true
	} else if v := verbOf(a); v != "" {
		e.feats["action:"+v] = true
	}
	if mentions(obs, e.spec.c.obj) {
		e.feats["milestone:found_target"] = true
	}
	e.hist = append(e.hist, a)
	if looping(e.hist) {
		e.feats["failure:loop"] = true
	}
	st := env.Step{Observation: obs, Valid: ok, Key: e.key(obs)}
	if ok && e.goalHolds() {
		e.done, e.success = true, true
		st.Reward, st.Success = RewardSuccess, true
	}
	if !e.done && e.steps >= MaxSteps {
		e.done = true
		e.feats["failure:max_steps"] = true
	}
	st.Done = e.done
	st.Score = e.score()
	return st
}

// InitialKey implements env.KeyedEpisode (see key).
func (e *episode) InitialKey() string { return e.key(e.first) }

// key is the anchor-state key of the state as the agent knows it after
// seeing obs: where it is, what it holds (with what it did to it: heated,
// cooled, cleaned) and what the observation shows. "Nothing happens." at
// the fridge holding an apple and in the middle of the room with empty
// hands are two states.
func (e *episode) key(obs string) string {
	place := "middle of the room"
	if e.loc >= 0 {
		place = e.w.receps[e.loc].name
	}
	held := "nothing"
	if e.held >= 0 {
		o := e.w.objs[e.held]
		held = o.name
		for _, f := range []struct {
			on   bool
			name string
		}{{o.hot, "hot"}, {o.cold, "cold"}, {o.clean, "clean"}} {
			if f.on {
				held += " " + f.name
			}
		}
	}
	return env.StateKey("at: " + place + "\nholding: " + held + "\nobservation: " + obs)
}

func (e *episode) score() float64 {
	if e.success {
		return 1
	}
	return 0
}

// looping reports whether the latest actions repeat: the same action three
// times in a row, or a cycle of two or three actions run twice (a b a b,
// a b c a b c).
func looping(h []string) bool {
	n := len(h)
	if n >= 3 && h[n-1] == h[n-2] && h[n-2] == h[n-3] {
		return true
	}
	for p := 2; p <= 3; p++ {
		if n < 2*p {
			continue
		}
		cyc := true
		distinct := false
		for i := 0; i < p; i++ {
			if h[n-1-i] != h[n-1-i-p] {
				cyc = false
				break
			}
			if h[n-1-i] != h[n-1] {
				distinct = true
			}
		}
		if cyc && distinct {
			return true
		}
	}
	return false
}

// apply runs a normalised action; ok is false when it is not understood or
// not possible now (the caller then answers "Nothing happens.").
func (e *episode) apply(a string) (obs string, ok bool) {
	switch a {
	case "look":
		if e.loc < 0 {
			return textRoomStart + listText(e.recepNames()) + ".", true
		}
		return "You are facing the " + e.w.receps[e.loc].name + ".", true
	case "inventory":
		if e.held < 0 {
			return "You are not carrying anything.", true
		}
		return "You are carrying: a " + e.w.objs[e.held].name + ".", true
	}
	if m := reGo.FindStringSubmatch(a); m != nil {
		i := e.findRecep(m[1])
		if i < 0 || i == e.loc {
			return "", false
		}
		e.loc = i
		e.feats["visited:"+e.w.receps[i].kind] = true
		return "You arrive at " + e.w.receps[i].name + ". " + e.describe(i), true
	}
	if m := reOpen.FindStringSubmatch(a); m != nil {
		i := e.findRecep(m[2])
		if i < 0 || i != e.loc || !e.w.receps[i].openable {
			return "", false
		}
		r := &e.w.receps[i]
		if m[1] == "open" {
			if r.open {
				return "", false
			}
			r.open = true
			return "You open the " + r.name + ". " + e.describe(i), true
		}
		if !r.open {
			return "", false
		}
		r.open = false
		return "You close the " + r.name + ".", true
	}
	if m := reTake.FindStringSubmatch(a); m != nil {
		j, i := e.findObj(m[1]), e.findRecep(m[2])
		if j < 0 || i < 0 || i != e.loc || e.held >= 0 || !e.accessible(i) {
			return "", false
		}
		o := &e.w.objs[j]
		if o.loc != i || o.lamp {
			return "", false
		}
		e.held = j
		o.loc = -1
		e.feats["object:"+o.kind] = true
		if o.kind == e.spec.c.obj {
			e.feats["milestone:took_target"] = true
			if e.spec.conv != nil {
				e.feats["source:"+e.w.receps[i].kind] = true
			}
		} else {
			e.feats["failure:wrong_object"] = true
		}
		return "You pick up the " + o.name + " from the " + e.w.receps[i].name + ".", true
	}
	if m := rePut.FindStringSubmatch(a); m != nil {
		j, i := e.findObj(m[1]), e.findRecep(m[2])
		if j < 0 || i < 0 || j != e.held || i != e.loc || !e.accessible(i) {
			return "", false
		}
		o := &e.w.objs[j]
		o.loc = i
		e.held = -1
		rk := e.w.receps[i].kind
		e.feats["recep:"+rk] = true
		c := e.spec.c
		if o.kind == c.obj && c.typ != TypeLookInLight {
			if rk != c.recep {
				e.feats["failure:wrong_receptacle"] = true
			} else if !e.transformed(o) {
				e.feats["failure:missing_transform"] = true
			}
		}
		return "You put the " + o.name + " in/on the " + e.w.receps[i].name + ".", true
	}
	if m := reApply.FindStringSubmatch(a); m != nil {
		j, i := e.findObj(m[2]), e.findRecep(m[3])
		if j < 0 || i < 0 || j != e.held || i != e.loc {
			return "", false
		}
		rk := e.w.receps[i].kind
		o := &e.w.objs[j]
		switch {
		case m[1] == "heat" && rk == e.spec.heatKind():
			o.hot, o.cold = true, false
		case m[1] == "cool" && rk == applianceCool:
			o.cold, o.hot = true, false
		case m[1] == "clean" && isCleaner(rk):
			o.clean = true
		default:
			return "", false
		}
		e.feats["recep:"+rk] = true
		if o.kind == e.spec.c.obj {
			e.feats["milestone:transformed"] = true
			if e.spec.conv != nil {
				e.feats[m[1]+":"+rk] = true
			}
		}
		return "You " + m[1] + " the " + o.name + " using the " + e.w.receps[i].name + ".", true
	}
	if m := reUse.FindStringSubmatch(a); m != nil {
		j := e.findObj(m[1])
		if j < 0 || !e.w.objs[j].lamp || e.w.objs[j].loc != e.loc {
			return "", false
		}
		o := &e.w.objs[j]
		o.on = !o.on
		if o.on {
			return "You turn on the " + o.name + ".", true
		}
		return "You turn off the " + o.name + ".", true
	}
	if m := reExamine.FindStringSubmatch(a); m != nil {
		if i := e.findRecep(m[1]); i >= 0 {
			if i != e.loc {
				return "", false
			}
			return e.describe(i), true
		}
		j := e.findObj(m[1])
		if j < 0 || !(j == e.held || (e.loc >= 0 && e.w.objs[j].loc == e.loc && e.accessible(e.loc))) {
			return "", false
		}
		o := e.w.objs[j]
		if o.lamp {
			if o.on {
				return "This is a " + o.name + ". It is on.", true
			}
			return "This is a " + o.name + ". It is off.", true
		}
		var st string
		if o.clean {
			st += "clean "
		}
		if o.hot {
			st += "hot "
		}
		if o.cold {
			st += "cool "
		}
		return "This is a " + st + o.name + ".", true
	}
	return "", false
}

// transformed reports whether o has the state the task type asks for.
func (e *episode) transformed(o *object) bool {
	switch e.spec.c.typ {
	case TypeClean:
		return o.clean
	case TypeHeat:
		return o.hot
	case TypeCool:
		return o.cold
	}
	return true
}

// goalHolds checks the task's goal condition on the current state.
func (e *episode) goalHolds() bool {
	c := e.spec.c
	if c.typ == TypeLookInLight {
		if e.held < 0 || e.w.objs[e.held].kind != c.obj || e.loc < 0 {
			return false
		}
		for _, o := range e.w.objs {
			if o.lamp && o.kind == c.recep && o.loc == e.loc && o.on {
				return true
			}
		}
		return false
	}
	n := 0
	for j := range e.w.objs {
		o := &e.w.objs[j]
		if j == e.held || o.kind != c.obj || o.loc < 0 || e.w.receps[o.loc].kind != c.recep {
			continue
		}
		if e.transformed(o) {
			n++
		}
	}
	if c.typ == TypePickTwo {
		return n >= 2
	}
	return n >= 1
}

// Admissible lists the valid actions now, sorted.
func (e *episode) Admissible() []string {
	if e.done {
		return nil
	}
	out := []string{"look", "inventory"}
	for i, r := range e.w.receps {
		if i != e.loc {
			out = append(out, "go to "+r.name)
		}
	}
	if e.held >= 0 {
		out = append(out, "examine "+e.w.objs[e.held].name)
	}
	if e.loc >= 0 {
		r := e.w.receps[e.loc]
		out = append(out, "examine "+r.name)
		if r.openable {
			if r.open {
				out = append(out, "close "+r.name)
			} else {
				out = append(out, "open "+r.name)
			}
		}
		if e.accessible(e.loc) {
			for _, j := range e.contents(e.loc) {
				o := e.w.objs[j]
				out = append(out, "examine "+o.name)
				if o.lamp {
					continue
				}
				if e.held < 0 {
					out = append(out, "take "+o.name+" from "+r.name)
				}
			}
			if e.held >= 0 {
				out = append(out, "put "+e.w.objs[e.held].name+" in/on "+r.name)
			}
		}
		for _, j := range e.contents(e.loc) {
			if e.w.objs[j].lamp && e.accessible(e.loc) {
				out = append(out, "use "+e.w.objs[j].name)
			}
		}
		if e.held >= 0 {
			h := e.w.objs[e.held].name
			switch {
			case r.kind == e.spec.heatKind():
				out = append(out, "heat "+h+" with "+r.name)
			case r.kind == applianceCool:
				out = append(out, "cool "+h+" with "+r.name)
			case isCleaner(r.kind):
				out = append(out, "clean "+h+" with "+r.name)
			}
		}
	}
	sort.Strings(out)
	return out
}

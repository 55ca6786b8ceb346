package household

import (
	"sort"
	"strconv"
)

// receptacle is one piece of furniture or appliance in a room.
type receptacle struct {
	name     string // "cabinet 3"
	kind     string
	openable bool
	open     bool
}

// object is one portable object or lamp.
type object struct {
	name             string // "apple 1"
	kind             string
	loc              int // receptacle index; held when the episode's held index points here
	lamp             bool
	on               bool // lamps only
	hot, cold, clean bool
}

// world is the mutable state of a room. Objects are listed in slice order.
type world struct {
	room   string
	receps []receptacle
	objs   []object
}

func (w *world) clone() *world {
	c := &world{room: w.room}
	c.receps = append([]receptacle(nil), w.receps...)
	c.objs = append([]object(nil), w.objs...)
	return c
}

// Capacities keep observations short.
const (
	capSurface   = 4 // objects (lamps included) on one receptacle
	minDistract  = 6
	maxDistract  = 12
	spawnLikely  = 0.75 // probability an object is placed at one of its usual kinds
	minGoalObjs  = 1
	maxGoalObjs  = 2
	extraLampPct = 0.5
)

// generate builds the room of task s. It is a pure function of s.
func generate(s *taskSpec) *world {
	r := newRNG(s.seed)
	rk, maxRecep, maxShut := roomTemplate(s.room, s.world.large())
	c := s.c

	// Receptacle counts, with the kinds the task needs forced to at least one.
	required := map[string]bool{}
	lampSurface := "" // for look tasks: the kind the goal lamp stands on
	switch c.typ {
	case TypeLookInLight:
		l := lampByName[c.recep]
		var have []string
		for _, sp := range l.spawn {
			if roomHas(s.room, sp) {
				have = append(have, sp)
			}
		}
		lampSurface = have[r.intn(len(have))]
		required[lampSurface] = true
	case TypeClean:
		required[c.recep], required[applianceClean] = true, true
	case TypeHeat:
		required[c.recep], required[s.heatKind()] = true, true
	case TypeCool:
		required[c.recep], required[applianceCool] = true, true
	default:
		required[c.recep] = true
	}
	if s.keep != "" {
		required[s.keep] = true
	}
	counts := make([]int, len(rk.receps))
	mins := make([]int, len(rk.receps))
	total, closed := 0, 0
	for i, rr := range rk.receps {
		mins[i] = rr.min
		if required[rr.kind] && mins[i] == 0 {
			mins[i] = 1
		}
		counts[i] = r.between(mins[i], max(rr.max, mins[i]))
		total += counts[i]
		if recepByName[rr.kind].openable {
			closed += counts[i]
		}
	}
	for total > maxRecep || closed > maxShut {
		var cand []int
		for i := range counts {
			if counts[i] > mins[i] && (total > maxRecep || recepByName[rk.receps[i].kind].openable) {
				cand = append(cand, i)
			}
		}
		i := cand[r.intn(len(cand))]
		counts[i]--
		total--
		if recepByName[rk.receps[i].kind].openable {
			closed--
		}
	}

	// Kinds are listed in a shuffled order, instances in ascending number.
	order := make([]int, len(rk.receps))
	for i := range order {
		order[i] = i
	}
	r.shuffleInts(order)
	w := &world{room: s.room}
	for _, i := range order {
		k := recepByName[rk.receps[i].kind]
		for n := 1; n <= counts[i]; n++ {
			w.receps = append(w.receps, receptacle{
				name: k.name + " " + strconv.Itoa(n), kind: k.name, openable: k.openable,
			})
		}
	}

	load := make([]int, len(w.receps))
	// place puts an object of a kind somewhere: at one of its usual
	// receptacle kinds with probability spawnLikely (always when sure),
	// else anywhere; never in a receptacle of a kind in avoid, never above
	// capacity.
	place := func(kind string, spawn []string, avoid map[string]bool, lamp, sure bool) {
		var likely, any []int
		for i, rc := range w.receps {
			if avoid[rc.kind] || load[i] >= capSurface {
				continue
			}
			if lamp && rc.openable {
				continue
			}
			any = append(any, i)
			if contains(spawn, rc.kind) {
				likely = append(likely, i)
			}
		}
		pool := any
		if len(likely) > 0 && (lamp || sure || r.chance(spawnLikely)) {
			pool = likely
		}
		if len(pool) == 0 {
			return
		}
		i := pool[r.intn(len(pool))]
		load[i]++
		w.objs = append(w.objs, object{kind: kind, loc: i, lamp: lamp})
	}

	// The lamp first (it needs a surface of its kinds), then the goal
	// objects, then distractors.
	lampKindsHere := []string{}
	if c.typ == TypeLookInLight {
		lampKindsHere = append(lampKindsHere, c.recep)
	}
	for _, l := range lampKinds {
		if l.name != c.recep && contains(l.rooms, s.room) && r.chance(extraLampPct) {
			lampKindsHere = append(lampKindsHere, l.name)
		}
	}
	for _, ln := range lampKindsHere {
		l := lampByName[ln]
		spawn := l.spawn
		if ln == c.recep {
			spawn = []string{lampSurface}
		}
		place(ln, spawn, nil, true, false)
	}

	goal := objByName[c.obj]
	avoid := map[string]bool{}
	nGoal := r.between(minGoalObjs, maxGoalObjs)
	switch c.typ {
	case TypePickTwo:
		nGoal = r.between(2, 3)
		avoid[c.recep] = true
	case TypeLookInLight:
	default:
		avoid[c.recep] = true
	}
	// household-rl keeps the goal objects at the house's kind for the type.
	goalSpawn, sure := goal.spawn, false
	if s.keep != "" {
		goalSpawn, sure = []string{s.keep}, true
	}
	for n := 0; n < nGoal; n++ {
		place(goal.name, goalSpawn, avoid, false, sure)
	}

	var pool []*objKind
	for i := range objKinds {
		o := &objKinds[i]
		if o.name != goal.name && contains(o.rooms, s.room) {
			pool = append(pool, o)
		}
	}
	nd := r.between(minDistract, maxDistract)
	for n := 0; n < nd; n++ {
		o := pool[r.intn(len(pool))]
		place(o.name, o.spawn, nil, false, false)
	}

	// Shuffle listing order, then number each kind's instances.
	perm := make([]int, len(w.objs))
	for i := range perm {
		perm[i] = i
	}
	r.shuffleInts(perm)
	objs := make([]object, len(w.objs))
	for i, p := range perm {
		objs[i] = w.objs[p]
	}
	w.objs = objs
	byKind := map[string][]int{}
	var kinds []string
	for i, o := range w.objs {
		if byKind[o.kind] == nil {
			kinds = append(kinds, o.kind)
		}
		byKind[o.kind] = append(byKind[o.kind], i)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		idx := byKind[k]
		nums := make([]int, len(idx))
		for i := range nums {
			nums[i] = i + 1
		}
		r.shuffleInts(nums)
		for i, oi := range idx {
			w.objs[oi].name = k + " " + strconv.Itoa(nums[i])
		}
	}
	return w
}

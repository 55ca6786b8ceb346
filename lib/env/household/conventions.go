package household

import (
	"fmt"

	"github.com/pats-rl/pats/lib/env"
)

// HouseConventions are the house rules of household-rl: type-level
// regularities that the common-sense world (household, where the base
// policy is pretrained) does not have, so a policy only knows them from
// experience or from a rule in its context.
type HouseConventions struct {
	// Keep lists, per task type, the receptacle kinds where the house keeps
	// that type's goal objects, in order of preference: the first kind the
	// room can hold that is not the task's target kind (each is one that
	// a common-sense search reaches late: closed containers, the
	// garbagecan).
	Keep map[string][]string
	// Heat is the receptacle kind that heats ("heat X with R"); the
	// microwave does not heat in this house.
	Heat string
}

// Conventions are household-rl's house rules.
var Conventions = HouseConventions{
	Keep: map[string][]string{
		TypePickAndPlace: {"drawer", "garbagecan"},
		TypeLookInLight:  {"garbagecan", "drawer"},
		TypeClean:        {"cabinet", "garbagecan"},
		TypeHeat:         {"drawer", "garbagecan"},
		TypeCool:         {"cabinet", "garbagecan"},
		TypePickTwo:      {"garbagecan", "drawer"},
	},
	Heat: "stoveburner",
}

// keepKind is where the goal objects of combination c are kept in a room of
// kind room: the first of the type's kinds the room can hold that is not the
// target kind; "" when none is.
func (h *HouseConventions) keepKind(c combo, room string) string {
	for _, k := range h.Keep[c.typ] {
		if k != c.recep && roomHas(room, k) {
			return k
		}
	}
	return ""
}

// drawConventions draws the conventions of one household-drawn task from
// h (a hash of its id): the goal objects are kept at one receptacle kind of
// the room's template other than the target kind, each with the same
// chance, and the heating appliance is the microwave or the stoveburner
// (the kinds that heat in household and household-rl), each with the same
// chance when the room's template holds both. A draw holds for its task
// alone: no type, object or room kind has a kind of its own, so a policy
// trained here learns no prior about where a type's objects are, only to
// follow a rule (or a right skill's body) that states the draw, and to
// search without one.
//
// byPlace (household-drawn-places) weights each kind by the most
// receptacles of it the room's large template holds, as if one receptacle
// of a full room were drawn: in a kitchen of up to 14 cabinets and 8
// drawers those two kinds keep the goal objects in 22 draws of 39. The
// weights are the template's, the same for every type and object, so the
// draw still gives no type a place of its own; the heating draw is the
// same as without byPlace.
func drawConventions(c combo, room string, h uint64, byPlace bool) (conv *HouseConventions, keep string) {
	var kinds []string
	for _, rr := range roomByName[room].receps {
		if rr.kind != c.recep && rr.max > 0 {
			n := 1
			if byPlace {
				n = max(largeMax(room, rr.kind), 1)
			}
			for range n {
				kinds = append(kinds, rr.kind)
			}
		}
	}
	if len(kinds) > 0 {
		keep = kinds[h%uint64(len(kinds))]
	}
	var heat []string
	for _, k := range []string{applianceHeat, "stoveburner"} {
		if roomHas(room, k) && k != c.recep {
			heat = append(heat, k)
		}
	}
	conv = &HouseConventions{Heat: applianceHeat}
	if len(heat) > 0 {
		conv.Heat = heat[mix64(h^7)%uint64(len(heat))]
	}
	return conv, keep
}

// Rule texts. They are the rule-based refiner's templates for the features
// source:<kind> and heat:/cool:/clean:<kind> (lib/refiner.DefaultTemplates),
// so the rules a refiner distils from cards read like the hints a base is
// pretrained to follow; lib/vocabulary's tests hold them equal.
const (
	RuleLookFirst = "Look in the %s first."
	RuleHeat      = "Heat the object with the %s before placing it."
	RuleCool      = "Cool the object with the %s before placing it."
	RuleClean     = "Clean the object in the %s before placing it."
	RuleLamp      = "Turn on the desklamp and look at the object under it."
)

// Step texts: the right rules as the household-rl skill library's right
// skills write them (lib/skill/library/household-rl).
const (
	StepLookFirst = "look in the %[1]s first: the object is in a %[1]s. take it."
	StepGoTo      = "go to %s 1."
	StepTransform = "%s the object with %s 1."
)

// transformRule is the rule text of a transforming type with an appliance.
func transformRule(typ, kind string) string {
	switch typ {
	case TypeHeat:
		return fmt.Sprintf(RuleHeat, kind)
	case TypeCool:
		return fmt.Sprintf(RuleCool, kind)
	case TypeClean:
		return fmt.Sprintf(RuleClean, kind)
	}
	return ""
}

// hints states rules about task s in room w (see env.Hints):
//
//   - right: "Look in the K first." with K the kind of the receptacle that
//     holds the first goal object (in the room's listing), and for the
//     transforming types the appliance that does the job in this world;
//   - misleading: the same forms, false: a kind present in the room that
//     holds no goal object and is not the target (closed containers first,
//     then in listing order), and an appliance of the room that cannot do
//     the job (for heating, the other of microwave and stoveburner);
//   - irrelevant: the transformation rules of the other transforming types
//     (for look_at_obj_in_light all three), and the lamp rule for every type
//     but look_at_obj_in_light;
//   - steps: the right rules as skill steps (StepLookFirst, then StepGoTo
//     and StepTransform for the appliance).
func hints(s *taskSpec, w *world) env.Hints {
	var h env.Hints
	goalAt := map[string]bool{}
	at := len(w.receps)
	for _, o := range w.objs {
		if o.kind == s.c.obj && !o.lamp {
			goalAt[w.receps[o.loc].kind] = true
			at = min(at, o.loc)
		}
	}
	first := ""
	if at < len(w.receps) {
		first = w.receps[at].kind
	}
	if first != "" {
		h.Right = append(h.Right, fmt.Sprintf(RuleLookFirst, first))
		h.Steps = append(h.Steps, fmt.Sprintf(StepLookFirst, first))
	}
	if wrong := misleadingPlace(s, w, goalAt); wrong != "" {
		h.Misleading = append(h.Misleading, fmt.Sprintf(RuleLookFirst, wrong))
	}
	if app := s.appliance(); app != "" {
		h.Right = append(h.Right, transformRule(s.c.typ, app))
		h.Steps = append(h.Steps, fmt.Sprintf(StepGoTo, app), fmt.Sprintf(StepTransform, typeToVerb[s.c.typ], app))
		if wrong := wrongAppliance(s, w); wrong != "" {
			h.Misleading = append(h.Misleading, transformRule(s.c.typ, wrong))
		}
	}
	for _, t := range []string{TypeClean, TypeHeat, TypeCool} {
		if t != s.c.typ {
			h.Irrelevant = append(h.Irrelevant, transformRule(t, defaultAppliance(s, t)))
		}
	}
	if s.c.typ != TypeLookInLight {
		h.Irrelevant = append(h.Irrelevant, RuleLamp)
	}
	return h
}

// misleadingPlace is the kind a misleading "look in the K first" rule names:
// of the room's kinds that hold no goal object and are not the target, the
// one whose search costs most: closed kinds (two steps each: go, open)
// before open ones, then the kind with the most receptacles, then the one
// listed last (a search in listing order reaches it last, so searching it
// first adds the most). "" when the room has none.
func misleadingPlace(s *taskSpec, w *world, goalAt map[string]bool) string {
	count := map[string]int{}
	last := map[string]int{}
	closed := map[string]bool{}
	for i, r := range w.receps {
		if goalAt[r.kind] || r.kind == s.c.recep {
			continue
		}
		count[r.kind]++
		last[r.kind] = i
		closed[r.kind] = r.openable
	}
	best := ""
	for k := range count {
		if best == "" || closed[k] != closed[best] && closed[k] ||
			closed[k] == closed[best] && (count[k] > count[best] || count[k] == count[best] && last[k] > last[best]) {
			best = k
		}
	}
	return best
}

// defaultAppliance is the appliance of type t in the task's world.
func defaultAppliance(s *taskSpec, t string) string {
	switch t {
	case TypeHeat:
		return s.heatKind()
	case TypeCool:
		return applianceCool
	}
	return applianceClean
}

// wrongAppliance is a receptacle kind of the room that cannot do the task's
// transformation: for heating the other of microwave and stoveburner, else
// the first kind in the room's listing that is not an appliance of the type
// and not the target.
func wrongAppliance(s *taskSpec, w *world) string {
	if s.c.typ == TypeHeat {
		other := applianceHeat
		if s.heatKind() == applianceHeat {
			other = "stoveburner"
		}
		if recepIndex(w, other) >= 0 {
			return other
		}
	}
	for _, r := range w.receps {
		if r.kind == s.c.recep || r.kind == s.appliance() || s.c.typ == TypeClean && isCleaner(r.kind) {
			continue
		}
		if s.c.typ == TypeHeat && r.kind == s.heatKind() {
			continue
		}
		return r.kind
	}
	return ""
}

// recepIndex is the index of the first receptacle of kind k, or -1.
func recepIndex(w *world, k string) int {
	for i, r := range w.receps {
		if r.kind == k {
			return i
		}
	}
	return -1
}

package household

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/pats-rl/pats/lib/env"
)

// The six ALFWorld task types, in TaskTypes order.
const (
	TypePickAndPlace = "pick_and_place_simple"
	TypeLookInLight  = "look_at_obj_in_light"
	TypeClean        = "pick_clean_then_place_in_recep"
	TypeHeat         = "pick_heat_then_place_in_recep"
	TypeCool         = "pick_cool_then_place_in_recep"
	TypePickTwo      = "pick_two_obj_and_place"
)

var taskTypes = []string{TypePickAndPlace, TypeLookInLight, TypeClean, TypeHeat, TypeCool, TypePickTwo}

// Split sizes (ALFWorld's: 3,553 training games, 140 valid_seen, 134
// valid_unseen).
const (
	TrainSize       = 3553
	ValidSeenSize   = 140
	ValidUnseenSize = 134
)

// Episode constants.
const (
	MaxSteps      = 50
	RewardSuccess = 10.0
)

var splitSizes = map[string]int{
	env.SplitTrain:       TrainSize,
	env.SplitValidSeen:   ValidSeenSize,
	env.SplitValidUnseen: ValidUnseenSize,
}

// combo is a task's defining combination: its type, the object kind and the
// receptacle kind it must end in (for look_at_obj_in_light: the lamp kind),
// with the room kinds where it can be staged.
type combo struct {
	typ, obj, recep string
	rooms           []string
}

func (c combo) key() string { return c.typ + "/" + c.obj + "/" + c.recep }

// pairKey is the (object kind, receptacle kind) pair of a combination. The
// held-out set is a set of pairs: a held-out pair occurs in no training or
// valid_seen task of any type.
func pairKey(obj, recep string) string { return obj + "/" + recep }

// heldOut reports whether an (object, receptacle) pair is reserved for
// valid_unseen. About one pair in six is.
func heldOut(obj, recep string) bool { return hashString("pair:"+pairKey(obj, recep))%6 == 0 }

var (
	combosOnce sync.Once
	seenCombos map[string][]combo // by type: pairs not held out (train, valid_seen)
	heldCombos map[string][]combo // by type: held-out pairs (valid_unseen)
)

func buildCombos() {
	seenCombos = map[string][]combo{}
	heldCombos = map[string][]combo{}
	for _, typ := range taskTypes {
		for _, o := range objKinds {
			var targets []string
			switch typ {
			case TypeLookInLight:
				if !o.look {
					continue
				}
				for _, l := range lampKinds {
					targets = append(targets, l.name)
				}
			case TypeClean:
				if !o.clean {
					continue
				}
				targets = o.spawn
			case TypeHeat:
				if !o.heat {
					continue
				}
				targets = o.spawn
			case TypeCool:
				if !o.cool {
					continue
				}
				targets = o.spawn
			default:
				targets = o.spawn
			}
			for _, t := range targets {
				rooms := comboRooms(typ, o, t)
				if len(rooms) == 0 {
					continue
				}
				c := combo{typ, o.name, t, rooms}
				if heldOut(o.name, t) {
					heldCombos[typ] = append(heldCombos[typ], c)
				} else {
					seenCombos[typ] = append(seenCombos[typ], c)
				}
			}
		}
		for _, m := range []map[string][]combo{seenCombos, heldCombos} {
			cs := m[typ]
			sort.Slice(cs, func(i, j int) bool { return cs[i].key() < cs[j].key() })
			if len(cs) == 0 {
				panic("household: task type " + typ + " has no combinations in one of its pools")
			}
		}
	}
}

// comboRooms lists the room kinds where object o can be staged for a task of
// type typ ending in receptacle (or lamp) kind target.
func comboRooms(typ string, o objKind, target string) []string {
	var rooms []string
	for _, room := range o.rooms {
		switch typ {
		case TypeLookInLight:
			l := lampByName[target]
			if !contains(l.rooms, room) {
				continue
			}
			ok := false
			for _, s := range l.spawn {
				ok = ok || roomHas(room, s)
			}
			if !ok {
				continue
			}
		default:
			if !roomHas(room, target) {
				continue
			}
			var appliance string
			switch typ {
			case TypeClean:
				appliance = applianceClean
				if isCleaner(target) {
					continue
				}
			case TypeHeat:
				appliance = applianceHeat
			case TypeCool:
				appliance = applianceCool
			}
			if appliance != "" && (target == appliance || !roomHas(room, appliance)) {
				continue
			}
		}
		rooms = append(rooms, room)
	}
	return rooms
}

// taskSpec is everything that defines a task; the room itself is generated
// from seed when an episode starts.
type taskSpec struct {
	id    string
	split string
	index int
	c     combo
	room  string
	seed  uint64
	goal  string
	world worldKind
	conv  *HouseConventions // nil in the common-sense world
	keep  string            // receptacle kind the goal objects are kept at; "" = their usual places
}

// heatKind is the receptacle kind that heats in the task's world.
func (s *taskSpec) heatKind() string {
	if s.conv != nil {
		return s.conv.Heat
	}
	return applianceHeat
}

// appliance is the receptacle kind the task's transformation needs
// ("" for the types without one).
func (s *taskSpec) appliance() string {
	switch s.c.typ {
	case TypeHeat:
		return s.heatKind()
	case TypeCool:
		return applianceCool
	case TypeClean:
		return applianceClean
	}
	return ""
}

// worldKind is one of the worlds of the package.
type worldKind int

const (
	worldCommon      worldKind = iota // household: common sense
	worldRL                           // household-rl: the house's conventions
	worldDrawn                        // household-drawn: conventions drawn per task
	worldRLLarge                      // household-rl-large: household-rl in large rooms
	worldDrawnLarge                   // household-drawn-large: household-drawn in large rooms
	worldDrawnPlaces                  // household-drawn-places: household-drawn-large, the kept kind drawn by receptacle
)

var worldKinds = []worldKind{worldCommon, worldRL, worldDrawn, worldRLLarge, worldDrawnLarge, worldDrawnPlaces}

// conventions is the world whose conventions k has: a large world's are
// those of its world of ordinary rooms.
func (k worldKind) conventions() worldKind {
	switch k {
	case worldRLLarge:
		return worldRL
	case worldDrawnLarge, worldDrawnPlaces:
		return worldDrawn
	}
	return k
}

// large reports whether k's rooms follow largeRoomKinds.
func (k worldKind) large() bool {
	return k == worldRLLarge || k == worldDrawnLarge || k == worldDrawnPlaces
}

// prefix is the world's name, the first part of its task ids.
func prefix(k worldKind) string {
	switch k {
	case worldRL:
		return NameRL
	case worldDrawn:
		return NameDrawn
	case worldRLLarge:
		return NameRLLarge
	case worldDrawnLarge:
		return NameDrawnLarge
	case worldDrawnPlaces:
		return NameDrawnPlaces
	}
	return Name
}

// parseID splits "household/<split>/<index>" (or "household-rl/...",
// "household-drawn/...").
func parseID(id string) (k worldKind, split string, index int, err error) {
	parts := strings.Split(id, "/")
	k = -1
	if len(parts) == 3 {
		for _, w := range worldKinds {
			if parts[0] == prefix(w) {
				k = w
			}
		}
	}
	if k < 0 {
		return 0, "", 0, fmt.Errorf("household: malformed task id %q (want household/<split>/<index>, or household-rl/..., household-drawn/..., household-rl-large/..., household-drawn-large/..., household-drawn-places/...)", id)
	}
	n, ok := splitSizes[parts[1]]
	if !ok {
		return 0, "", 0, fmt.Errorf("household: task id %q: unknown split %q", id, parts[1])
	}
	i, err := strconv.Atoi(parts[2])
	if err != nil || i < 0 || i >= n || parts[2] != taskIndex(i) {
		return 0, "", 0, fmt.Errorf("household: task id %q: no task %q in split %s (0..%d)", id, parts[2], parts[1], n-1)
	}
	return k, parts[1], i, nil
}

func taskIndex(i int) string { return fmt.Sprintf("%05d", i) }

func taskID(k worldKind, split string, i int) string {
	return prefix(k) + "/" + split + "/" + taskIndex(i)
}

// specFor derives a task from its id. Types cycle through the six task
// types. Training tasks cycle through every non-held-out combination of
// their type (so each occurs in train); valid_seen draws from the same pool
// by hash; valid_unseen draws from the held-out pool. A household-rl task
// is derived from the household id of the same split and index (same
// combination, room kind, goal text and generator seed) and adds the
// house's conventions; a household-drawn task likewise, with conventions
// drawn for the task alone (drawConventions).
func specFor(id string) (*taskSpec, error) {
	k, split, i, err := parseID(id)
	if err != nil {
		return nil, err
	}
	combosOnce.Do(buildCombos)
	typ := taskTypes[i%len(taskTypes)]
	h := hashString(taskID(worldCommon, split, i))
	var c combo
	switch split {
	case env.SplitTrain:
		pool := seenCombos[typ]
		c = pool[(i/len(taskTypes))%len(pool)]
	case env.SplitValidSeen:
		pool := seenCombos[typ]
		c = pool[h%uint64(len(pool))]
	default:
		pool := heldCombos[typ]
		c = pool[(i/len(taskTypes)+int(h%7))%len(pool)]
	}
	room := c.rooms[mix64(h^1)%uint64(len(c.rooms))]
	s := &taskSpec{
		id: id, split: split, index: i, c: c, room: room, seed: mix64(h ^ 2),
		goal: goalText(c, mix64(h^3)),
	}
	s.world = k
	switch k.conventions() {
	case worldRL:
		s.conv = &Conventions
		s.keep = Conventions.keepKind(c, room)
	case worldDrawn:
		s.conv, s.keep = drawConventions(c, room, mix64(h^5), k == worldDrawnPlaces)
	}
	return s, nil
}

// goalText renders a goal in one of ALFWorld's phrasings for the type.
func goalText(c combo, h uint64) string {
	var prep string
	if r := recepByName[c.recep]; r != nil {
		prep = r.prep
	}
	var forms []string
	switch c.typ {
	case TypePickAndPlace:
		forms = []string{"put a %[1]s %[2]s %[3]s", "put some %[1]s %[2]s %[3]s"}
	case TypeLookInLight:
		forms = []string{"look at %[1]s under the %[3]s", "examine the %[1]s with the %[3]s"}
	case TypeClean:
		forms = []string{"clean some %[1]s and put it %[2]s %[3]s", "put a clean %[1]s %[2]s %[3]s"}
	case TypeHeat:
		forms = []string{"heat some %[1]s and put it %[2]s %[3]s", "put a hot %[1]s %[2]s %[3]s"}
	case TypeCool:
		forms = []string{"cool some %[1]s and put it %[2]s %[3]s", "put a cool %[1]s %[2]s %[3]s"}
	case TypePickTwo:
		forms = []string{"put two %[1]s %[2]s %[3]s", "find two %[1]s and put them %[2]s %[3]s"}
	}
	return "Your task is to: " + fmt.Sprintf(forms[h%uint64(len(forms))], c.obj, prep, c.recep) + "."
}

// DefiningCombination returns the defining combination of a task as
// "<task type>/<object kind>/<receptacle kind>" (for look_at_obj_in_light
// the last part is the lamp kind), e.g.
// "pick_heat_then_place_in_recep/apple/fridge". The (object, receptacle)
// pair of every valid_unseen task occurs in no train or valid_seen task, of
// any type.
func DefiningCombination(taskID string) (string, error) {
	s, err := specFor(taskID)
	if err != nil {
		return "", err
	}
	return s.c.key(), nil
}

var (
	idsOnce sync.Once
	idLists map[string][]string
)

func tasks(k worldKind, split string) ([]string, error) {
	if _, ok := splitSizes[split]; !ok {
		return nil, fmt.Errorf("household: unknown split %q (have %s, %s, %s)", split, env.SplitTrain, env.SplitValidSeen, env.SplitValidUnseen)
	}
	idsOnce.Do(func() {
		idLists = map[string][]string{}
		for _, k := range worldKinds {
			for s, n := range splitSizes {
				ids := make([]string, n)
				for i := range ids {
					ids[i] = taskID(k, s, i)
				}
				idLists[prefix(k)+"/"+s] = ids
			}
		}
	})
	return append([]string(nil), idLists[prefix(k)+"/"+split]...), nil
}

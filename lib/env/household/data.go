package household

// The world's fixed tables: receptacle kinds, room templates, object kinds
// and lamps. Every name is one lower-case word, so a kind name is always one
// token and an instance name ("cabinet 3") is always two.

// recepKind describes a kind of receptacle (furniture or appliance).
type recepKind struct {
	name     string
	openable bool   // starts closed; must be opened before it can be searched or used
	prep     string // preposition in goal texts: "in" (containers) or "on" (surfaces)
}

var recepKinds = []recepKind{
	{"cabinet", true, "in"},
	{"drawer", true, "in"},
	{"fridge", true, "in"},
	{"microwave", true, "in"},
	{"safe", true, "in"},
	{"countertop", false, "on"},
	{"sinkbasin", false, "in"},
	{"stoveburner", false, "on"},
	{"diningtable", false, "on"},
	{"coffeemachine", false, "in"},
	{"garbagecan", false, "in"},
	{"toaster", false, "in"},
	{"shelf", false, "on"},
	{"bed", false, "on"},
	{"desk", false, "on"},
	{"dresser", false, "on"},
	{"sidetable", false, "on"},
	{"laundryhamper", false, "in"},
	{"armchair", false, "on"},
	{"bathtubbasin", false, "in"},
	{"toilet", false, "on"},
	{"towelholder", false, "on"},
	{"handtowelholder", false, "on"},
	{"toiletpaperhanger", false, "on"},
	{"sofa", false, "on"},
	{"coffeetable", false, "on"},
	{"tvstand", false, "on"},
	{"ottoman", false, "on"},
}

// Room kinds.
const (
	roomKitchen    = "kitchen"
	roomBedroom    = "bedroom"
	roomBathroom   = "bathroom"
	roomLivingroom = "livingroom"
)

// roomRecep is how many receptacles of a kind a room template holds.
type roomRecep struct {
	kind     string
	min, max int
}

type roomKind struct {
	name   string
	receps []roomRecep
}

// maxReceptacles caps a room's receptacle count, which bounds the oracle's
// search: at most maxReceptacles "go to" and maxClosed "open" actions.
const (
	maxReceptacles = 16
	maxClosed      = 9
)

// The caps of a large room (largeRoomKinds): an oracle without knowledge
// may need more than the 50-step budget to search one.
const (
	maxReceptaclesLarge = 36
	maxClosedLarge      = 22
)

var roomKinds = []roomKind{
	{roomKitchen, []roomRecep{
		{"cabinet", 2, 4}, {"drawer", 1, 3}, {"countertop", 1, 2}, {"fridge", 1, 1},
		{"microwave", 1, 1}, {"sinkbasin", 1, 1}, {"stoveburner", 1, 2}, {"diningtable", 0, 1},
		{"coffeemachine", 0, 1}, {"garbagecan", 1, 1}, {"toaster", 0, 1}, {"shelf", 0, 2},
	}},
	{roomBedroom, []roomRecep{
		{"bed", 1, 1}, {"desk", 0, 1}, {"drawer", 2, 4}, {"dresser", 0, 1}, {"shelf", 1, 3},
		{"sidetable", 1, 2}, {"garbagecan", 1, 1}, {"safe", 0, 1}, {"laundryhamper", 0, 1},
		{"armchair", 0, 1},
	}},
	{roomBathroom, []roomRecep{
		{"cabinet", 1, 4}, {"countertop", 1, 1}, {"sinkbasin", 1, 2}, {"bathtubbasin", 0, 1},
		{"toilet", 1, 1}, {"towelholder", 0, 1}, {"handtowelholder", 0, 1},
		{"toiletpaperhanger", 1, 1}, {"garbagecan", 1, 1}, {"drawer", 0, 3}, {"shelf", 0, 2},
	}},
	{roomLivingroom, []roomRecep{
		{"sofa", 1, 1}, {"armchair", 0, 2}, {"coffeetable", 1, 1}, {"sidetable", 1, 2},
		{"tvstand", 0, 1}, {"shelf", 1, 3}, {"drawer", 0, 3}, {"cabinet", 0, 2}, {"dresser", 0, 1},
		{"diningtable", 0, 1}, {"garbagecan", 1, 1}, {"safe", 0, 1}, {"ottoman", 0, 1},
	}},
}

// largeRoomKinds are the room templates of the large worlds
// (household-rl-large, household-drawn-large): the same kinds as roomKinds
// (so every task, combination and convention is the same), with
// ALFWorld-like counts of the kinds a house repeats: a kitchen of up to 14
// cabinets and 8 drawers, a bedroom of up to 10 drawers and 6 shelves.
var largeRoomKinds = []roomKind{
	{roomKitchen, []roomRecep{
		{"cabinet", 6, 14}, {"drawer", 3, 8}, {"countertop", 1, 3}, {"fridge", 1, 1},
		{"microwave", 1, 1}, {"sinkbasin", 1, 1}, {"stoveburner", 2, 4}, {"diningtable", 0, 1},
		{"coffeemachine", 0, 1}, {"garbagecan", 1, 1}, {"toaster", 0, 1}, {"shelf", 0, 3},
	}},
	{roomBedroom, []roomRecep{
		{"bed", 1, 1}, {"desk", 0, 2}, {"drawer", 4, 10}, {"dresser", 0, 1}, {"shelf", 2, 6},
		{"sidetable", 1, 2}, {"garbagecan", 1, 1}, {"safe", 0, 1}, {"laundryhamper", 0, 1},
		{"armchair", 0, 1},
	}},
	{roomBathroom, []roomRecep{
		{"cabinet", 3, 8}, {"countertop", 1, 2}, {"sinkbasin", 1, 2}, {"bathtubbasin", 0, 1},
		{"toilet", 1, 1}, {"towelholder", 0, 1}, {"handtowelholder", 0, 1},
		{"toiletpaperhanger", 1, 1}, {"garbagecan", 1, 1}, {"drawer", 2, 6}, {"shelf", 0, 3},
	}},
	{roomLivingroom, []roomRecep{
		{"sofa", 1, 1}, {"armchair", 0, 2}, {"coffeetable", 1, 1}, {"sidetable", 1, 3},
		{"tvstand", 0, 1}, {"shelf", 2, 5}, {"drawer", 2, 6}, {"cabinet", 2, 6}, {"dresser", 0, 1},
		{"diningtable", 0, 1}, {"garbagecan", 1, 1}, {"safe", 0, 1}, {"ottoman", 0, 1},
	}},
}

// objKind describes a kind of portable object. spawn lists the receptacle
// kinds where it is usually found, most likely first; it doubles as the
// list of receptacle kinds a task may ask to put it in or on.
type objKind struct {
	name              string
	rooms             []string
	spawn             []string
	clean, heat, cool bool
	look              bool // may be the object of a look_at_obj_in_light task
}

var (
	kitchen  = []string{roomKitchen}
	bathroom = []string{roomBathroom}
	bedLiv   = []string{roomBedroom, roomLivingroom}
	kitBed   = []string{roomKitchen, roomBedroom}
	kitBath  = []string{roomKitchen, roomBathroom}
)

var objKinds = []objKind{
	// Kitchen food.
	{"apple", kitchen, []string{"countertop", "fridge", "diningtable", "garbagecan"}, true, true, true, false},
	{"bread", kitchen, []string{"countertop", "diningtable", "fridge", "cabinet"}, false, true, true, false},
	{"lettuce", kitchen, []string{"fridge", "countertop", "diningtable"}, true, false, true, false},
	{"tomato", kitchen, []string{"fridge", "countertop", "diningtable", "sinkbasin"}, true, true, true, false},
	{"potato", kitchen, []string{"countertop", "fridge", "diningtable", "garbagecan"}, true, true, true, false},
	{"egg", kitchen, []string{"fridge", "countertop", "diningtable", "garbagecan"}, false, true, true, false},
	// Kitchen ware.
	{"mug", kitBed, []string{"cabinet", "countertop", "coffeemachine", "shelf", "desk", "diningtable"}, true, true, true, true},
	{"cup", kitchen, []string{"cabinet", "countertop", "fridge", "microwave", "diningtable"}, true, true, true, false},
	{"bowl", kitBed, []string{"cabinet", "shelf", "countertop", "diningtable", "fridge", "desk"}, true, true, true, true},
	{"plate", kitchen, []string{"cabinet", "countertop", "diningtable", "fridge", "shelf"}, true, true, true, false},
	{"pan", kitchen, []string{"stoveburner", "cabinet", "countertop", "sinkbasin"}, true, false, true, false},
	{"pot", kitchen, []string{"stoveburner", "cabinet", "countertop", "fridge"}, true, false, true, false},
	{"kettle", kitchen, []string{"stoveburner", "countertop", "cabinet", "shelf"}, true, false, false, false},
	{"knife", kitchen, []string{"countertop", "drawer", "diningtable", "sinkbasin"}, true, false, false, false},
	{"butterknife", kitchen, []string{"drawer", "countertop", "diningtable"}, true, false, false, false},
	{"fork", kitchen, []string{"drawer", "countertop", "diningtable", "sinkbasin"}, true, false, false, false},
	{"spoon", kitchen, []string{"drawer", "countertop", "diningtable", "sinkbasin"}, true, false, false, false},
	{"spatula", kitchen, []string{"drawer", "countertop", "diningtable", "stoveburner"}, true, false, false, false},
	{"ladle", kitchen, []string{"drawer", "countertop", "diningtable", "stoveburner"}, true, false, false, false},
	{"dishsponge", kitBath, []string{"sinkbasin", "countertop", "cabinet", "drawer"}, true, false, false, false},
	{"saltshaker", kitchen, []string{"countertop", "cabinet", "shelf", "diningtable", "drawer"}, false, false, false, false},
	{"peppershaker", kitchen, []string{"countertop", "cabinet", "shelf", "diningtable", "drawer"}, false, false, false, false},
	{"winebottle", kitchen, []string{"fridge", "countertop", "cabinet", "diningtable"}, false, false, true, false},
	{"glassbottle", kitchen, []string{"countertop", "fridge", "cabinet", "garbagecan"}, false, false, true, false},
	{"papertowelroll", kitchen, []string{"countertop", "cabinet", "shelf", "diningtable"}, false, false, false, false},
	{"soapbottle", kitBath, []string{"countertop", "cabinet", "shelf", "toilet", "sinkbasin"}, false, false, false, false},
	// Bathroom.
	{"soapbar", bathroom, []string{"sinkbasin", "countertop", "toilet", "bathtubbasin", "cabinet"}, true, false, false, false},
	{"cloth", bathroom, []string{"countertop", "cabinet", "bathtubbasin", "drawer", "sinkbasin"}, true, false, false, false},
	{"handtowel", bathroom, []string{"handtowelholder", "countertop", "cabinet", "drawer"}, true, false, false, false},
	{"towel", bathroom, []string{"towelholder", "bathtubbasin", "cabinet", "shelf"}, false, false, false, false},
	{"toiletpaper", bathroom, []string{"toiletpaperhanger", "toilet", "cabinet", "countertop", "shelf"}, false, false, false, false},
	{"spraybottle", bathroom, []string{"cabinet", "countertop", "toilet", "shelf", "garbagecan"}, false, false, false, false},
	{"candle", bathroom, []string{"countertop", "cabinet", "toilet", "shelf", "bathtubbasin"}, false, false, false, false},
	{"tissuebox", bathroom, []string{"countertop", "toilet", "cabinet", "shelf"}, false, false, false, false},
	{"scrubbrush", bathroom, []string{"toilet", "cabinet", "garbagecan"}, false, false, false, false},
	{"plunger", bathroom, []string{"toilet", "cabinet", "garbagecan"}, false, false, false, false},
	// Bedroom and living room.
	{"book", bedLiv, []string{"desk", "shelf", "bed", "sidetable", "dresser", "coffeetable", "sofa"}, false, false, false, true},
	{"pen", bedLiv, []string{"desk", "drawer", "sidetable", "shelf", "dresser"}, false, false, false, true},
	{"pencil", bedLiv, []string{"desk", "drawer", "sidetable", "shelf"}, false, false, false, true},
	{"cellphone", bedLiv, []string{"bed", "desk", "sidetable", "drawer", "dresser", "sofa"}, false, false, false, true},
	{"creditcard", bedLiv, []string{"desk", "drawer", "sidetable", "dresser", "coffeetable", "armchair"}, false, false, false, true},
	{"keychain", bedLiv, []string{"drawer", "sidetable", "dresser", "coffeetable", "safe", "desk"}, false, false, false, true},
	{"cd", bedLiv, []string{"desk", "drawer", "shelf", "safe", "sidetable"}, false, false, false, true},
	{"alarmclock", bedLiv, []string{"desk", "sidetable", "dresser", "shelf"}, false, false, false, true},
	{"laptop", bedLiv, []string{"desk", "bed", "sofa", "coffeetable", "diningtable"}, false, false, false, true},
	{"pillow", bedLiv, []string{"bed", "sofa", "armchair", "ottoman"}, false, false, false, true},
	{"remotecontrol", bedLiv, []string{"sofa", "coffeetable", "tvstand", "armchair", "sidetable"}, false, false, false, true},
	{"statue", bedLiv, []string{"shelf", "coffeetable", "sidetable", "dresser", "tvstand"}, false, false, false, true},
	{"vase", bedLiv, []string{"shelf", "coffeetable", "sidetable", "dresser", "diningtable"}, false, false, false, true},
	{"watch", bedLiv, []string{"dresser", "sidetable", "drawer", "safe", "coffeetable"}, false, false, false, true},
	{"box", bedLiv, []string{"shelf", "coffeetable", "dresser", "diningtable", "ottoman"}, false, false, false, true},
	{"newspaper", bedLiv, []string{"sofa", "coffeetable", "armchair", "sidetable", "diningtable"}, false, false, false, true},
	{"teddybear", bedLiv, []string{"bed", "armchair", "shelf", "sofa"}, false, false, false, true},
	{"tennisracket", bedLiv, []string{"bed", "desk", "shelf", "laundryhamper"}, false, false, false, true},
	{"basketball", bedLiv, []string{"bed", "shelf", "armchair", "laundryhamper"}, false, false, false, true},
	{"baseballbat", bedLiv, []string{"bed", "desk", "shelf", "laundryhamper"}, false, false, false, true},
}

// lampKind is a switchable lamp: a fixture that cannot be taken. It stands
// on (or beside) one of its spawn receptacles and is listed with the
// objects there.
type lampKind struct {
	name  string
	rooms []string
	spawn []string
}

var lampKinds = []lampKind{
	{"desklamp", bedLiv, []string{"desk", "sidetable", "dresser"}},
	{"floorlamp", []string{roomLivingroom}, []string{"sidetable", "armchair", "sofa"}},
}

// Appliances used by the transforming task types.
const (
	applianceHeat  = "microwave"
	applianceCool  = "fridge"
	applianceClean = "sinkbasin"
)

var (
	recepByName = map[string]*recepKind{}
	objByName   = map[string]*objKind{}
	lampByName  = map[string]*lampKind{}
	roomByName  = map[string]*roomKind{}
	largeByName = map[string]*roomKind{}
)

func init() {
	for i := range recepKinds {
		recepByName[recepKinds[i].name] = &recepKinds[i]
	}
	for i := range objKinds {
		if objByName[objKinds[i].name] != nil {
			panic("household: duplicate object kind " + objKinds[i].name)
		}
		objByName[objKinds[i].name] = &objKinds[i]
	}
	for i := range lampKinds {
		lampByName[lampKinds[i].name] = &lampKinds[i]
	}
	for i := range roomKinds {
		roomByName[roomKinds[i].name] = &roomKinds[i]
	}
	for i := range largeRoomKinds {
		largeByName[largeRoomKinds[i].name] = &largeRoomKinds[i]
	}
}

// roomTemplate is the template of a room of kind room, large or not, and
// its caps (receptacles, closed ones).
func roomTemplate(room string, large bool) (rk *roomKind, maxRecep, maxShut int) {
	if large {
		return largeByName[room], maxReceptaclesLarge, maxClosedLarge
	}
	return roomByName[room], maxReceptacles, maxClosed
}

// largeMax is the most receptacles of kind the large template of room
// holds (0 when it holds none).
func largeMax(room, kind string) int {
	for _, rr := range largeByName[room].receps {
		if rr.kind == kind {
			return rr.max
		}
	}
	return 0
}

// isCleaner reports whether a receptacle kind can clean objects.
func isCleaner(kind string) bool { return kind == "sinkbasin" || kind == "bathtubbasin" }

// roomHas reports whether a room template can hold a receptacle kind.
func roomHas(room, kind string) bool {
	for _, rr := range roomByName[room].receps {
		if rr.kind == kind && rr.max > 0 {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Package household is an ALFWorld-like text environment: an agent in a
// procedurally generated room searches receptacles, carries objects,
// cleans, heats or cools them and puts them in place, using ALFWorld's
// command grammar and texts. Import it for its side effect; its init
// registers it as "household" with env.Register:
//
//	import _ "github.com/pats-rl/pats/lib/env/household"
//
// # World model
//
// A room is of one of four kinds (kitchen, bedroom, bathroom, livingroom)
// and holds 5 to 16 receptacles drawn from 28 kinds ("cabinet 3",
// "countertop 1"), at most 9 of them closed containers (cabinet, drawer,
// fridge, microwave, safe) that must be opened before their contents can be
// seen or taken. Portable objects of 56 kinds ("apple 1", "cd 2") lie on or
// in receptacles, at most 4 per receptacle, usually (3 times in 4) at one of
// their kind's usual places. Lamps (desklamp, floorlamp) stand on
// receptacles, cannot be taken and are switched with "use". The agent
// starts in the middle of the room, holds at most one object, and sees
// what a receptacle holds only on arriving at it (or opening it). Objects
// carry three states: clean, hot and cool (heating clears cool and the
// reverse).
//
// # Tasks
//
// The six ALFWorld task types, their goal conditions and goal texts
// (always "Your task is to: ...." with one of two phrasings, "in" or "on"
// after the receptacle kind):
//
//	pick_and_place_simple           an X is in/on a Y                  "put a/some X in Y"
//	look_at_obj_in_light            X held where a lit lamp L stands   "look at X under the L", "examine the X with the L"
//	pick_clean_then_place_in_recep  a clean X is in/on a Y             "clean some X and put it in Y", "put a clean X in Y"
//	pick_heat_then_place_in_recep   a hot X is in/on a Y               "heat some X and put it in Y", "put a hot X in Y"
//	pick_cool_then_place_in_recep   a cool X is in/on a Y              "cool some X and put it in Y", "put a cool X in Y"
//	pick_two_obj_and_place          two X are in/on Y-kind receptacles "put two X in Y", "find two X and put them in Y"
//
// Any receptacle of kind Y counts. No goal object starts in a receptacle of
// kind Y. Cleaning uses a sinkbasin (or bathtubbasin), heating the
// microwave, cooling the fridge.
//
// # Commands
//
// Actions are lower-cased, white space is collapsed and one trailing full
// stop is dropped before parsing:
//
//	go to R          "You arrive at R. On the R, you see a O 1, and a O 2." / "The R is closed." / "The R is open. In it, you see ..."
//	open R, close R  at R, openable: "You open the R. The R is open. In it, you see ...", "You close the R."
//	take O from R    at R, R open, hands empty: "You pick up the O from the R."
//	put O in/on R    at R, R open, holding O ("in" or "on" alone is accepted too): "You put the O in/on the R."
//	heat O with R    holding O at a microwave: "You heat the O using the R." (cool: fridge; clean: sinkbasin, bathtubbasin)
//	use L            at L's receptacle: "You turn on the L." / "You turn off the L."
//	examine O|R      the receptacle where one stands, a held or visible object: "This is a hot apple 1."
//	look, inventory  "You are facing the R." / "You are carrying: a O 1."
//
// Anything else, or a command whose conditions do not hold, is answered
// "Nothing happens." with Step.Valid false. Admissible lists, sorted, the
// canonical form of every action that is valid now. An episode ends on
// success (Reward 10, Score 1) or after MaxSteps = 50 steps (Reward 0,
// Score 0); steps after the end change nothing.
//
// # Splits
//
// Task ids are "household/<split>/<index>" with a five-digit index:
// train has 3,553 tasks, valid_seen 140 and valid_unseen 134 (ALFWorld's
// sizes). A task is derived from its id alone (a hash of the id chooses
// the room and the goal phrasing; the index fixes the type, which cycles
// through the six), so listing ids is instant and nothing is stored. A
// task's defining combination (DefiningCombination) is its type, object
// kind and receptacle kind (lamp kind for look_at_obj_in_light). About one
// (object kind, receptacle kind) pair in six is held out: held-out pairs
// occur only in valid_unseen, which uses nothing else; train cycles through
// every other combination of each type, and valid_seen reuses them in rooms
// of its own. Reset's seed does not change the room: every episode of a
// task, whatever its seed, faces the same room, as a rollout group needs.
//
// # Oracle
//
// Oracle (NewOracle) solves every task from what an agent sees: it parses
// the goal, the room listing and the observations, remembers what it saw
// where, searches unvisited receptacles in order of how likely its kind is
// to hold the goal object (open surfaces before closed containers
// otherwise), opens closed ones, and then transforms and places the object
// or lights the lamp. The room caps (16 receptacles, 9 closed) bound its
// search to 25 steps, so it always finishes within the budget; it averages
// about 10 steps per episode (not so in the large worlds below).
//
// # Features
//
// Episode.Features returns, sorted and unique:
//
//	action:<verb>             a valid action of that verb (go, open, close, take, put, heat, cool, clean, use, examine, look, inventory)
//	object:<kind>             the goal's object kind, and every kind picked up
//	recep:<kind>              the goal's receptacle kind, and every kind put into or used to clean, heat or cool
//	lamp:<kind>               the goal's lamp kind (look_at_obj_in_light)
//	visited:<kind>            a receptacle kind gone to
//	milestone:found_target    an observation named an object of the goal kind
//	milestone:took_target     an object of the goal kind was picked up
//	milestone:transformed     an object of the goal kind was cleaned, heated or cooled
//	failure:invalid_action    some action was invalid
//	failure:loop              the same action three times in a row, or a cycle of two or three actions run twice
//	failure:max_steps         the budget ran out
//	failure:wrong_object      an object not of the goal kind was picked up
//	failure:wrong_receptacle  a goal object was put in a receptacle of another kind
//	failure:missing_transform a goal object was put in the right kind of receptacle without the required state
//
// # household-rl
//
// NewRL (registered as "household-rl") is the same tasks in a house with
// conventions (Conventions): each type's goal objects are kept at one kind
// of receptacle (a drawer, a cabinet or the garbagecan), and only the
// stoveburner heats. Ids are "household-rl/<split>/<index>"; splits, sizes,
// combinations, rooms kinds, goals and generator seeds are household's.
// Its episodes add two features: source:<kind> (where a goal object was
// taken from) and heat|cool|clean:<kind> (what transformed it). The oracle
// solves it from what it observes: at an appliance whose transformation is
// not admissible it tries the next kind that might do it.
//
// # household-drawn
//
// NewDrawn (registered as "household-drawn") is the same tasks with
// conventions drawn per task from a hash of its id: the goal objects are
// kept at one receptacle kind of the room's template other than the target,
// and the microwave or the stoveburner heats (each drawn uniformly). Its
// right rules state the draws, and so do its right skills' bodies
// (RightBody, env.BodyStater; household's library). It is a pretraining
// world: a rule decides the action, and no type has a convention of its
// own to learn instead of reading.
//
// # The large worlds
//
// NewRLLarge ("household-rl-large") and NewDrawnLarge
// ("household-drawn-large") are household-rl and household-drawn in large
// rooms: the same tasks, splits, combinations, room kinds, goals and
// conventions, in rooms of the same receptacle kinds with more of the kinds
// a house repeats (up to 14 cabinets, 10 drawers, 6 shelves; at most 36
// receptacles, 22 of them closed), as ALFWorld's rooms have. There a search
// without knowledge can take more than the 50 steps (the oracle without
// rules fails about 4% of valid_seen), so reading a right rule or skill
// body decides tasks, not only steps. They use the skill libraries of their
// ordinary worlds.
//
// NewDrawnPlaces ("household-drawn-places") is household-drawn-large with
// each task's kept kind drawn with a weight of the most receptacles of that
// kind the large room template holds, so that the kinds a room repeats
// (drawers, cabinets) keep the goal objects as often as their receptacles
// are many; the weights are the same for every type and object.
//
// # Rules
//
// Every world states rules about each task (env.Hinter: right, misleading
// and irrelevant ones, in the rule-based refiner's words: RuleLookFirst,
// RuleHeat, ...), and the oracle follows rules it reads (env.Reader):
// "look in the K first" and "heat|cool|clean the object with [the] K". A
// wrong rule costs it steps, never the task. docs/environments.md has the
// design and the measured step counts.
//
// # Vocabulary
//
// Vocabulary lists every word the environment writes (about 170): text is
// split into lower-cased runs of letters and digits and single punctuation
// marks ("in/on" is "in", "/", "on"), instance numbers 0 to 20 included.
package household

package cardtest

import (
	"fmt"
	"math/rand"

	"github.com/pats-rl/pats/lib/table"
)

// Heat and Cool are two household task types.
const (
	Heat = "pick_heat_then_place_in_recep"
	Cool = "pick_cool_then_place_in_recep"
)

// Episode is one episode of iteration 2 of group (task "task-"+group) with
// the given outcome and features and two actions that tell it apart.
func Episode(group, typ string, sample int32, ok bool, steps int32, mode string, feats ...string) table.Trajectory {
	return table.Trajectory{
		Iteration: 2, TaskID: "task-" + group, TaskType: typ, GroupID: group, Sample: sample,
		Success: ok, Steps: steps, FailureMode: mode, Features: feats,
		Actions: []string{"go " + group, "step " + string(rune('a'+sample))},
	}
}

// HandMade is a batch of three groups whose cards lib/card's tests work out
// by hand: group g1 (type heat): 2 successes, 3 failures; g2 (cool): 2
// successes; g3 (heat): 1 success, 1 failure.
func HandMade() []table.Trajectory {
	ep := Episode
	return []table.Trajectory{
		ep("g1", "heat", 0, false, 50, "max_steps", "action:take", "failure:max_steps"),
		ep("g1", "heat", 1, true, 12, "", "action:take", "action:heat", "object:apple"),
		ep("g1", "heat", 2, false, 20, "loop", "action:take", "failure:loop", "object:apple"),
		ep("g1", "heat", 3, true, 9, "", "action:take", "action:heat", "action:heat"),
		ep("g1", "heat", 4, false, 30, "loop", "failure:loop"),
		ep("g2", "cool", 0, true, 7, "", "action:cool"),
		ep("g2", "cool", 1, true, 7, "", "action:cool", "object:apple"),
		ep("g3", "heat", 0, false, 10, "", "action:take"),
		ep("g3", "heat", 1, true, 5, "", "action:heat"),
	}
}

// Episodes makes groups of 8 episodes of iteration 3 of a type where
// succeeding episodes heat (or cool: verb) the object and failing ones loop
// or run out of steps; pSucc is the success probability.
func Episodes(r *rand.Rand, typ, verb string, groups int, pSucc float64) []table.Trajectory {
	var out []table.Trajectory
	for g := 0; g < groups; g++ {
		gid := fmt.Sprintf("%s-g%d", typ, g)
		for s := 0; s < 8; s++ {
			t := table.Trajectory{Iteration: 3, TaskID: gid, TaskType: typ, GroupID: gid, Sample: int32(s),
				Steps: int32(10 + r.Intn(30)), Actions: []string{"go to countertop 1", "take apple 1 from countertop 1"}}
			t.Features = []string{"action:take", "object:apple"}
			if r.Float64() < pSucc {
				t.Success = true
				t.Features = append(t.Features, "action:"+verb, "milestone:took_target")
			} else if r.Intn(3) > 0 {
				t.FailureMode = "loop"
				t.Features = append(t.Features, "failure:loop")
			} else {
				t.FailureMode = "max_steps"
				t.Features = append(t.Features, "failure:max_steps")
			}
			out = append(out, t)
		}
	}
	return out
}

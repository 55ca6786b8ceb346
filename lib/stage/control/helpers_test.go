package control

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"testing"

	"github.com/pats-rl/pats/lib/card"
	"github.com/pats-rl/pats/lib/table"
)

// Fixtures of the control stage tests (the same as the refiner's own
// tests use).

const heat = "pick_heat_then_place_in_recep"
const cool = "pick_cool_then_place_in_recep"

// episodes makes groups of 8 episodes of a type where succeeding episodes
// heat (or cool) the object and failing ones loop or run out of steps; pSucc
// is the success probability.
func episodes(r *rand.Rand, typ, verb string, groups int, pSucc float64) []table.Trajectory {
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

func build(t *testing.T, trajs []table.Trajectory) ([]table.Card, []table.TypeEvidence) {
	t.Helper()
	c, e, err := card.Build(trajs, card.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return c, e
}

// chat is an OpenAI chat-completions answer with content.
func chat(content string) string {
	b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"message": map[string]string{"role": "assistant", "content": content}}}})
	return string(b)
}

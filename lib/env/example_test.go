package env_test

import (
	"fmt"

	"github.com/pats-rl/pats/lib/env"
	_ "github.com/pats-rl/pats/lib/env/shipped" // registers household, shop and searchqa
)

// One household episode played by the environment's oracle: open by name,
// pick a task of a split, reset, and step until done.
func Example() {
	e, err := env.Open("household")
	if err != nil {
		fmt.Println(err)
		return
	}
	ids, err := e.Tasks(env.SplitValidSeen)
	if err != nil {
		fmt.Println(err)
		return
	}
	ep, err := e.Reset(ids[0], 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(e.Splits())
	fmt.Println(ep.TaskType(), "|", ep.Goal())
	agent := e.Oracle()
	agent.Start(ep.Goal(), ep.Observation(), 1)
	obs, steps := ep.Observation(), 0
	for steps < ep.MaxSteps() {
		st := ep.Step(agent.Act(obs, ep.Admissible()))
		obs, steps = st.Observation, steps+1
		if st.Done {
			fmt.Println("success:", st.Success, "steps:", steps)
			break
		}
	}
	// Output:
	// [train valid_seen valid_unseen]
	// pick_and_place_simple | Your task is to: put some mug on countertop.
	// success: true steps: 5
}

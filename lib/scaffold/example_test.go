package scaffold_test

import (
	"fmt"
	"strings"

	"github.com/pats-rl/pats/lib/scaffold"
)

// A hand-written items file read into snapshot items (ids numbered per
// layer and type, token counts in words), and the scaffold z a heat task
// sees within a budget of 20 words: the task rule fits, the mistake and the
// general rule are dropped (lowest priority first).
func Example() {
	const itemsYAML = `items:
  - layer: general
    text: Read the task and plan before acting.
  - layer: task
    task_type: heat
    text: Heat the object with the microwave before placing it.
  - layer: mistake
    task_type: heat
    text: Do not put the object away before heating it.
  - layer: task
    task_type: cool
    text: Cool the object with the fridge.
`
	items, err := scaffold.ParseItems(strings.NewReader(itemsYAML), "items.yaml", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, it := range items {
		fmt.Println(it.ID, it.Layer, it.Tokens)
	}
	z, kept, dropped := scaffold.Render(items, "heat", 20, nil)
	fmt.Print(z)
	fmt.Println("kept", kept, "dropped", dropped)
	// Output:
	// g-0001 general 7
	// t-heat-0001 task 9
	// m-heat-0001 mistake 9
	// t-cool-0001 task 6
	// Task rules:
	// - Heat the object with the microwave before placing it.
	// kept [t-heat-0001] dropped [m-heat-0001 g-0001]
}

package table_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/pats-rl/pats/lib/table"
)

// Trajectory rows written to a Parquet file with their provenance, and read
// back: the file says what it holds and how it was made.
func Example() {
	dir, err := os.MkdirTemp("", "table-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "traj.parquet")
	rows := []table.Trajectory{
		{TaskID: "household/train/00001", TaskType: "pick_and_place_simple", GroupID: "g1", Sample: 0, Success: true, Steps: 6},
		{TaskID: "household/train/00001", TaskType: "pick_and_place_simple", GroupID: "g1", Sample: 1, Steps: 50, FailureMode: "max_steps"},
	}
	if err := table.WriteFile(path, rows, table.Meta{Command: "rollout --seed 1", Seed: 1}); err != nil {
		fmt.Println(err)
		return
	}
	back, metas, err := table.ReadFiles[table.Trajectory](path)
	if err != nil {
		fmt.Println(err)
		return
	}
	m := metas[0]
	fmt.Println(m.Kind, m.Command, m.Seed)
	for _, r := range back {
		fmt.Printf("%s %d %v %d %q\n", r.GroupID, r.Sample, r.Success, r.Steps, r.FailureMode)
	}
	// Output:
	// trajectory rollout --seed 1 1
	// g1 0 true 6 ""
	// g1 1 false 50 "max_steps"
}

package rollouttest

import (
	"fmt"
	"reflect"
	"testing"
)

func TestHouseholdMix(t *testing.T) {
	cases := []struct{ k, nOracle, group int }{
		{0, 0, 2},
		{1, 1, 3},
		{2, 2, 2},
	}
	for _, c := range cases {
		rows := Household(t, c.k, c.nOracle, c.group, "")
		if len(rows) != Tasks*c.group {
			t.Fatalf("%+v: %d rows, want %d", c, len(rows), Tasks*c.group)
		}
		seen := map[string]bool{}
		tasks := map[string]bool{}
		for _, r := range rows {
			key := fmt.Sprintf("%s/%d", r.TaskID, r.Sample)
			if seen[key] {
				t.Fatalf("%+v: (task, sample) %s twice", c, key)
			}
			seen[key] = true
			tasks[r.TaskID] = true
			oracle := int(r.Sample) >= c.group-c.nOracle
			if want := map[bool]string{true: "oracle", false: "random"}[oracle]; r.Policy != want {
				t.Fatalf("%+v: sample %d played by %q, want %q", c, r.Sample, r.Policy, want)
			}
			if oracle && !r.Success {
				t.Fatalf("%+v: oracle failed %s", c, r.TaskID)
			}
			if r.Iteration != int32(c.k) {
				t.Fatalf("%+v: iteration %d", c, r.Iteration)
			}
		}
		if len(tasks) != Tasks {
			t.Fatalf("%+v: %d tasks", c, len(tasks))
		}
	}
	if a, b := Household(t, 1, 1, 2, ""), Household(t, 1, 1, 2, ""); !reflect.DeepEqual(a, b) {
		t.Fatal("same arguments, different rows")
	}
}

package table

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRowChecks(t *testing.T) {
	good := Card{CardID: "c-0-g", SuccessRate: 0.5, NEpisodes: 4, NSuccess: 2,
		Contrast: []string{"a"}, ContrastDiff: []float64{0.5}, FailureModes: []string{"loop"}, FailureModeCounts: []int32{2}}
	cases := []struct {
		name string
		edit func(c *Card)
		want string // "" for a good row
	}{
		{"good", func(*Card) {}, ""},
		{"nan success", func(c *Card) { c.SuccessRate = math.NaN() }, "row 0: column success_rate: NaN is not a share"},
		{"success above 1", func(c *Card) { c.SuccessRate = 1.5 }, "column success_rate: 1.5"},
		{"negative count", func(c *Card) { c.NEpisodes = -1 }, "column n_episodes: negative count -1"},
		{"more successes than episodes", func(c *Card) { c.NSuccess = 5 }, "column n_success: 5 successes of 4 episodes"},
		{"rate of no episodes", func(c *Card) { c.NEpisodes, c.NSuccess = 0, 0 }, "column success_rate: 0.5 is not n_success / n_episodes (0 of 0)"},
		{"rate disagrees with counts", func(c *Card) { c.SuccessRate = 0.75 }, "column success_rate: 0.75 is not n_success / n_episodes (2 of 4)"},
		{"float32 rounding", func(c *Card) { c.NEpisodes, c.NSuccess, c.SuccessRate = 3, 1, float64(float32(1.0/3)) }, ""},
		{"contrast lists disagree", func(c *Card) { c.ContrastDiff = nil }, "column contrast_diff: 0 contrast_diff for 1 contrast"},
		{"no id", func(c *Card) { c.CardID = "" }, "column card_id: empty"},
	}
	for _, c := range cases {
		row := good
		c.edit(&row)
		path := filepath.Join(t.TempDir(), "cards.parquet")
		err := WriteFile(path, []Card{row}, Meta{})
		if c.want != "" {
			// the writer refuses what the readers refuse, and writes nothing
			if err == nil || !strings.Contains(err.Error(), "would be refused by the readers") {
				t.Errorf("%s: WriteFile: %v, want a refusal", c.name, err)
			}
			if _, serr := os.Stat(path); serr == nil {
				t.Errorf("%s: WriteFile left %s", c.name, path)
			}
			err = writeUnchecked(path, []Card{row})
		}
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = ReadFiles[Card](path)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !IsInputError(err) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path)):
			t.Errorf("%s: got %v, want an input error naming %s with %q", c.name, err, path, c.want)
		}
	}
	path := filepath.Join(t.TempDir(), "dup.parquet")
	if err := WriteFile(path, []Card{good, good}, Meta{}); err == nil || !strings.Contains(err.Error(), "row 1 would be refused by the readers: id c-0-g repeats row 0") {
		t.Errorf("WriteFile of a repeated card id: %v", err)
	}
	if err := writeUnchecked(path, []Card{good, good}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadFiles[Card](path); err == nil || !strings.Contains(err.Error(), "row 1: id c-0-g repeats row 0") {
		t.Errorf("repeated card id: %v", err)
	}
	os.Remove(path)
}

// writeUnchecked writes rows as another tool might, without the checks.
func writeUnchecked[T any](path string, rows []T) error {
	return WriteUnchecked(path, rows, Meta{})
}

func TestTrajectoryRowChecks(t *testing.T) {
	good := Trajectory{GroupID: "g", TaskType: "t", Tokens: []int32{1, 2}, Roles: []int8{0, 6}, Logprobs: []float32{0, -1}}
	cases := []struct {
		edit func(r *Trajectory)
		want string
	}{
		{func(*Trajectory) {}, ""},
		{func(r *Trajectory) { r.Reward = math.Inf(1) }, "column reward: +Inf"},
		{func(r *Trajectory) { r.Roles = []int8{0} }, "column roles: 1 roles for 2 tokens"},
		{func(r *Trajectory) { r.Roles = []int8{0, 9} }, "column roles: role 9"},
		{func(r *Trajectory) { r.Logprobs = []float32{0} }, "column logprobs: 1 logprobs for 2 tokens"},
		{func(r *Trajectory) { r.Reads = []string{"x"} }, "column reads_right: 0 reads_right for 1 reads"},
	}
	for i, c := range cases {
		row := good
		c.edit(&row)
		err := row.CheckRow()
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("case %d: got %v, want %q", i, err, c.want)
		}
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/stage/rollouttest"
	"github.com/pats-rl/pats/lib/table"
)

// TestMixedSourcesRefused (evaluate): a folder of trajectories from two policies, two
// environments or two runs is refused (exit 2, one line naming the two
// values, no output); one source passes, and so does one file that pools
// them (report mix).
func TestMixedSourcesRefused(t *testing.T) {
	for _, c := range []struct {
		name, want string
		change     func(*table.Trajectory)
	}{
		{"policy", `one policy ("oracle" and "ckpt/1")`, func(r *table.Trajectory) { r.Policy = "ckpt/1" }},
		{"env", `one environment ("household" and "shop")`, func(r *table.Trajectory) { r.Env = "shop" }},
		{"run", `one run ("" and "other")`, func(r *table.Trajectory) { r.Run = "other" }},
		{"none", "", func(*table.Trajectory) {}},
	} {
		dir := t.TempDir()
		in := filepath.Join(dir, "traj")
		if err := os.MkdirAll(in, 0o755); err != nil {
			t.Fatal(err)
		}
		a := rollouttest.Household(t, 2, 2, 4, "")
		b := rollouttest.Household(t, 2, 2, 4, "")
		for i := range a {
			a[i].Policy = "oracle"
			b[i].Policy = "oracle"
			b[i].GroupID += "-b"
			c.change(&b[i])
		}
		for name, rows := range map[string][]table.Trajectory{"a.parquet": a, "b.parquet": b} {
			if err := table.WriteFile(filepath.Join(in, name), rows, table.Meta{}); err != nil {
				t.Fatal(err)
			}
		}
		if c.want != "" {
			pooled := filepath.Join(dir, "pooled.parquet")
			if err := table.WriteFile(pooled, append(append([]table.Trajectory(nil), a...), b...), table.Meta{}); err != nil {
				t.Fatal(err)
			}
			if code, stderr := run(t, pooled, "-o", filepath.Join(dir, "pooled-out.parquet")); code != 0 {
				t.Errorf("%s: one pooled file: exit %d: %s", c.name, code, stderr)
			}
		}
		out := filepath.Join(dir, "metrics.parquet")
		code, stderr := run(t, in, "-o", out)
		if c.want == "" {
			if code != 0 {
				t.Errorf("%s: exit %d: %s", c.name, code, stderr)
			}
			continue
		}
		if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and one line with %q", c.name, code, stderr, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: refused but wrote %s", c.name, out)
		}
	}
}

package rollouttest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/table"
)

// Source is the policy, environment and run a summary row names.
type Source struct{ Policy, Env, Run string }

// MixedSourcesRefused checks a command that summarises a folder of
// trajectories (cards, evaluate): a folder whose files come from two
// policies, two environments or two runs is refused (exit 2, one line
// naming the two values, no output); one source passes, and so does one
// file that pools them (report mix). Asked to --group-by the mixed column,
// it writes one summary per value, half the rows each, the value in its
// column; --group-by seed is refused. run runs the command with its
// arguments (exit code, stderr); out names its output file; sources reads
// the output's rows back as Sources.
func MixedSourcesRefused(t *testing.T, run func(t *testing.T, args ...string) (int, string), out string, sources func(path string) ([]Source, error)) {
	t.Helper()
	firstValue := map[string]string{"policy": "oracle", "env": "household", "run": ""}
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
		a := Household(t, 2, 2, 4, "")
		b := Household(t, 2, 2, 4, "")
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
		outPath := filepath.Join(dir, out)
		code, stderr := run(t, in, "-o", outPath)
		if c.want == "" {
			if code != 0 {
				t.Errorf("%s: exit %d: %s", c.name, code, stderr)
			}
			continue
		}
		if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and one line with %q", c.name, code, stderr, c.want)
		}
		if _, err := os.Stat(outPath); err == nil {
			t.Errorf("%s: refused but wrote %s", c.name, outPath)
		}
		if code, stderr := run(t, in, "-o", outPath, "--group-by", c.name); code != 0 {
			t.Errorf("%s: --group-by %s: exit %d: %s", c.name, c.name, code, stderr)
			continue
		}
		rows, err := sources(outPath)
		if err != nil {
			t.Fatal(err)
		}
		values := map[string]int{}
		for _, r := range rows {
			values[map[string]string{"policy": r.Policy, "env": r.Env, "run": r.Run}[c.name]]++
		}
		first := values[firstValue[c.name]]
		if len(values) != 2 || first == 0 || first != len(rows)-first {
			t.Errorf("%s: --group-by %s: rows per %s value %v, want two values, half the rows each", c.name, c.name, c.name, values)
		}
	}
	if code, stderr := run(t, t.TempDir(), "--group-by", "seed", "-o", filepath.Join(t.TempDir(), "x.parquet")); code != 2 || !strings.Contains(stderr, "seed") {
		t.Errorf("--group-by seed: exit %d, %q; want exit 2 naming seed", code, stderr)
	}
}

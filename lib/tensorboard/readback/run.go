package readback

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/table"
)

// Point is one scalar of a run's event files: a tag at a step.
type Point struct {
	Tag  string
	Step int64
}

// Folder is what a folder of event files holds, read back.
type Folder struct {
	Files   []string            // the event files, sorted
	Scalars map[Point]float32   // every scalar
	Texts   map[Point]string    // every text
	Walls   map[string]float64  // each file's file_version wall time
	Tags    map[string][]string // the tags each file holds, in order
}

// ReadFolder reads every file of dir whose name holds "tfevents" (as
// TensorBoard picks them). A tag written twice at one step is an error,
// as is an event whose wall time is not its file's.
func ReadFolder(dir string) (*Folder, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	f := &Folder{Scalars: map[Point]float32{}, Texts: map[Point]string{}, Walls: map[string]float64{}, Tags: map[string][]string{}}
	for _, e := range ents {
		if strings.Contains(e.Name(), "tfevents") {
			f.Files = append(f.Files, e.Name())
		}
	}
	sort.Strings(f.Files)
	for _, name := range f.Files {
		evs, err := ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		f.Walls[name] = evs[0].WallTime
		for _, e := range evs[1:] {
			if e.WallTime != evs[0].WallTime {
				return nil, fmt.Errorf("%s: event at step %d has wall time %v, the file %v", name, e.Step, e.WallTime, evs[0].WallTime)
			}
			if len(e.Values) != 1 {
				return nil, fmt.Errorf("%s: event at step %d has %d values, want 1", name, e.Step, len(e.Values))
			}
			v := e.Values[0]
			p := Point{v.Tag, e.Step}
			if _, ok := f.Scalars[p]; ok {
				return nil, fmt.Errorf("%s: %s at step %d twice", name, v.Tag, e.Step)
			}
			if _, ok := f.Texts[p]; ok {
				return nil, fmt.Errorf("%s: %s at step %d twice", name, v.Tag, e.Step)
			}
			f.Tags[name] = append(f.Tags[name], v.Tag)
			switch {
			case v.HasSimple && !v.HasTensor:
				f.Scalars[p] = v.Simple
			case v.HasTensor && v.Plugin == "text" && v.DataClass == 2 && v.Dtype == 7 && v.Rank == 0 && len(v.Strings) == 1:
				f.Texts[p] = string(v.Strings[0])
			default:
				return nil, fmt.Errorf("%s: %s at step %d is neither a scalar nor a text of the text plugin: %+v", name, v.Tag, e.Step, v)
			}
		}
	}
	return f, nil
}

// numbered lists the integers K of dir/K.parquet.
func numbered(dir string) []int {
	ents, _ := os.ReadDir(dir)
	var ks []int
	for _, e := range ents {
		if k, err := strconv.Atoi(strings.TrimSuffix(e.Name(), ".parquet")); err == nil && strings.HasSuffix(e.Name(), ".parquet") {
			ks = append(ks, k)
		}
	}
	sort.Ints(ks)
	return ks
}

// Expected computes, from a run folder's Parquet files alone, the scalars
// its event files must hold: per traj/K the training success, the shares
// of GRPO groups with equal rewards and with every episode failed, the
// items and tokens of the snapshot whose version the episodes record,
// and GRPO's loss, KL and clip fraction averaged over metrics/grpo-K's
// steps; per lift/K the overall row; per evaluation file its overall
// success and tokens. Float64 figures are rounded to float32 once, as
// the files store them. It returns, too, the steps that have rollouts.
func Expected(run string) (map[Point]float32, []int, error) {
	want := map[Point]float32{}
	put := func(tag string, k int, v float64) { want[Point{tag, int64(k)}] = float32(v) }
	// the snapshots by their version
	snaps := map[string][2]float64{}
	for _, n := range numbered(filepath.Join(run, "snap")) {
		items, metas, err := table.ReadFiles[table.ScaffoldItem](filepath.Join(run, "snap", strconv.Itoa(n)+".parquet"))
		if err != nil {
			return nil, nil, err
		}
		var tok float64
		for _, it := range items {
			tok += float64(it.Tokens)
		}
		v := metas[0].Extra["version"]
		if old, ok := snaps[v]; ok && old != [2]float64{float64(len(items)), tok} {
			return nil, nil, fmt.Errorf("two snapshots of version %s differ", v)
		}
		snaps[v] = [2]float64{float64(len(items)), tok}
	}
	trajKs := numbered(filepath.Join(run, "traj"))
	for _, k := range trajKs {
		rows, _, err := table.ReadFiles[table.Trajectory](filepath.Join(run, "traj", strconv.Itoa(k)+".parquet"))
		if err != nil {
			return nil, nil, err
		}
		if len(rows) == 0 {
			continue
		}
		succ := 0.0
		lo, hi, ok := map[string]float64{}, map[string]float64{}, map[string]bool{}
		version := ""
		for i, r := range rows {
			if r.Success {
				succ++
			}
			if _, seen := lo[r.GroupID]; !seen {
				lo[r.GroupID], hi[r.GroupID] = r.Reward, r.Reward
			}
			lo[r.GroupID], hi[r.GroupID] = math.Min(lo[r.GroupID], r.Reward), math.Max(hi[r.GroupID], r.Reward)
			ok[r.GroupID] = ok[r.GroupID] || r.Success
			v := ""
			if r.ScaffoldVersion != nil {
				v = strconv.Itoa(int(*r.ScaffoldVersion))
			}
			if i > 0 && v != version {
				return nil, nil, fmt.Errorf("traj/%d: episodes of scaffold versions %q and %q", k, version, v)
			}
			version = v
		}
		var equal, fail float64
		for g := range lo {
			if lo[g] == hi[g] {
				equal++
				if !ok[g] {
					fail++
				}
			}
		}
		put("train/success", k, succ/float64(len(rows)))
		put("train/zero_variance_share", k, equal/float64(len(lo)))
		put("train/all_failure_share", k, fail/float64(len(lo)))
		if version != "" {
			s, found := snaps[version]
			if !found {
				return nil, nil, fmt.Errorf("traj/%d: no snapshot of version %s in snap/", k, version)
			}
			put("scaffold/items", k, s[0])
			put("scaffold/tokens", k, s[1])
		}
		mp := filepath.Join(run, "metrics", fmt.Sprintf("grpo-%d.parquet", k))
		if _, err := os.Stat(mp); err != nil {
			continue
		}
		m, _, err := table.ReadFiles[table.TrainMetrics](mp)
		if err != nil {
			return nil, nil, err
		}
		var loss, kl, clip, nkl, nclip float64
		for _, r := range m {
			loss += r.Loss
			if r.KL != nil {
				kl, nkl = kl+*r.KL, nkl+1
			}
			if r.ClipFrac != nil {
				clip, nclip = clip+*r.ClipFrac, nclip+1
			}
		}
		if len(m) > 0 {
			put("grpo/loss", k, loss/float64(len(m)))
		}
		if nkl > 0 {
			put("grpo/kl", k, kl/nkl)
		}
		if nclip > 0 {
			put("grpo/clip_fraction", k, clip/nclip)
		}
	}
	for _, k := range numbered(filepath.Join(run, "lift")) {
		rows, _, err := table.ReadFiles[table.ScaffoldLift](filepath.Join(run, "lift", strconv.Itoa(k)+".parquet"))
		if err != nil {
			return nil, nil, err
		}
		for _, r := range rows {
			if r.Scope == "all" {
				put("mechanism/lift", k, r.Lift)
				put("mechanism/success_with", k, r.SuccessWith)
				put("mechanism/success_without", k, r.SuccessWithout)
				put("mechanism/all_failure_with", k, r.AllFailWith)
				put("mechanism/all_failure_without", k, r.AllFailWithout)
			}
		}
	}
	evals, _ := filepath.Glob(filepath.Join(run, "eval", "*", "*.parquet"))
	for _, p := range evals {
		k, err := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if err != nil {
			continue
		}
		kind, split, _ := strings.Cut(strings.TrimSuffix(filepath.Base(p), ".parquet"), "-")
		ctx := map[string]string{"bare": "no_scaffold", "scaffold": "scaffold"}[kind]
		if ctx == "" {
			continue
		}
		rows, _, err := table.ReadFiles[table.EvalMetrics](p)
		if err != nil {
			return nil, nil, err
		}
		for _, r := range rows {
			if r.Scope == "all" {
				put("eval/"+split+"/"+ctx+"/success", k, r.Success)
				put("eval/"+split+"/"+ctx+"/tokens", k, r.Tokens)
			}
		}
	}
	return want, trajKs, nil
}

// Problems reads the event files of tbDir back and compares them with
// the run folder's Parquet files: exactly the scalars Expected computes,
// each equal; one text per iteration with rollouts (train/episode at
// step K) showing an episode of traj/K (its task id and goal); and, when
// wall is not 0, every file's wall time equal to it. It returns what it
// read and one line per difference; err when a file cannot be read.
func Problems(run, tbDir string, wall float64) (*Folder, []string, error) {
	got, err := ReadFolder(tbDir)
	if err != nil {
		return nil, nil, err
	}
	want, ks, err := Expected(run)
	if err != nil {
		return nil, nil, err
	}
	var out []string
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	if len(want) == 0 {
		bad("%s: no scalars expected; not a run folder?", run)
	}
	for p, w := range want {
		g, ok := got.Scalars[p]
		switch {
		case !ok:
			bad("%s: no %s at step %d (want %v)", tbDir, p.Tag, p.Step, w)
		case g != w:
			bad("%s: %s at step %d = %v, the Parquet's %v", tbDir, p.Tag, p.Step, g, w)
		}
	}
	for p := range got.Scalars {
		if _, ok := want[p]; !ok {
			bad("%s: %s at step %d is not a figure of the run's Parquet files", tbDir, p.Tag, p.Step)
		}
	}
	for _, k := range ks {
		text, ok := got.Texts[Point{"train/episode", int64(k)}]
		if !ok {
			bad("%s: no train/episode text at step %d", tbDir, k)
			continue
		}
		rows, _, err := table.ReadFiles[table.Trajectory](filepath.Join(run, "traj", strconv.Itoa(k)+".parquet"))
		if err != nil {
			return nil, nil, err
		}
		shown := false
		for _, r := range rows {
			goal, _, _ := strings.Cut(r.Goal, "\n")
			shown = shown || (strings.Contains(text, "task `"+strings.ReplaceAll(r.TaskID, "`", "'")+"`") && strings.Contains(text, "    goal: "+goal+"\n"))
		}
		if !shown {
			bad("%s: the text at step %d shows no episode of traj/%d:\n%s", tbDir, k, k, text)
		}
	}
	if len(got.Texts) != len(ks) {
		bad("%s: %d texts, want one per iteration with rollouts (%d)", tbDir, len(got.Texts), len(ks))
	}
	if wall != 0 {
		for _, name := range got.Files {
			if w := got.Walls[name]; w != wall {
				bad("%s: wall time %v, want %v", name, w, wall)
			}
		}
	}
	sort.Strings(out)
	return got, out, nil
}

// CheckRun fails t on every one of Problems' lines, and returns what it
// read.
func CheckRun(t testing.TB, run, tbDir string, wall float64) *Folder {
	t.Helper()
	got, problems, err := Problems(run, tbDir, wall)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	return got
}

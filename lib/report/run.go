package report

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pats-rl/pats/lib/table"
)

// Eval is the overall (scope "all") row of one evaluation file of a run folder:
// eval/K/bare-SPLIT.parquet (no scaffold: deployment) or
// eval/K/scaffold-SPLIT.parquet (scaffold snap/K in the context).
type Eval struct {
	Iteration int               // checkpoint ckpt/K evaluated
	Scaffold  bool              // the scaffold was in the context
	Split     string            // valid_seen, valid_unseen, ...
	Metrics   table.EvalMetrics // the scope "all" row
}

// Snap summarises one scaffold snapshot snap/K.parquet.
type Snap struct {
	Iteration     int            // K
	Items, Tokens int            // all layers
	LayerItems    map[string]int // items per layer (general, task, mistake)
	LayerTokens   map[string]int // tokens per layer
}

// Run is what a run folder of pipelines/pats.mk holds (see
// docs/pipelines.md for the layout). Missing parts are left empty: a run
// in progress, or a variant without a scaffold, loads too.
type Run struct {
	Dir    string
	Evals  []Eval                          // sorted by iteration, scaffold, split
	Snaps  []Snap                          // sorted by iteration
	States map[int][]table.ControllerState // control's state after iteration K
}

// numbered lists dir/*suffix whose stem is an integer, sorted by it.
func numbered(dir, suffix string) ([]int, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ks []int
	for _, e := range ents {
		n := e.Name()
		if !strings.HasSuffix(n, suffix) || strings.HasPrefix(n, ".") {
			continue
		}
		if k, err := strconv.Atoi(strings.TrimSuffix(n, suffix)); err == nil {
			ks = append(ks, k)
		}
	}
	sort.Ints(ks)
	return ks, nil
}

// Load reads the evaluations, snapshots and controller states of a run
// folder.
func Load(dir string) (*Run, error) {
	r := &Run{Dir: dir, States: map[int][]table.ControllerState{}}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, &table.InputError{Path: dir, Problem: "not a run folder", Err: err}
	}
	ks, err := numbered(filepath.Join(dir, "eval"), "")
	if err != nil {
		return nil, err
	}
	for _, k := range ks {
		files, _ := filepath.Glob(filepath.Join(dir, "eval", strconv.Itoa(k), "*.parquet"))
		sort.Strings(files)
		for _, f := range files {
			base := strings.TrimSuffix(filepath.Base(f), ".parquet")
			kind, split, ok := strings.Cut(base, "-")
			if !ok || (kind != "bare" && kind != "scaffold") {
				continue
			}
			rows, _, err := table.ReadFiles[table.EvalMetrics](f)
			if err != nil {
				return nil, err
			}
			for _, m := range rows {
				if m.Scope == table.ScopeAll {
					r.Evals = append(r.Evals, Eval{Iteration: k, Scaffold: kind == "scaffold", Split: split, Metrics: m})
					break
				}
			}
		}
	}
	sort.SliceStable(r.Evals, func(i, j int) bool {
		a, b := r.Evals[i], r.Evals[j]
		if a.Iteration != b.Iteration {
			return a.Iteration < b.Iteration
		}
		if a.Scaffold != b.Scaffold {
			return !a.Scaffold
		}
		return a.Split < b.Split
	})
	ks, err = numbered(filepath.Join(dir, "snap"), ".parquet")
	if err != nil {
		return nil, err
	}
	for _, k := range ks {
		s, err := LoadSnap(filepath.Join(dir, "snap", strconv.Itoa(k)+".parquet"))
		if err != nil {
			return nil, err
		}
		s.Iteration = k
		r.Snaps = append(r.Snaps, s)
	}
	ks, err = numbered(filepath.Join(dir, "state"), ".parquet")
	if err != nil {
		return nil, err
	}
	for _, k := range ks {
		rows, _, err := table.ReadFiles[table.ControllerState](filepath.Join(dir, "state", strconv.Itoa(k)+".parquet"))
		if err != nil {
			return nil, err
		}
		r.States[k] = rows
	}
	return r, nil
}

// LoadSnap counts the items and tokens of a snapshot file by layer.
func LoadSnap(path string) (Snap, error) {
	items, _, err := table.ReadFiles[table.ScaffoldItem](path)
	if err != nil {
		return Snap{}, err
	}
	s := Snap{LayerItems: map[string]int{}, LayerTokens: map[string]int{}}
	for _, it := range items {
		s.Items++
		s.Tokens += int(it.Tokens)
		s.LayerItems[it.Layer]++
		s.LayerTokens[it.Layer] += int(it.Tokens)
	}
	return s, nil
}

// Find returns the evaluation of iteration k (-1: the last evaluated one)
// with or without the scaffold on split.
func (r *Run) Find(k int, scaffold bool, split string) (Eval, bool) {
	if k < 0 {
		k = r.LastEval()
	}
	for _, e := range r.Evals {
		if e.Iteration == k && e.Scaffold == scaffold && e.Split == split {
			return e, true
		}
	}
	return Eval{}, false
}

// LastEval is the highest evaluated iteration, -1 when none.
func (r *Run) LastEval() int {
	k := -1
	for _, e := range r.Evals {
		if e.Iteration > k {
			k = e.Iteration
		}
	}
	return k
}

// IterationStats is the one-line summary of a finished iteration k.
type IterationStats struct {
	Iteration      int
	Episodes       int     // rollout episodes of traj/k
	Success        float64 // their success rate (with the training scaffold)
	Items, Tokens  int     // scaffold snap/k used by the rollout (0 without one)
	NextItems      int     // snap/k+1 (-1: no scaffold branch)
	NextTokens     int
	Loss, KL       float64 // means over the GRPO steps of the update k -> k+1
	Steps          int     // those steps (PPO optimizer steps)
	Iterations     int     // the run's iterations (0: unknown)
	Seconds        float64 // wall time from the iteration's inputs to its last output
	ScaffoldBranch bool
	Groups         int            // GRPO groups of traj/k
	ZeroVarGroups  int            // of them, groups whose rewards are all equal (no gradient)
	AllFail        int            // of those, groups where every episode failed
	Primitives     map[string]int // the controller's primitive per scope at k (state/k), counted; nil without a scaffold branch
}

// primitiveOrder is the order the line prints primitive counts in.
var primitiveOrder = []string{"EXPAND", "REVISE", "COMPRESS", "FORCED_PRUNE", "NONE"}

// ZeroVarShare is the share of traj/k's groups with equal rewards (0 without groups).
func (s IterationStats) ZeroVarShare() float64 {
	if s.Groups == 0 {
		return 0
	}
	return float64(s.ZeroVarGroups) / float64(s.Groups)
}

// String formats the line the loop prints.
func (s IterationStats) String() string {
	sc := "no scaffold"
	if s.ScaffoldBranch {
		sc = fmt.Sprintf("scaffold %d items %d tok -> %d items %d tok", s.Items, s.Tokens, s.NextItems, s.NextTokens)
	} else if s.Items > 0 {
		sc = fmt.Sprintf("scaffold %d items %d tok (fixed)", s.Items, s.Tokens)
	}
	it := fmt.Sprintf("iteration %d", s.Iteration)
	if s.Iterations > 0 {
		it = fmt.Sprintf("iteration %d (%d/%d done)", s.Iteration, s.Iteration+1, s.Iterations)
	}
	// The first PPO step of an update is taken by the policy that rolled
	// out: ratio 1, nothing clipped, loss about 0 (centred advantages) and,
	// from ckpt/0, KL 0. A one-step update's figures are 0 by construction.
	steps := fmt.Sprintf("mean of %d PPO steps", s.Steps)
	if s.Steps == 1 {
		steps = "1 PPO step: the first, at ratio 1, so about 0 by construction"
	}
	line := fmt.Sprintf("%s: success %.3f (%d episodes) | %s | zero-variance groups %d/%d (%.2f; all-failure %d)",
		it, s.Success, s.Episodes, sc, s.ZeroVarGroups, s.Groups, s.ZeroVarShare(), s.AllFail)
	if s.Primitives != nil {
		var ps []string
		for _, p := range primitiveOrder {
			ps = append(ps, fmt.Sprintf("%s %d", p, s.Primitives[p]))
		}
		line += " | control " + strings.Join(ps, " ")
	}
	return line + fmt.Sprintf(" | loss %.4f kl %.5f (%s) | %.0f s", s.Loss, s.KL, steps, s.Seconds)
}

// groupStats counts trajectories' GRPO groups (by group id), those whose
// rewards are all equal, and those where every episode failed.
func groupStats(trajs []table.Trajectory) (groups, zeroVar, allFail int) {
	type g struct {
		min, max float64
		anyOK    bool
	}
	by := map[string]*g{}
	for _, t := range trajs {
		x, ok := by[t.GroupID]
		if !ok {
			x = &g{min: t.Reward, max: t.Reward}
			by[t.GroupID] = x
		}
		x.min, x.max = math.Min(x.min, t.Reward), math.Max(x.max, t.Reward)
		x.anyOK = x.anyOK || t.Success
	}
	for _, x := range by {
		if x.min == x.max {
			zeroVar++
			if !x.anyOK {
				allFail++
			}
		}
	}
	return len(by), zeroVar, allFail
}

// Iteration summarises iteration k of a run folder from traj/k, the
// snapshot given to its rollout (scaffold; empty: none), snap/k+1 when the
// scaffold branch ran, and metrics/grpo-k. Seconds are taken from the
// files' modification times.
func Iteration(dir string, k int, scaffold string) (IterationStats, error) {
	s := IterationStats{Iteration: k, NextItems: -1}
	traj := filepath.Join(dir, "traj", strconv.Itoa(k)+".parquet")
	trajs, _, err := table.ReadFiles[table.Trajectory](traj)
	if err != nil {
		return s, err
	}
	for _, t := range trajs {
		s.Episodes++
		if t.Success {
			s.Success++
		}
	}
	if s.Episodes > 0 {
		s.Success /= float64(s.Episodes)
	}
	s.Groups, s.ZeroVarGroups, s.AllFail = groupStats(trajs)
	if st := filepath.Join(dir, "state", strconv.Itoa(k)+".parquet"); fileExists(st) {
		rows, _, err := table.ReadFiles[table.ControllerState](st)
		if err != nil {
			return s, err
		}
		s.Primitives = map[string]int{}
		for _, r := range rows {
			s.Primitives[r.Primitive]++
		}
	}
	// a checkpoint, or a LoRA adapter (issue 60), written at the iteration's start and end
	start := []string{filepath.Join(dir, "ckpt", strconv.Itoa(k), "config.json"), filepath.Join(dir, "ckpt", strconv.Itoa(k), "adapter_config.json")}
	end := []string{filepath.Join(dir, "ckpt", strconv.Itoa(k+1), "config.json"), filepath.Join(dir, "ckpt", strconv.Itoa(k+1), "adapter_config.json")}
	if scaffold != "" {
		sn, err := LoadSnap(scaffold)
		if err != nil {
			return s, err
		}
		s.Items, s.Tokens = sn.Items, sn.Tokens
		start = append(start, scaffold)
	}
	next := filepath.Join(dir, "snap", strconv.Itoa(k+1)+".parquet")
	if _, err := os.Stat(next); err == nil {
		sn, err := LoadSnap(next)
		if err != nil {
			return s, err
		}
		s.ScaffoldBranch, s.NextItems, s.NextTokens = true, sn.Items, sn.Tokens
		end = append(end, next)
	}
	m, _, err := table.ReadFiles[table.TrainMetrics](filepath.Join(dir, "metrics", fmt.Sprintf("grpo-%d.parquet", k)))
	if err != nil {
		return s, err
	}
	for _, row := range m {
		s.Loss += row.Loss
		if row.KL != nil { // NULL only on SFT rows
			s.KL += *row.KL
		}
	}
	s.Steps = len(m)
	if len(m) > 0 {
		s.Loss /= float64(len(m))
		s.KL /= float64(len(m))
	}
	if t0, t1 := latest(start), latest(end); !t0.IsZero() && !t1.IsZero() {
		s.Seconds = math.Max(0, t1.Sub(t0).Seconds())
	}
	return s, nil
}

// latest returns the newest modification time among paths that exist.
func latest(paths []string) time.Time {
	var t time.Time
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.ModTime().After(t) {
			t = st.ModTime()
		}
	}
	return t
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// GroupSummary is the group-level view of rollouts: GRPO's groups, those
// whose rewards are all equal (no gradient) and those where every episode
// failed, and the episodes' success.
type GroupSummary struct {
	Episodes, Successes      int
	Groups, ZeroVar, AllFail int
}

// SummariseGroups reads trajectory files and summarises their groups.
func SummariseGroups(paths ...string) (GroupSummary, error) {
	trajs, _, err := table.ReadFiles[table.Trajectory](paths...)
	if err != nil {
		return GroupSummary{}, err
	}
	var g GroupSummary
	for _, t := range trajs {
		g.Episodes++
		if t.Success {
			g.Successes++
		}
	}
	g.Groups, g.ZeroVar, g.AllFail = groupStats(trajs)
	return g, nil
}

// String formats the summary as one line.
func (g GroupSummary) String() string {
	share := func(n, d int) float64 {
		if d == 0 {
			return 0
		}
		return float64(n) / float64(d)
	}
	return fmt.Sprintf("episodes %d, success %.3f | groups %d, zero-variance %d (%.3f), all-failure %d (%.3f)",
		g.Episodes, share(g.Successes, g.Episodes), g.Groups, g.ZeroVar, share(g.ZeroVar, g.Groups), g.AllFail, share(g.AllFail, g.Groups))
}

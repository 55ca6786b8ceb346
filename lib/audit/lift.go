package audit

import (
	"fmt"
	"math/rand/v2"
	"sort"

	"github.com/pats-rl/pats/lib/table"
)

// The lift's bootstrap: resamples of the tasks with replacement, PCG
// seeded with LiftSeed, so the interval is the same on every machine.
const (
	LiftResamples = 4000
	LiftSeed      = 20261205
)

// Lift measures whether the scaffold in the context lifts the success of
// the policy that plays with it: with holds an iteration's training
// rollouts (scaffold in the context), without the same groups played
// again by the same checkpoint with no scaffold (same tasks, samples and
// episode seeds). Episodes are paired by task id and sample; every episode
// of either side must have its twin. One "all" row, then one "type" row per
// task type in name order.
func Lift(with, without []table.Trajectory) ([]table.ScaffoldLift, error) {
	type key struct {
		task   string
		sample int32
	}
	bare := map[key]table.Trajectory{}
	for _, t := range without {
		k := key{t.TaskID, t.Sample}
		if _, dup := bare[k]; dup {
			return nil, fmt.Errorf("episodes without the scaffold: task %q sample %d appears twice", t.TaskID, t.Sample)
		}
		if t.NScaffoldTokens > 0 {
			return nil, fmt.Errorf("episodes without the scaffold: task %q sample %d carries %d scaffold tokens", t.TaskID, t.Sample, t.NScaffoldTokens)
		}
		bare[k] = t
	}
	if len(with) != len(without) {
		return nil, fmt.Errorf("%d episodes with the scaffold against %d without: the same groups must be played on both sides", len(with), len(without))
	}
	type task struct {
		typ        string
		n, sw, so  int
		scafTokens float64
	}
	tasks := map[string]*task{}
	iter := int32(-2)
	for _, t := range with {
		b, ok := bare[key{t.TaskID, t.Sample}]
		if !ok {
			return nil, fmt.Errorf("task %q sample %d has no episode without the scaffold", t.TaskID, t.Sample)
		}
		if b.Seed != t.Seed || b.TaskType != t.TaskType {
			return nil, fmt.Errorf("task %q sample %d: the two sides differ in episode seed or task type (%d/%q against %d/%q)", t.TaskID, t.Sample, t.Seed, t.TaskType, b.Seed, b.TaskType)
		}
		if iter == -2 {
			iter = t.Iteration
		} else if t.Iteration != iter {
			return nil, fmt.Errorf("episodes of iterations %d and %d: one iteration at a time", iter, t.Iteration)
		}
		tk := tasks[t.TaskID]
		if tk == nil {
			tk = &task{typ: t.TaskType}
			tasks[t.TaskID] = tk
		}
		tk.n++
		tk.scafTokens += float64(t.NScaffoldTokens)
		if t.Success {
			tk.sw++
		}
		if b.Success {
			tk.so++
		}
	}
	if len(tasks) == 0 {
		return nil, fmt.Errorf("no episodes")
	}
	ids := make([]string, 0, len(tasks))
	types := map[string]bool{}
	for id, tk := range tasks {
		ids = append(ids, id)
		types[tk.typ] = true
	}
	sort.Strings(ids)
	typeNames := make([]string, 0, len(types))
	for t := range types {
		typeNames = append(typeNames, t)
	}
	sort.Strings(typeNames)
	row := func(scope, typ string) table.ScaffoldLift {
		var diffs []float64
		r := table.ScaffoldLift{Iteration: iter, Scope: scope, TaskType: typ}
		var sw, so, n, failW, failO int
		var tok float64
		for _, id := range ids {
			tk := tasks[id]
			if typ != "" && tk.typ != typ {
				continue
			}
			r.Tasks++
			n += tk.n
			sw += tk.sw
			so += tk.so
			tok += tk.scafTokens
			if tk.sw == 0 {
				failW++
			}
			if tk.so == 0 {
				failO++
			}
			diffs = append(diffs, float64(tk.sw-tk.so)/float64(tk.n))
		}
		r.Episodes = int32(n)
		r.SuccessWith = float64(sw) / float64(n)
		r.SuccessWithout = float64(so) / float64(n)
		r.ScaffoldTokens = tok / float64(n)
		r.AllFailWith = float64(failW) / float64(r.Tasks)
		r.AllFailWithout = float64(failO) / float64(r.Tasks)
		r.Lift, r.LiftLo, r.LiftHi = bootstrapMean(diffs)
		return r
	}
	out := []table.ScaffoldLift{row(table.ScopeAll, "")}
	for _, t := range typeNames {
		out = append(out, row(table.ScopeType, t))
	}
	return out, nil
}

// bootstrapMean is the mean of xs with the 2.5th and 97.5th percentiles of
// the means of LiftResamples resamples of xs (with replacement).
func bootstrapMean(xs []float64) (mean, lo, hi float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	rng := rand.New(rand.NewPCG(LiftSeed, uint64(len(xs))))
	means := make([]float64, LiftResamples)
	for i := range means {
		s := 0.0
		for range xs {
			s += xs[rng.IntN(len(xs))]
		}
		means[i] = s / float64(len(xs))
	}
	sort.Float64s(means)
	lo = means[int(0.025*float64(LiftResamples))]
	hi = means[int(0.975*float64(LiftResamples))-1]
	return mean, lo, hi
}

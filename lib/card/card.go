package card

import (
	"fmt"
	"math"
	"sort"

	"github.com/pats-rl/pats/lib/table"
)

// Per values.
const (
	PerGroup      = "group"
	PerTrajectory = "trajectory"
)

// UnknownFailure is the failure mode of a failed episode that names none.
const UnknownFailure = "unknown"

// Options configure Build.
type Options struct {
	Per         string // "group" (default when empty) or "trajectory"
	TopContrast int    // features kept in a contrast; default 8 when <= 0
}

// DefaultOptions returns Per "group", TopContrast 8.
func DefaultOptions() Options { return Options{Per: PerGroup, TopContrast: 8} }

// Build makes the cards and the type evidence of trajs. It fails on an
// unknown Per value, on a trajectory without a group id or task type, and on
// a group whose episodes disagree on task, type or iteration, or repeat a
// sample index.
func Build(trajs []table.Trajectory, opts Options) ([]table.Card, []table.TypeEvidence, error) {
	if opts.Per == "" {
		opts.Per = PerGroup
	}
	if opts.TopContrast <= 0 {
		opts.TopContrast = 8
	}
	if opts.Per != PerGroup && opts.Per != PerTrajectory {
		return nil, nil, fmt.Errorf("unknown card granularity %q (want group or trajectory)", opts.Per)
	}
	type key struct {
		iter  int32
		group string
	}
	groups := map[key][]table.Trajectory{}
	var keys []key
	for i, t := range trajs {
		if t.GroupID == "" {
			return nil, nil, fmt.Errorf("trajectory %d (task %q): empty group_id", i, t.TaskID)
		}
		if t.TaskType == "" {
			return nil, nil, fmt.Errorf("trajectory %d (group %q): empty task_type", i, t.GroupID)
		}
		k := key{t.Iteration, t.GroupID}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], t)
	}
	var cards []table.Card
	for _, k := range keys {
		g := groups[k]
		sort.SliceStable(g, func(i, j int) bool { return g[i].Sample < g[j].Sample })
		for i := range g {
			if g[i].TaskID != g[0].TaskID || g[i].TaskType != g[0].TaskType {
				return nil, nil, fmt.Errorf("group %q at iteration %d mixes tasks %q/%q and %q/%q", k.group, k.iter, g[0].TaskID, g[0].TaskType, g[i].TaskID, g[i].TaskType)
			}
			if i > 0 && g[i].Sample == g[i-1].Sample {
				return nil, nil, fmt.Errorf("group %q at iteration %d repeats sample %d", k.group, k.iter, g[i].Sample)
			}
		}
		if opts.Per == PerGroup {
			cards = append(cards, makeCard(fmt.Sprintf("c-%d-%s", k.iter, k.group), g, opts.TopContrast))
		} else {
			for _, t := range g {
				cards = append(cards, makeCard(fmt.Sprintf("c-%d-%s-s%d", k.iter, k.group, t.Sample), []table.Trajectory{t}, opts.TopContrast))
			}
		}
	}
	sort.SliceStable(cards, func(i, j int) bool {
		a, b := cards[i], cards[j]
		if a.Iteration != b.Iteration {
			return a.Iteration < b.Iteration
		}
		if a.TaskType != b.TaskType {
			return a.TaskType < b.TaskType
		}
		return a.CardID < b.CardID
	})
	return cards, Aggregate(cards, opts.TopContrast), nil
}

// episodeFeatures returns the distinct features of one episode.
func episodeFeatures(t table.Trajectory) map[string]bool {
	m := map[string]bool{}
	for _, f := range t.Features {
		if f != "" {
			m[f] = true
		}
	}
	return m
}

func failureMode(t table.Trajectory) string {
	if t.FailureMode == "" {
		return UnknownFailure
	}
	return t.FailureMode
}

// freqs counts, over episodes, the share showing each feature.
func freqs(eps []table.Trajectory) map[string]float64 {
	m := map[string]float64{}
	for _, t := range eps {
		for f := range episodeFeatures(t) {
			m[f]++
		}
	}
	for f := range m {
		m[f] /= float64(len(eps))
	}
	return m
}

// byCount returns the keys of m and their values as parallel lists, sorted
// by value (descending), then key: the order of feature frequencies and of
// failure-mode counts.
func byCount[V float64 | int32](m map[string]V) ([]string, []V) {
	names := make([]string, 0, len(m))
	for f := range m {
		names = append(names, f)
	}
	sort.Slice(names, func(i, j int) bool {
		if m[names[i]] != m[names[j]] {
			return m[names[i]] > m[names[j]]
		}
		return names[i] < names[j]
	})
	vals := make([]V, len(names))
	for i, n := range names {
		vals[i] = m[n]
	}
	return names, vals
}

// contrast returns the top features by |ps - pf| (ties by name), dropping
// zero differences.
func contrast(ps, pf map[string]float64, top int) ([]string, []float64) {
	diff := map[string]float64{}
	for f, p := range ps {
		diff[f] = p - pf[f]
	}
	for f, p := range pf {
		if _, ok := ps[f]; !ok {
			diff[f] = -p
		}
	}
	var names []string
	for f, d := range diff {
		if math.Abs(d) > 1e-12 {
			names = append(names, f)
		}
	}
	sort.Slice(names, func(i, j int) bool {
		ai, aj := math.Abs(diff[names[i]]), math.Abs(diff[names[j]])
		if ai != aj {
			return ai > aj
		}
		return names[i] < names[j]
	})
	if len(names) > top {
		names = names[:top]
	}
	vals := make([]float64, len(names))
	for i, n := range names {
		vals[i] = diff[n]
	}
	return names, vals
}

// makeCard builds one card from episodes sorted by sample.
func makeCard(id string, eps []table.Trajectory, top int) table.Card {
	var succ, fail []table.Trajectory
	for _, t := range eps {
		if t.Success {
			succ = append(succ, t)
		} else {
			fail = append(fail, t)
		}
	}
	c := table.Card{
		CardID:      id,
		TaskID:      eps[0].TaskID,
		TaskType:    eps[0].TaskType,
		GroupID:     eps[0].GroupID,
		Iteration:   eps[0].Iteration,
		NEpisodes:   int32(len(eps)),
		NSuccess:    int32(len(succ)),
		SuccessRate: float64(len(succ)) / float64(len(eps)),
	}
	ps, pf := freqs(succ), freqs(fail)
	c.SuccessFeatures, c.SuccessFreqs = byCount(ps)
	c.FailureFeatures, c.FailureFreqs = byCount(pf)
	if len(succ) > 0 && len(fail) > 0 {
		c.Contrast, c.ContrastDiff = contrast(ps, pf, top)
	} else {
		c.Contrast, c.ContrastDiff = []string{}, []float64{}
	}
	modes := map[string]int32{}
	for _, t := range fail {
		modes[failureMode(t)]++
	}
	c.FailureModes, c.FailureModeCounts = byCount(modes)
	// Representatives (eps is sorted by sample, so the first best wins ties).
	repSuccess := int32(-1)
	for _, t := range succ {
		if repSuccess < 0 || t.Steps < bestSteps(succ, repSuccess) {
			repSuccess = t.Sample
		}
	}
	if repSuccess >= 0 {
		c.RepSuccessSample = &repSuccess
		c.RepSuccessActions = actionsOf(succ, repSuccess)
	}
	if len(fail) > 0 {
		mode := c.FailureModes[0]
		best := int32(-1)
		for _, t := range fail {
			if failureMode(t) != mode {
				continue
			}
			if best < 0 || t.Steps > bestSteps(fail, best) {
				best = t.Sample
			}
		}
		c.RepFailureSample = &best
		c.RepFailureMode = mode
		c.RepFailureActions = actionsOf(fail, best)
	}
	if c.RepSuccessActions == nil {
		c.RepSuccessActions = []string{}
	}
	if c.RepFailureActions == nil {
		c.RepFailureActions = []string{}
	}
	return c
}

func bestSteps(eps []table.Trajectory, sample int32) int32 {
	for _, t := range eps {
		if t.Sample == sample {
			return t.Steps
		}
	}
	return 0
}

func actionsOf(eps []table.Trajectory, sample int32) []string {
	for _, t := range eps {
		if t.Sample == sample {
			return append([]string{}, t.Actions...)
		}
	}
	return []string{}
}

// Aggregate builds the type evidence of cards: one row per (iteration, task
// type), plus per iteration one row with an empty task type over all cards.
// top is the contrast length (8 when <= 0).
func Aggregate(cards []table.Card, top int) []table.TypeEvidence {
	if top <= 0 {
		top = 8
	}
	type key struct {
		iter int32
		typ  string
	}
	byKey := map[key][]table.Card{}
	for _, c := range cards {
		byKey[key{c.Iteration, c.TaskType}] = append(byKey[key{c.Iteration, c.TaskType}], c)
		byKey[key{c.Iteration, ""}] = append(byKey[key{c.Iteration, ""}], c)
	}
	var keys []key
	for k := range byKey {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].iter != keys[j].iter {
			return keys[i].iter < keys[j].iter
		}
		return keys[i].typ < keys[j].typ
	})
	var out []table.TypeEvidence
	for _, k := range keys {
		cs := byKey[k]
		ev := table.TypeEvidence{TaskType: k.typ, Iteration: k.iter, NCards: int32(len(cs))}
		types := map[string]bool{}
		sumS := map[string]float64{} // expected count of successful episodes with f
		sumF := map[string]float64{}
		var nS, nF float64
		modes := map[string]int32{}
		rate := 0.0
		for _, c := range cs {
			types[c.TaskType] = true
			ev.NEpisodes += c.NEpisodes
			rate += c.SuccessRate
			ev.CardIDs = append(ev.CardIDs, c.CardID)
			ns := float64(c.NSuccess)
			nf := float64(c.NEpisodes - c.NSuccess)
			nS += ns
			nF += nf
			for i, f := range c.SuccessFeatures {
				sumS[f] += c.SuccessFreqs[i] * ns
			}
			for i, f := range c.FailureFeatures {
				sumF[f] += c.FailureFreqs[i] * nf
			}
			for i, m := range c.FailureModes {
				modes[m] += c.FailureModeCounts[i]
			}
		}
		ev.NTypes = int32(len(types))
		ev.SuccessRate = rate / float64(len(cs))
		if nS > 0 && nF > 0 {
			for f := range sumS {
				sumS[f] /= nS
			}
			for f := range sumF {
				sumF[f] /= nF
			}
			ev.Contrast, ev.ContrastDiff = contrast(sumS, sumF, top)
		} else {
			ev.Contrast, ev.ContrastDiff = []string{}, []float64{}
		}
		ev.FailureModes, ev.FailureModeCounts = byCount(modes)
		sort.Strings(ev.CardIDs)
		out = append(out, ev)
	}
	return out
}

// Freq returns the frequency of feature f on the success and failure sides
// of c (0 where absent).
func Freq(c table.Card, f string) (success, failure float64) {
	for i, n := range c.SuccessFeatures {
		if n == f {
			success = c.SuccessFreqs[i]
		}
	}
	for i, n := range c.FailureFeatures {
		if n == f {
			failure = c.FailureFreqs[i]
		}
	}
	return success, failure
}

// Lean is p_success(f) - p_failure(f) in card c, a missing side counting as
// frequency 0: positive when f goes with success in c.
func Lean(c table.Card, f string) float64 {
	s, fl := Freq(c, f)
	return s - fl
}

// ModeCount is the number of c's failed episodes with failure mode m.
func ModeCount(c table.Card, m string) int32 {
	for i, n := range c.FailureModes {
		if n == m {
			return c.FailureModeCounts[i]
		}
	}
	return 0
}

// EvidenceFor returns the evidence row of task type t (empty t: the general
// row) at iteration k, and whether there is one.
func EvidenceFor(ev []table.TypeEvidence, t string, k int32) (table.TypeEvidence, bool) {
	for _, e := range ev {
		if e.TaskType == t && e.Iteration == k {
			return e, true
		}
	}
	return table.TypeEvidence{}, false
}

// Diff returns the signed contrast of feature f in evidence e (0 when f is
// not among its top features).
func Diff(e table.TypeEvidence, f string) float64 {
	for i, n := range e.Contrast {
		if n == f {
			return e.ContrastDiff[i]
		}
	}
	return 0
}

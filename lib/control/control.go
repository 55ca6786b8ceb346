package control

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/table"
)

// Options configure the controller (see the package doc for the defaults'
// reasons).
type Options struct {
	RhoR    float64  // EXPAND below; default 0.4
	RhoC    float64  // COMPRESS at or above; default 0.75
	EMA     float64  // weight of the previous smoothed value; default 0.5
	Enabled []string // primitives allowed; nil = all four
	Frozen  bool     // propose nothing, ever
	General bool     // adapt the general layer too; default true
	// AbsorbMargin: with a bare replay (StepBare), a scope whose bare EMA
	// comes within this margin of its scaffolded EMA, or above it, has
	// absorbed its items and gets COMPRESS; a scope whose bare rate beats
	// the scaffolded one by more than it counts an iteration of doing
	// worse with its items (NWorse). Default 0.05.
	AbsorbMargin float64
	// The caps (FORCED_PRUNE at a cap), the EXPAND quota, and the two
	// rules the refiner keeps to: scaffold.DefaultLimits by default.
	scaffold.Limits
}

// DefaultAbsorbMargin is Options.AbsorbMargin's default.
const DefaultAbsorbMargin = 0.05

// HarmfulAfter is how many observed iterations running a scope must do
// worse with its items than bare before they count as harmful.
const HarmfulAfter = 2

// DefaultOptions returns the defaults.
func DefaultOptions() Options {
	return Options{RhoR: 0.4, RhoC: 0.75, EMA: 0.5, General: true, AbsorbMargin: DefaultAbsorbMargin, Limits: scaffold.DefaultLimits()}
}

// Validate reports inconsistent options.
func (o Options) Validate() error {
	switch {
	case !(o.RhoR >= 0 && o.RhoR <= o.RhoC && o.RhoC <= 1):
		return fmt.Errorf("thresholds must satisfy 0 <= rho_r <= rho_c <= 1 (got %g, %g)", o.RhoR, o.RhoC)
	case !(o.EMA >= 0 && o.EMA < 1):
		return fmt.Errorf("ema factor must be in [0,1) (got %g)", o.EMA)
	case !(o.AbsorbMargin >= 0 && o.AbsorbMargin <= 1):
		return fmt.Errorf("absorption margin must be in [0,1] (got %g)", o.AbsorbMargin)
	}
	for _, p := range o.Enabled {
		if !scaffold.IsPrimitive(p) {
			return fmt.Errorf("unknown primitive %q", p)
		}
	}
	return o.Limits.Validate()
}

func (o Options) enabled(p string) bool {
	if o.Enabled == nil {
		return true
	}
	for _, x := range o.Enabled {
		if x == p {
			return true
		}
	}
	return false
}

// Smooth is one EMA step: x when there is no previous value, else
// a*prev + (1-a)*x.
func Smooth(prev float64, havePrev bool, x, a float64) float64 {
	if !havePrev {
		return x
	}
	return a*prev + (1-a)*x
}

// Rate formats a nullable success rate for a log line: two decimals, or
// "none" before a type's first evidence.
func Rate(x *float64) string {
	if x == nil {
		return "none"
	}
	return strconv.FormatFloat(*x, 'f', 2, 64)
}

// Choose returns the primitive for smoothed success s and a scope of nItems
// items and nTokens tokens under caps maxItems and maxTokens, honouring
// o.Enabled and o.Frozen (see the package doc).
func Choose(s float64, nItems, nTokens, maxItems, maxTokens int, o Options) string {
	if o.Frozen {
		return scaffold.None
	}
	var p string
	switch {
	case s < o.RhoR:
		p = scaffold.Expand
	case s < o.RhoC:
		p = scaffold.Revise
	default:
		p = scaffold.Compress
	}
	if capReached(nItems, nTokens, maxItems, maxTokens) {
		if o.enabled(scaffold.ForcedPrune) {
			return scaffold.ForcedPrune
		}
	}
	if o.enabled(p) {
		return p
	}
	return scaffold.None
}

// capReached reports whether a scope of nItems items and nTokens tokens
// is at a cap. An empty scope never is (under the fade its caps may be 0).
func capReached(nItems, nTokens, maxItems, maxTokens int) bool {
	return (nItems > 0 || nTokens > 0) && (nItems >= maxItems || nTokens >= maxTokens)
}

// Step runs the controller for iteration k without a bare replay
// (StepBare with no bare evidence).
func Step(prev []table.ControllerState, ev []table.TypeEvidence, items []table.ScaffoldItem, types []string, k int32, o Options) ([]table.ControllerState, error) {
	return StepBare(prev, ev, nil, items, types, k, o)
}

// StepBare runs the controller for iteration k. prev holds earlier states (any
// history; for each type the latest row before k is used, later rows are
// ignored); ev the type evidence (rows of other iterations are ignored);
// items the current snapshot; types extra task types to keep a state for
// (e.g. the environment's types). It returns one state per scope, sorted by
// task type, the general scope ("") first when Options.General is set.
//
// bare is the type evidence of the bare replay of iteration k's groups (the
// same tasks played by the same checkpoint with no scaffold; nil: none):
// per scope it smooths the bare rate as s_k, marks the scope Absorbed when
// the bare EMA is within AbsorbMargin of s_k or above it (the primitive of
// a scope with items becomes COMPRESS where it would be EXPAND or REVISE:
// an empty scope has nothing to absorb and may grow), and counts NWorse.
// Under a fade (Limits.Fade) the caps are those of snapshot k+1
// (Limits.At), and a scope at its cap gets FORCED_PRUNE whether or not it
// was observed at k, so that the scaffold is empty when the fade ends.
func StepBare(prev []table.ControllerState, ev, bare []table.TypeEvidence, items []table.ScaffoldItem, types []string, k int32, o Options) ([]table.ControllerState, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	last, err := latestStates(prev, k)
	if err != nil {
		return nil, err
	}
	obs, err := observations(ev, k, "type evidence")
	if err != nil {
		return nil, err
	}
	bareObs, err := observations(bare, k, "bare type evidence")
	if err != nil {
		return nil, err
	}
	limits := o.Limits.At(k)
	names := scopeNames(last, obs, items, types, o.General)
	out := make([]table.ControllerState, 0, len(names))
	for _, t := range names {
		st := next(last[t], t, k, items, limits)
		p, had := last[t]
		n, tok := int(st.NItems), int(st.NTokens)
		mi, mt := int(*st.CapItems), int(*st.CapTokens)
		if e, ok := obs[t]; ok && e.NCards > 0 {
			x, s := observe(&st, p, had, e, o)
			st.Primitive = Choose(s, n, tok, mi, mt, o)
			if b, ok := bareObs[t]; ok && b.NCards > 0 {
				observeBare(&st, p, had, b, x, s, o)
				if st.Absorbed && n > 0 && !o.Frozen && (st.Primitive == scaffold.Expand || st.Primitive == scaffold.Revise ||
					st.Primitive == scaffold.None) && o.enabled(scaffold.Compress) {
					st.Primitive = scaffold.Compress
				}
			}
		}
		if st.Primitive == scaffold.Expand && (mi == 0 || mt == 0) {
			st.Primitive = scaffold.None // the fade has closed the scope: nothing may be added
		}
		if !st.Observed && limits.Fade.On() && !o.Frozen && capReached(n, tok, mi, mt) && o.enabled(scaffold.ForcedPrune) {
			st.Primitive = scaffold.ForcedPrune
		}
		switch st.Primitive {
		case scaffold.Expand:
			st.NExpand++
		case scaffold.Revise:
			st.NRevise++
		case scaffold.Compress:
			st.NCompress++
		case scaffold.ForcedPrune:
			st.NForcedPrune++
		default:
			st.NNone++
		}
		out = append(out, st)
	}
	return out, nil
}

// stateKey names one row of the controller's history.
type stateKey struct {
	taskType  string
	iteration int32
}

// latestStates returns, per scope, the latest of prev's rows before k; a
// scope and iteration given twice is an error.
func latestStates(prev []table.ControllerState, k int32) (map[string]table.ControllerState, error) {
	last := map[string]table.ControllerState{}
	seen := map[stateKey]bool{}
	for _, s := range prev {
		key := stateKey{s.TaskType, s.Iteration}
		if seen[key] {
			return nil, fmt.Errorf("controller state for type %q at iteration %d given twice", s.TaskType, s.Iteration)
		}
		seen[key] = true
		if s.Iteration >= k {
			continue
		}
		if l, ok := last[s.TaskType]; !ok || s.Iteration > l.Iteration {
			last[s.TaskType] = s
		}
	}
	return last, nil
}

// observations returns ev's rows of iteration k by scope; what names the
// evidence in the error of a scope given twice.
func observations(ev []table.TypeEvidence, k int32, what string) (map[string]table.TypeEvidence, error) {
	obs := map[string]table.TypeEvidence{}
	for _, e := range ev {
		if e.Iteration != k {
			continue
		}
		if _, dup := obs[e.TaskType]; dup {
			return nil, fmt.Errorf("%s for type %q at iteration %d given twice", what, e.TaskType, k)
		}
		obs[e.TaskType] = e
	}
	return obs, nil
}

// scopeNames returns the scopes to keep a state for, sorted: those of the
// history, the observations, the snapshot and types, and the general
// layer ("", first) when general is set.
func scopeNames(last map[string]table.ControllerState, obs map[string]table.TypeEvidence, items []table.ScaffoldItem, types []string, general bool) []string {
	scopes := map[string]bool{}
	for t := range last {
		scopes[t] = true
	}
	for t := range obs {
		scopes[t] = true
	}
	for _, t := range scaffold.TaskTypes(items) {
		scopes[t] = true
	}
	for _, t := range types {
		scopes[t] = true
	}
	if general {
		scopes[""] = true
	} else {
		delete(scopes, "")
	}
	names := make([]string, 0, len(scopes))
	for t := range scopes {
		names = append(names, t)
	}
	sort.Strings(names)
	return names
}

// next is scope t's state at k before any observation: the counters and
// rates carried from p, the snapshot's totals and the caps of the
// snapshot k writes, primitive NONE.
func next(p table.ControllerState, t string, k int32, items []table.ScaffoldItem, limits scaffold.Limits) table.ControllerState {
	st := table.ControllerState{TaskType: t, Iteration: k,
		SmoothedSuccess: p.SmoothedSuccess, LastSuccess: p.LastSuccess,
		NExpand: p.NExpand, NRevise: p.NRevise, NCompress: p.NCompress,
		NForcedPrune: p.NForcedPrune, NNone: p.NNone, NObserved: p.NObserved,
		BareSmoothed: p.BareSmoothed, BareLast: p.BareLast, Primitive: scaffold.None}
	n, tok := scaffold.ScopeTotals(items, t)
	st.NItems, st.NTokens = int32(n), int32(tok)
	mi, mt := limits.Caps(t)
	ci, ct := int32(mi), int32(mt)
	st.CapItems, st.CapTokens = &ci, &ct
	return st
}

// observe records the scope's success rate e at k in st (p: its previous
// state, had: whether there is one) and returns the rate x and the new
// EMA s.
func observe(st *table.ControllerState, p table.ControllerState, had bool, e table.TypeEvidence, o Options) (x, s float64) {
	st.Observed = true
	before := 0.0
	if p.SmoothedSuccess != nil {
		before = *p.SmoothedSuccess
	}
	x = e.SuccessRate
	s = Smooth(before, had && p.NObserved > 0 && p.SmoothedSuccess != nil, x, o.EMA)
	st.LastSuccess, st.SmoothedSuccess = &x, &s
	st.NObserved++
	return x, s
}

// observeBare records the bare replay's rate b at k in st beside the
// scaffolded rate x and EMA s: the bare EMA, Absorbed and NWorse.
func observeBare(st *table.ControllerState, p table.ControllerState, had bool, b table.TypeEvidence, x, s float64, o Options) {
	y := b.SuccessRate
	before := 0.0
	if p.BareSmoothed != nil {
		before = *p.BareSmoothed
	}
	bs := Smooth(before, had && p.BareSmoothed != nil, y, o.EMA)
	st.BareLast, st.BareSmoothed = &y, &bs
	st.Absorbed = bs >= s-o.AbsorbMargin
	if y > x+o.AbsorbMargin {
		st.NWorse = p.NWorse + 1
	}
}

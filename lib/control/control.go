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
	// The caps (FORCED_PRUNE at a cap), the EXPAND quota, and the two
	// rules the refiner keeps to: scaffold.DefaultLimits by default.
	scaffold.Limits
}

// DefaultOptions returns the defaults.
func DefaultOptions() Options {
	return Options{RhoR: 0.4, RhoC: 0.75, EMA: 0.5, General: true, Limits: scaffold.DefaultLimits()}
}

// Validate reports inconsistent options.
func (o Options) Validate() error {
	switch {
	case !(o.RhoR >= 0 && o.RhoR <= o.RhoC && o.RhoC <= 1):
		return fmt.Errorf("thresholds must satisfy 0 <= rho_r <= rho_c <= 1 (got %g, %g)", o.RhoR, o.RhoC)
	case !(o.EMA >= 0 && o.EMA < 1):
		return fmt.Errorf("ema factor must be in [0,1) (got %g)", o.EMA)
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
	if nItems >= maxItems || nTokens >= maxTokens {
		if o.enabled(scaffold.ForcedPrune) {
			return scaffold.ForcedPrune
		}
	}
	if o.enabled(p) {
		return p
	}
	return scaffold.None
}

// Step runs the controller for iteration k. prev holds earlier states (any
// history; for each type the latest row before k is used, later rows are
// ignored); ev the type evidence (rows of other iterations are ignored);
// items the current snapshot; types extra task types to keep a state for
// (e.g. the environment's types). It returns one state per scope, sorted by
// task type, the general scope ("") first when Options.General is set.
func Step(prev []table.ControllerState, ev []table.TypeEvidence, items []table.ScaffoldItem, types []string, k int32, o Options) ([]table.ControllerState, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	last := map[string]table.ControllerState{}
	seen := map[[2]any]bool{}
	for _, s := range prev {
		key := [2]any{s.TaskType, s.Iteration}
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
	obs := map[string]table.TypeEvidence{}
	for _, e := range ev {
		if e.Iteration != k {
			continue
		}
		if _, dup := obs[e.TaskType]; dup {
			return nil, fmt.Errorf("type evidence for type %q at iteration %d given twice", e.TaskType, k)
		}
		obs[e.TaskType] = e
	}
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
	if o.General {
		scopes[""] = true
	} else {
		delete(scopes, "")
	}
	var names []string
	for t := range scopes {
		names = append(names, t)
	}
	sort.Strings(names)
	out := make([]table.ControllerState, 0, len(names))
	for _, t := range names {
		p, had := last[t]
		st := table.ControllerState{TaskType: t, Iteration: k,
			SmoothedSuccess: p.SmoothedSuccess, LastSuccess: p.LastSuccess,
			NExpand: p.NExpand, NRevise: p.NRevise, NCompress: p.NCompress,
			NForcedPrune: p.NForcedPrune, NNone: p.NNone, NObserved: p.NObserved}
		n, tok := scaffold.ScopeTotals(items, t)
		st.NItems, st.NTokens = int32(n), int32(tok)
		st.Primitive = scaffold.None
		if e, ok := obs[t]; ok && e.NCards > 0 {
			st.Observed = true
			prev := 0.0
			if p.SmoothedSuccess != nil {
				prev = *p.SmoothedSuccess
			}
			x, s := e.SuccessRate, Smooth(prev, had && p.NObserved > 0 && p.SmoothedSuccess != nil, e.SuccessRate, o.EMA)
			st.LastSuccess, st.SmoothedSuccess = &x, &s
			st.NObserved++
			mi, mt := o.Caps(t)
			st.Primitive = Choose(s, n, tok, mi, mt, o)
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

package control

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/table"
)

// Primitives (scaffold.Expand and the others: the validator shares them).
const (
	Expand      = scaffold.Expand
	Revise      = scaffold.Revise
	Compress    = scaffold.Compress
	ForcedPrune = scaffold.ForcedPrune
	None        = scaffold.None
)

// All lists the four primitives.
var All = []string{Expand, Revise, Compress, ForcedPrune}

// Options configure the controller (see the package doc for the defaults'
// reasons).
type Options struct {
	RhoR             float64  // EXPAND below; default 0.4
	RhoC             float64  // COMPRESS at or above; default 0.75
	EMA              float64  // weight of the previous smoothed value; default 0.5
	MaxItems         int      // per task type (task + mistake items); default 12
	MaxTokens        int      // per task type; default 400
	MaxGeneralItems  int      // general layer; default 8
	MaxGeneralTokens int      // general layer; default 200
	ExpandQuota      int      // additions per type per iteration; default 3
	Enabled          []string // primitives allowed; nil = all four
	Frozen           bool     // propose nothing, ever
	General          bool     // adapt the general layer too; default true
}

// DefaultOptions returns the defaults.
func DefaultOptions() Options {
	return Options{RhoR: 0.4, RhoC: 0.75, EMA: 0.5, MaxItems: scaffold.DefaultMaxItems, MaxTokens: scaffold.DefaultMaxTokens,
		MaxGeneralItems: scaffold.DefaultMaxGeneralItems, MaxGeneralTokens: scaffold.DefaultMaxGeneralTokens,
		ExpandQuota: scaffold.DefaultExpandQuota, General: true}
}

// Validate reports inconsistent options.
func (o Options) Validate() error {
	switch {
	case !(o.RhoR >= 0 && o.RhoR <= o.RhoC && o.RhoC <= 1):
		return fmt.Errorf("thresholds must satisfy 0 <= rho_r <= rho_c <= 1 (got %g, %g)", o.RhoR, o.RhoC)
	case !(o.EMA >= 0 && o.EMA < 1):
		return fmt.Errorf("ema factor must be in [0,1) (got %g)", o.EMA)
	case o.MaxItems <= 0 || o.MaxTokens <= 0 || o.MaxGeneralItems <= 0 || o.MaxGeneralTokens <= 0:
		return fmt.Errorf("caps must be positive")
	case o.ExpandQuota < 0:
		return fmt.Errorf("expand quota must be >= 0")
	}
	for _, p := range o.Enabled {
		if !isPrimitive(p) {
			return fmt.Errorf("unknown primitive %q", p)
		}
	}
	return nil
}

func isPrimitive(p string) bool {
	for _, x := range All {
		if x == p {
			return true
		}
	}
	return false
}

// Caps returns the item and token caps of scope t ("" = general).
func (o Options) Caps(t string) (items, tokens int) {
	if t == "" {
		return o.MaxGeneralItems, o.MaxGeneralTokens
	}
	return o.MaxItems, o.MaxTokens
}

// ParsePrimitives reads a primitive restriction: "all" (or empty): all four;
// "expand": EXPAND only; "no-<name>": all but one (e.g. "no-revise"); or a
// comma list of names ("expand,compress"). Names are case-insensitive;
// "prune" and "forced_prune" name FORCED_PRUNE.
func ParsePrimitives(s string) ([]string, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	name := func(x string) (string, error) {
		x = strings.TrimSpace(x)
		switch x {
		case "expand":
			return Expand, nil
		case "revise":
			return Revise, nil
		case "compress":
			return Compress, nil
		case "prune", "forced_prune", "forced-prune":
			return ForcedPrune, nil
		}
		return "", fmt.Errorf("unknown primitive %q (want expand, revise, compress or prune)", x)
	}
	if s == "" || s == "all" {
		return append([]string(nil), All...), nil
	}
	if strings.HasPrefix(s, "no-") {
		drop, err := name(s[3:])
		if err != nil {
			return nil, err
		}
		var out []string
		for _, p := range All {
			if p != drop {
				out = append(out, p)
			}
		}
		return out, nil
	}
	var out []string
	seen := map[string]bool{}
	for _, x := range strings.Split(s, ",") {
		p, err := name(x)
		if err != nil {
			return nil, err
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out, nil
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

// Choose returns the primitive for smoothed success s and a scope of nItems
// items and nTokens tokens under caps maxItems and maxTokens, honouring
// o.Enabled and o.Frozen (see the package doc).
func Choose(s float64, nItems, nTokens, maxItems, maxTokens int, o Options) string {
	if o.Frozen {
		return None
	}
	var p string
	switch {
	case s < o.RhoR:
		p = Expand
	case s < o.RhoC:
		p = Revise
	default:
		p = Compress
	}
	if nItems >= maxItems || nTokens >= maxTokens {
		if o.enabled(ForcedPrune) {
			return ForcedPrune
		}
	}
	if o.enabled(p) {
		return p
	}
	return None
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
		st.Primitive = None
		if e, ok := obs[t]; ok && e.NCards > 0 {
			st.Observed = true
			st.LastSuccess = e.SuccessRate
			st.SmoothedSuccess = Smooth(p.SmoothedSuccess, had && p.NObserved > 0, e.SuccessRate, o.EMA)
			st.NObserved++
			mi, mt := o.Caps(t)
			st.Primitive = Choose(st.SmoothedSuccess, n, tok, mi, mt, o)
		}
		switch st.Primitive {
		case Expand:
			st.NExpand++
		case Revise:
			st.NRevise++
		case Compress:
			st.NCompress++
		case ForcedPrune:
			st.NForcedPrune++
		default:
			st.NNone++
		}
		out = append(out, st)
	}
	return out, nil
}

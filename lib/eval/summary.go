package eval

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/pats-rl/pats/lib/table"
)

// Labels says what the summarised episodes were run with. Seed is the
// seed of the command that played them (nil: unknown).
type Labels struct {
	Run, Env, Split, Policy, Scaffold string
	Seed                              *int64
}

// Keys that episodes can be grouped by (SummarizeGroups, cards --group-by):
// each names a trajectory column.
const (
	ByEnv    = "env"
	ByPolicy = "policy"
	ByRun    = "run"
)

// GroupKeys are the keys ParseGroupBy accepts, in the order groups sort by.
var GroupKeys = []string{ByEnv, ByPolicy, ByRun}

// ParseGroupBy reads a comma-separated list of group keys ("" for none);
// its error speaks of the list, the caller names where it came from.
func ParseGroupBy(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	seen := map[string]bool{}
	for _, k := range strings.Split(s, ",") {
		k = strings.TrimSpace(k)
		if !slices.Contains(GroupKeys, k) {
			return nil, fmt.Errorf("%q: %q is not one of %s", s, k, strings.Join(GroupKeys, ", "))
		}
		seen[k] = true
	}
	var out []string
	for _, k := range GroupKeys {
		if seen[k] {
			out = append(out, k)
		}
	}
	return out, nil
}

// GroupValue is the value of group key k of an episode.
func GroupValue(t *table.Trajectory, k string) string {
	switch k {
	case ByEnv:
		return t.Env
	case ByPolicy:
		return t.Policy
	case ByRun:
		return t.Run
	}
	return ""
}

// Group is the episodes sharing the values of the group keys.
type Group struct {
	Values []string // one per key, in the keys' order
	Trajs  []table.Trajectory
}

// Split groups the episodes by the keys (in GroupKeys order), groups
// sorted by their values; without keys, one group holds every episode.
func Split(trajs []table.Trajectory, by []string) []Group {
	index := map[string]int{}
	var groups []Group
	for i := range trajs {
		vals := make([]string, len(by))
		for j, k := range by {
			vals[j] = GroupValue(&trajs[i], k)
		}
		key := strings.Join(vals, "\x00")
		g, ok := index[key]
		if !ok {
			g = len(groups)
			index[key] = g
			groups = append(groups, Group{Values: vals})
		}
		groups[g].Trajs = append(groups[g].Trajs, trajs[i])
	}
	sort.SliceStable(groups, func(a, b int) bool { return slices.Compare(groups[a].Values, groups[b].Values) < 0 })
	return groups
}

// SummarizeGroups summarises each group of the episodes (see Split) as
// Summarize does, the groups in order; each group's rows carry its own
// env, policy and run.
func SummarizeGroups(trajs []table.Trajectory, l Labels, by []string) []table.EvalMetrics {
	var rows []table.EvalMetrics
	for _, g := range Split(trajs, by) {
		gl := l
		for _, k := range by {
			switch k {
			case ByEnv:
				gl.Env = ""
			case ByPolicy:
				gl.Policy = ""
			case ByRun:
				gl.Run = ""
			}
		}
		rows = append(rows, Summarize(g.Trajs, gl)...)
	}
	return rows
}

// Summarize returns one metrics row for all episodes (scope "all", no task
// type) then one per task type (scope "type") in name order. Episodes with
// another env or split than the first are summarised together; the labels
// come from l where set, else from the first episode. Each row's
// iteration and temperature are those its episodes share (nil when they
// differ; the temperature only for checkpoint policies).
func Summarize(trajs []table.Trajectory, l Labels) []table.EvalMetrics {
	if len(trajs) > 0 {
		t := trajs[0]
		if l.Run == "" {
			l.Run = t.Run
		}
		if l.Env == "" {
			l.Env = t.Env
		}
		if l.Split == "" {
			l.Split = t.Split
		}
		if l.Policy == "" {
			l.Policy = t.Policy
		}
	}
	byType := map[string][]table.Trajectory{}
	for _, t := range trajs {
		byType[t.TaskType] = append(byType[t.TaskType], t)
	}
	types := make([]string, 0, len(byType))
	for k := range byType {
		types = append(types, k)
	}
	sort.Strings(types)
	rows := []table.EvalMetrics{summarize(trajs, l, table.ScopeAll, "")}
	for _, k := range types {
		rows = append(rows, summarize(byType[k], l, table.ScopeType, k))
	}
	return rows
}

// shared returns the iteration and the sampling temperature all the
// episodes share (nil where they differ, or for the temperature where an
// episode's policy is not a checkpoint).
func shared(trajs []table.Trajectory) (*int32, *float64) {
	if len(trajs) == 0 {
		return nil, nil
	}
	it, temp := trajs[0].Iteration, trajs[0].Temperature
	sameIt, sameTemp := true, trajs[0].PolicyHash != "" && temp != nil
	for _, t := range trajs[1:] {
		sameIt = sameIt && t.Iteration == it
		sameTemp = sameTemp && t.PolicyHash != "" && t.Temperature != nil && *t.Temperature == *temp
	}
	var pi *int32
	var pt *float64
	if sameIt {
		pi = &it
	}
	if sameTemp {
		x := *temp
		pt = &x
	}
	return pi, pt
}

func summarize(trajs []table.Trajectory, l Labels, scope, taskType string) table.EvalMetrics {
	m := table.EvalMetrics{Run: l.Run, Env: l.Env, Split: l.Split, Policy: l.Policy, Scaffold: l.Scaffold,
		Scope: scope, TaskType: taskType, Episodes: int32(len(trajs)), Seed: l.Seed}
	m.Iteration, m.Temperature = shared(trajs)
	if len(trajs) == 0 {
		return m
	}
	var reads, right, misleading, exposed int
	for _, t := range trajs {
		if t.Success {
			m.Success++
		}
		m.Score += t.Score
		m.Steps += float64(t.Steps)
		m.Tokens += float64(t.NTokens)
		m.PolicyTokens += float64(t.NPolicyTokens)
		reads += len(t.Reads)
		read := false
		for i := range t.Reads {
			if i < len(t.ReadsRight) && t.ReadsRight[i] {
				right++
			}
			if i < len(t.ReadsMisleading) && t.ReadsMisleading[i] {
				misleading++
				read = true
			}
		}
		if read {
			exposed++
		}
	}
	n := float64(len(trajs))
	m.Success /= n
	m.Score /= n
	m.Steps /= n
	m.Tokens /= n
	m.PolicyTokens /= n
	m.ReadsPerEp = float64(reads) / n
	// A share of episodes, so 0 (not NULL) where none read a misleading
	// skill, with reads or without; NULL only without episodes (above).
	e := float64(exposed) / n
	m.MisleadingExposure = &e
	if reads > 0 { // else NULL: shares of no reads
		r, mr := float64(right)/float64(reads), float64(misleading)/float64(reads)
		m.RightReadRate, m.MisleadingRate = &r, &mr
	}
	return m
}

// rate formats a nullable share: three decimals, or "-" (NULL: no reads,
// or for the misleading exposure no episodes or an evaluation file older
// than the column).
func rate(x *float64) string {
	if x == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", *x)
}

// WriteMarkdown prints rows as Markdown: a heading line and a table for
// each group of rows sharing env, split, policy, run and scaffold.
func WriteMarkdown(w io.Writer, rows []table.EvalMetrics) error {
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "no episodes")
		return err
	}
	multiRun := false
	for _, r := range rows {
		multiRun = multiRun || r.Run != rows[0].Run
	}
	var prev *table.EvalMetrics
	for i := range rows {
		r := &rows[i]
		if prev == nil || r.Env != prev.Env || r.Split != prev.Split || r.Policy != prev.Policy || r.Run != prev.Run || r.Scaffold != prev.Scaffold {
			if prev != nil {
				fmt.Fprintln(w)
			}
			// Names come from files and folders: printed escaped (no
			// terminal escape sequence, no line break).
			p := table.Printable
			fmt.Fprintf(w, "%s %s, policy %s", p(r.Env), p(r.Split), p(r.Policy))
			if multiRun {
				fmt.Fprintf(w, ", run %s", p(r.Run))
			}
			if r.Scaffold != "" {
				fmt.Fprintf(w, ", scaffold %s", p(r.Scaffold))
			}
			fmt.Fprint(w, "\n\n")
			fmt.Fprintln(w, "| task type | episodes | success | score | steps | tokens/episode | reads/episode | right reads | misleading reads | misleading exposure |")
			fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
		}
		prev = r
		name := table.MarkdownCell(r.TaskType)
		if r.Scope == table.ScopeAll {
			name = "**all**"
		}
		if _, err := fmt.Fprintf(w, "| %s | %d | %.3f | %.3f | %.1f | %.1f | %.2f | %s | %s | %s |\n",
			name, r.Episodes, r.Success, r.Score, r.Steps, r.Tokens, r.ReadsPerEp, rate(r.RightReadRate), rate(r.MisleadingRate), rate(r.MisleadingExposure)); err != nil {
			return err
		}
	}
	return nil
}

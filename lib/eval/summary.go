package eval

import (
	"fmt"
	"io"
	"sort"

	"github.com/pats-rl/pats/lib/table"
)

// Labels says what the summarised episodes were run with.
type Labels struct {
	Run, Env, Split, Policy, Scaffold string
}

// Summarize returns one metrics row for all episodes (task type "all") then
// one per task type in name order. Episodes with another env or split than
// the first are summarised together; the labels come from l where set, else
// from the first episode.
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
	rows := []table.EvalMetrics{summarize(trajs, l, "all")}
	for _, k := range types {
		rows = append(rows, summarize(byType[k], l, k))
	}
	return rows
}

func summarize(trajs []table.Trajectory, l Labels, taskType string) table.EvalMetrics {
	m := table.EvalMetrics{Run: l.Run, Env: l.Env, Split: l.Split, Policy: l.Policy, Scaffold: l.Scaffold,
		TaskType: taskType, Episodes: int32(len(trajs))}
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
	m.MisleadingExposure = float64(exposed) / n
	if reads > 0 {
		m.RightReadRate = float64(right) / float64(reads)
		m.MisleadingRate = float64(misleading) / float64(reads)
	}
	return m
}

// WriteMarkdown prints rows as a Markdown table.
func WriteMarkdown(w io.Writer, rows []table.EvalMetrics) error {
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "no episodes")
		return err
	}
	r0 := rows[0]
	fmt.Fprintf(w, "%s %s, policy %s", r0.Env, r0.Split, r0.Policy)
	if r0.Scaffold != "" {
		fmt.Fprintf(w, ", scaffold %s", r0.Scaffold)
	}
	fmt.Fprint(w, "\n\n")
	fmt.Fprintln(w, "| task type | episodes | success | score | steps | tokens/episode | reads/episode | right reads | misleading reads | misleading exposure |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, r := range rows {
		name := r.TaskType
		if name == "all" {
			name = "**all**"
		}
		if _, err := fmt.Fprintf(w, "| %s | %d | %.3f | %.3f | %.1f | %.1f | %.2f | %.3f | %.3f | %.3f |\n",
			name, r.Episodes, r.Success, r.Score, r.Steps, r.Tokens, r.ReadsPerEp, r.RightReadRate, r.MisleadingRate, r.MisleadingExposure); err != nil {
			return err
		}
	}
	return nil
}

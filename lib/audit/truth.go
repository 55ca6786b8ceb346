package audit

import (
	"fmt"
	"math"
	"sort"

	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/table"
)

// Truth judges every item of snapshot k against the environment's own
// rules (env.Judge): one ItemTruth row per item in canonical order, and
// one RuleRecall row per rule of the environment, stated when a true item
// of the rule's type or of the general layer states it. An environment
// that is not a Judge judges nothing: every item is not judgeable and it
// has no rules.
func Truth(e env.Env, k int32, items []table.ScaffoldItem) ([]table.ItemTruth, []table.RuleRecall, error) {
	items = append([]table.ScaffoldItem(nil), items...)
	scaffold.Sort(items)
	j, isJudge := e.(env.Judge)
	var rules []env.Rule
	if isJudge {
		var err error
		if rules, err = j.Rules(); err != nil {
			return nil, nil, fmt.Errorf("%s: its rules: %w", e.Name(), err)
		}
	}
	stated := map[env.Rule][]string{}
	out := make([]table.ItemTruth, 0, len(items))
	for _, it := range items {
		row := table.ItemTruth{Iteration: k, ItemID: it.ID, Layer: it.Layer, TaskType: scaffold.Scope(it), Text: it.Text,
			Verdict: table.VerdictNotJudgeable, Claims: []string{}, States: []string{}}
		if isJudge {
			jd, err := j.JudgeItem(row.TaskType, it.Text)
			if err != nil {
				return nil, nil, fmt.Errorf("item %s: %w", it.ID, err)
			}
			row.Verdict = jd.Verdict
			row.Claims = append(row.Claims, jd.Claims...)
			for _, r := range jd.States {
				row.States = append(row.States, r.TaskType+": "+r.Text)
				stated[r] = append(stated[r], it.ID)
			}
		}
		out = append(out, row)
	}
	recall := make([]table.RuleRecall, 0, len(rules))
	for _, r := range rules {
		ids := append([]string{}, stated[r]...)
		sort.Strings(ids)
		recall = append(recall, table.RuleRecall{Iteration: k, TaskType: r.TaskType, Kind: r.Kind, Text: r.Text,
			Stated: len(ids) > 0, Items: ids})
	}
	return out, recall, nil
}

// TruthSummary is a snapshot's precision (true items over judgeable ones;
// NaN with none judgeable) and recall (rules stated over rules; NaN
// without rules), with the counts behind them.
type TruthSummary struct {
	Items, Judgeable, True, Rules, Stated int
	Precision, Recall                     float64
}

// Summarise counts a snapshot's verdicts and stated rules.
func Summarise(items []table.ItemTruth, rules []table.RuleRecall) TruthSummary {
	var s TruthSummary
	for _, it := range items {
		s.Items++
		if it.Verdict != table.VerdictNotJudgeable {
			s.Judgeable++
		}
		if it.Verdict == table.VerdictTrue {
			s.True++
		}
	}
	for _, r := range rules {
		s.Rules++
		if r.Stated {
			s.Stated++
		}
	}
	s.Precision, s.Recall = math.NaN(), math.NaN()
	if s.Judgeable > 0 {
		s.Precision = float64(s.True) / float64(s.Judgeable)
	}
	if s.Rules > 0 {
		s.Recall = float64(s.Stated) / float64(s.Rules)
	}
	return s
}

package audit

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/pats-rl/pats/lib/table"
)

func num(x float64, digits int) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%.*f", digits, x)
}

// CreditMarkdown renders the credit audit as a Markdown table, then one
// line per horizon measure with the Spearman correlations.
func CreditMarkdown(w io.Writer, rows []table.CreditAudit) error {
	var b strings.Builder
	b.WriteString("| horizon | bin | range | episodes | right reads | wrong reads | skill-name share | right reads credited < 0 | mean sign right | mean sign wrong | anchor coverage | mean step-group size |\n")
	b.WriteString("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %d | %s-%s | %d | %d | %d | %s | %s | %s | %s | %s | %s |\n", r.Horizon, r.Bin,
			num(r.Lo, 0), num(r.Hi, 0), r.Episodes, r.RightReads, r.WrongReads,
			num(table.OrNaN(r.SkillNameShare), 4), num(table.OrNaN(r.RightNegFrac), 3), num(table.OrNaN(r.RightSign), 3), num(table.OrNaN(r.WrongSign), 3),
			num(table.OrNaN(r.AnchorCoverage), 3), num(table.OrNaN(r.StepGroupSize), 2))
	}
	b.WriteString("\n")
	seen := map[string]bool{}
	for _, r := range rows {
		if seen[r.Horizon] {
			continue
		}
		seen[r.Horizon] = true
		fmt.Fprintf(&b, "Spearman with horizon (%s): skill-name share %s, right credited < 0 %s, sign right %s, sign wrong %s\n",
			r.Horizon, num(table.OrNaN(r.RhoSkillNameShare), 3), num(table.OrNaN(r.RhoRightNeg), 3), num(table.OrNaN(r.RhoRightSign), 3), num(table.OrNaN(r.RhoWrongSign), 3))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ScaffoldMarkdown renders the scaffold audit as a Markdown table.
func ScaffoldMarkdown(w io.Writer, rows []table.ScaffoldAudit) error {
	var b strings.Builder
	b.WriteString("| checkpoint | episodes | tokens | NLL with scaffold | NLL without | gap | gap change |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, r := range rows {
		change := "-"
		if r.Index > 0 && r.GapRelative != nil {
			change = fmt.Sprintf("%+.1f%%", 100**r.GapRelative)
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %s | %s | %s |\n", r.Checkpoint, r.Episodes, r.Tokens,
			num(table.OrNaN(r.NLLWith), 4), num(table.OrNaN(r.NLLWithout), 4), num(table.OrNaN(r.Gap), 4), change)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// LiftMarkdown renders audit lift as a Markdown table: one row per scope,
// the overall one first.
func LiftMarkdown(w io.Writer, rows []table.ScaffoldLift) error {
	var b strings.Builder
	b.WriteString("| iteration | task type | tasks | episodes | scaffold tokens | success with | success without | lift | 95% interval | all-fail with | all-fail without |\n")
	b.WriteString("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |\n")
	for _, r := range rows {
		t := r.TaskType
		if r.Scope == table.ScopeAll {
			t = "all"
		}
		fmt.Fprintf(&b, "| %d | %s | %d | %d | %.1f | %.3f | %.3f | %+.3f | [%+.3f, %+.3f] | %.3f | %.3f |\n", r.Iteration, t, r.Tasks, r.Episodes,
			r.ScaffoldTokens, r.SuccessWith, r.SuccessWithout, r.Lift, r.LiftLo, r.LiftHi, r.AllFailWith, r.AllFailWithout)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// TruthLine is one line on a snapshot's items judged by its environment.
func TruthLine(k int, s TruthSummary) string {
	return fmt.Sprintf("snapshot %d: %d items, %d judgeable, %d true: precision %s; rules stated %d of %d: recall %s",
		k, s.Items, s.Judgeable, s.True, num(s.Precision, 3), s.Stated, s.Rules, num(s.Recall, 3))
}

package table

import (
	"fmt"
	"math"
)

// Row kinds of the mechanism audits of a PATS run (audit lift, audit
// truth): whether the scaffold in the context lifts the policy's success,
// and whether its items are true of the environment. They are measures of
// the loop, never inputs of it: the controller, refiner and validator read
// none of them.

func init() {
	RegisterKind[ScaffoldLift]("scaffold_lift", 1)
	RegisterKind[ItemTruth]("item_truth", 1)
	RegisterKind[RuleRecall]("rule_recall", 1)
}

// ScaffoldLift is one scope of audit lift at one iteration: the success of
// the same checkpoint on the same tasks and episode seeds with the scaffold
// in the context (the iteration's training rollouts) and without it (the
// same groups played again bare). Lift is the mean over tasks of the
// per-task difference in success; its interval is a 95% percentile
// bootstrap over tasks.
type ScaffoldLift struct {
	Iteration      int32   `parquet:"iteration"`          // training iteration k (ckpt/k, snap/k)
	Scope          string  `parquet:"scope"`              // all (every task) or type (one task type)
	TaskType       string  `parquet:"task_type,optional"` // the type of a "type" row; NULL on the "all" row
	Tasks          int32   `parquet:"tasks"`              // tasks paired
	Episodes       int32   `parquet:"episodes"`           // episodes per side
	ScaffoldTokens float64 `parquet:"scaffold_tokens"`    // mean scaffold tokens per episode on the scaffold side
	SuccessWith    float64 `parquet:"success_with"`       // share of successful episodes with the scaffold
	SuccessWithout float64 `parquet:"success_without"`    // the same episodes' share without it
	Lift           float64 `parquet:"lift"`               // success_with - success_without (mean of the per-task differences)
	LiftLo         float64 `parquet:"lift_lo"`            // 2.5th percentile of the bootstrap over tasks
	LiftHi         float64 `parquet:"lift_hi"`            // 97.5th percentile
	AllFailWith    float64 `parquet:"all_fail_with"`      // share of the scope's groups where every episode failed, with the scaffold
	AllFailWithout float64 `parquet:"all_fail_without"`   // the same without it
}

// CheckRow implements RowChecker.
func (l *ScaffoldLift) CheckRow() error {
	if l.Scope != ScopeAll && l.Scope != ScopeType {
		return fmt.Errorf("scope: %q is not all or type", l.Scope)
	}
	if (l.Scope == ScopeType) != (l.TaskType != "") {
		return fmt.Errorf("task_type: %q on a %q row", l.TaskType, l.Scope)
	}
	if l.Tasks < 0 || l.Episodes < 0 {
		return fmt.Errorf("tasks, episodes: negative")
	}
	for name, v := range map[string]float64{"success_with": l.SuccessWith, "success_without": l.SuccessWithout,
		"all_fail_with": l.AllFailWith, "all_fail_without": l.AllFailWithout} {
		if math.IsNaN(v) || v < 0 || v > 1 {
			return fmt.Errorf("%s: %v is not a share in [0, 1]", name, v)
		}
	}
	for name, v := range map[string]float64{"lift": l.Lift, "lift_lo": l.LiftLo, "lift_hi": l.LiftHi} {
		if math.IsNaN(v) || v < -1 || v > 1 {
			return fmt.Errorf("%s: %v is not a difference of shares in [-1, 1]", name, v)
		}
	}
	if math.IsNaN(l.ScaffoldTokens) || math.IsInf(l.ScaffoldTokens, 0) || l.ScaffoldTokens < 0 {
		return fmt.Errorf("scaffold_tokens: %v is not a non-negative number", l.ScaffoldTokens)
	}
	return nil
}

// Verdicts of an item (ItemTruth.Verdict): the environment's own word on
// its text (lib/env.Judge).
const (
	VerdictTrue         = "true"
	VerdictFalse        = "false"
	VerdictNotJudgeable = "not_judgeable"
)

// ItemTruth is one item of one scaffold snapshot judged against the rules
// the environment knows about itself (audit truth).
type ItemTruth struct {
	Iteration int32    `parquet:"iteration"`          // the snapshot snap/K
	ItemID    string   `parquet:"item_id"`            // the item's id
	Layer     string   `parquet:"layer"`              // general, task or mistake
	TaskType  string   `parquet:"task_type,optional"` // its type; NULL for the general layer
	Text      string   `parquet:"text"`               // its text
	Verdict   string   `parquet:"verdict"`            // true, false or not_judgeable
	Claims    []string `parquet:"claims,list"`        // the claims the judge read in the text ("look:drawer", "not heat:microwave")
	States    []string `parquet:"states,list"`        // the environment's rules it states, as "TYPE: TEXT"
}

// CheckRow implements RowChecker.
func (t *ItemTruth) CheckRow() error {
	switch t.Verdict {
	case VerdictTrue, VerdictFalse, VerdictNotJudgeable:
	default:
		return fmt.Errorf("verdict: %q is not true, false or not_judgeable", t.Verdict)
	}
	if t.ItemID == "" {
		return fmt.Errorf("item_id: empty")
	}
	if t.Verdict != VerdictTrue && len(t.States) > 0 {
		return fmt.Errorf("states: a %s item states no rule", t.Verdict)
	}
	return nil
}

// RuleRecall is one of the environment's own type-level rules at one
// snapshot: whether a true item of the snapshot states it (audit truth
// --rules). Recall over a snapshot is the share of its rules stated.
type RuleRecall struct {
	Iteration int32    `parquet:"iteration"`  // the snapshot snap/K
	TaskType  string   `parquet:"task_type"`  // the type the rule is about
	Kind      string   `parquet:"kind"`       // place (where the goal objects are kept) or tool (which appliance)
	Text      string   `parquet:"text"`       // the rule in the environment's words
	Stated    bool     `parquet:"stated"`     // a true item of the type's scope or of the general layer states it
	Items     []string `parquet:"items,list"` // the ids of the items that state it
}

// CheckRow implements RowChecker.
func (r *RuleRecall) CheckRow() error {
	if r.TaskType == "" || r.Text == "" {
		return fmt.Errorf("task_type, text: empty")
	}
	if r.Stated != (len(r.Items) > 0) {
		return fmt.Errorf("stated: %v with %d items", r.Stated, len(r.Items))
	}
	return nil
}

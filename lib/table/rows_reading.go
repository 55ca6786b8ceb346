package table

import "math"

// The reading test's row kind (audit reading; lib/audit holds the logic).

func init() {
	RegisterKind[ReadingAudit]("reading_audit", 3)
}

// ReadingAudit is one condition of audit reading: the same tasks and
// episode seeds played by one policy with some text added to its context
// (none, a right or a misleading rule, a right or a wrong skill body).
type ReadingAudit struct {
	Condition  string   `parquet:"condition"`                      // none, right-hint, misleading-hint, right-skill or wrong-skill
	Context    string   `parquet:"context"`                        // what the condition adds to the context, in words
	Env        string   `parquet:"env"`                            // environment
	Split      string   `parquet:"split"`                          // task split
	Policy     string   `parquet:"policy"`                         // the policy's name (a checkpoint folder, oracle, random)
	Tasks      int32    `parquet:"tasks"`                          // tasks played
	Episodes   int32    `parquet:"episodes"`                       // episodes played (tasks x group)
	Successes  int32    `parquet:"successes"`                      // successful episodes
	Success    float64  `parquet:"success"`                        // successes / episodes
	Lo         float64  `parquet:"lo"`                             // lower end of the 95% Wilson score interval of the success rate
	Hi         float64  `parquet:"hi"`                             // upper end of that interval
	Delta      float64  `parquet:"delta"`                          // success minus the success of the condition none
	Steps      float64  `parquet:"steps"`                          // mean environment steps per episode
	Tokens     float64  `parquet:"tokens"`                         // mean context tokens per episode
	Reads      float64  `parquet:"reads" since:"2"`                // version 2: mean skill reads per episode, a skill condition's given read included (0 without a slate)
	RightReads *float64 `parquet:"right_reads,optional" since:"2"` // version 2: share of those reads that were a right skill for the task type; NULL without reads (version 3; older files: NaN, read as NULL)
}

// UpgradeFrom reads a row of version 2: right_reads NaN (no reads)
// becomes NULL.
func (r *ReadingAudit) UpgradeFrom(version int) {
	if version < 3 && r.RightReads != nil && math.IsNaN(*r.RightReads) {
		r.RightReads = nil
	}
}

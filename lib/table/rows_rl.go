package table

import "math"

// Row kinds of training and of the audit: per-step training metrics written
// by learn, per-token advantages written by learn grpo, and the two audit
// tables written by audit (lib/rl and lib/audit hold the logic).

func init() {
	RegisterKind[TrainMetrics]("train_metrics", 2)
	RegisterKind[TokenAdvantages]("token_advantages", 3)
	RegisterKind[CreditAudit]("credit_audit", 4)
	RegisterKind[ScaffoldAudit]("scaffold_audit", 2)
}

// TrainMetrics is one optimizer step of learn sft or learn grpo. Losses are
// in nats per token under the step's aggregation. The GRPO columns are
// NULL on SFT rows, and a mean is NULL where nothing was averaged (version
// 2; version 1 wrote 0 for both: an SFT row's GRPO columns, and a GRPO
// row's token means without scored tokens, read as NULL).
type TrainMetrics struct {
	Phase          string   `parquet:"phase"`                     // sft or grpo
	Step           int32    `parquet:"step"`                      // optimizer step of this run, from 1
	GlobalStep     int32    `parquet:"global_step"`               // optimizer steps of the checkpoint's whole history, this one included
	Epoch          int32    `parquet:"epoch"`                     // pass over the input, from 0
	Loss           float64  `parquet:"loss"`                      // total loss of the step (SFT: mean negative log-likelihood)
	PolicyLoss     *float64 `parquet:"policy_loss,optional"`      // GRPO clipped-surrogate part of the loss; NULL on SFT rows (version 2; older files: 0)
	KL             *float64 `parquet:"kl,optional"`               // GRPO k3 estimate of KL(policy || reference), linear beyond d = ln 11 (docs/reference.md), aggregated like the loss; NULL on SFT rows (version 2; older files: 0)
	ClipFrac       *float64 `parquet:"clip_frac,optional"`        // GRPO share of policy-written tokens whose ratio was clipped; NULL on SFT rows and without scored tokens (version 2; older files: 0)
	RatioMean      *float64 `parquet:"ratio_mean,optional"`       // GRPO mean importance ratio exp(logp - behaviour logp) over policy-written tokens; NULL on SFT rows and without scored tokens (version 2; older files: 0)
	Entropy        *float64 `parquet:"entropy,optional"`          // mean entropy of the next-token distribution at policy-written tokens; NULL without scored tokens (version 2; older files: 0)
	GradNorm       float64  `parquet:"grad_norm"`                 // global gradient L2 norm before clipping
	LR             float64  `parquet:"lr"`                        // learning rate of the step
	AdvMean        *float64 `parquet:"adv_mean,optional"`         // GRPO mean advantage over the step's credited tokens (channel 1 or 2); NULL on SFT rows and without credited tokens (version 2; older files: 0)
	AdvStd         *float64 `parquet:"adv_std,optional"`          // its standard deviation; NULL where adv_mean is
	SkillNameShare *float64 `parquet:"skill_name_share,optional"` // GRPO share of the absolute loss weight (aggregation weight times advantage) on skill-name tokens; NULL on SFT rows and without loss weight (version 2; older files: 0)
	ZeroVarGroups  *int32   `parquet:"zero_var_groups,optional"`  // GRPO groups in the step whose rewards are all equal; NULL on SFT rows (version 2; older files: 0)
	Groups         *int32   `parquet:"groups,optional"`           // GRPO groups with an episode in the step; NULL on SFT rows (version 2; older files: 0)
	Sequences      int32    `parquet:"sequences"`                 // episodes (sequences) in the step
	Tokens         int32    `parquet:"tokens"`                    // policy-written tokens scored in the step
	Seconds        float64  `parquet:"seconds"`                   // wall time of the step
}

// UpgradeFrom reads a version 1 row: the GRPO columns of an SFT row, and
// the token means of a step without scored tokens, become NULL.
func (m *TrainMetrics) UpgradeFrom(version int) {
	if version >= 2 {
		return
	}
	if m.Phase != "grpo" {
		m.PolicyLoss, m.KL, m.ClipFrac, m.RatioMean = nil, nil, nil, nil
		m.AdvMean, m.AdvStd, m.SkillNameShare, m.ZeroVarGroups, m.Groups = nil, nil, nil, nil, nil
	}
	if m.Tokens == 0 {
		m.ClipFrac, m.RatioMean, m.Entropy = nil, nil, nil
	}
}

// TokenAdvantages is the credit learn grpo gave one episode, exactly as
// used in the loss: one advantage and one channel per token of the
// trajectory's tokens.
type TokenAdvantages struct {
	TaskID     string    `parquet:"task_id"`         // the episode's task
	GroupID    string    `parquet:"group_id"`        // its group
	Sample     int32     `parquet:"sample"`          // its index within the group
	Credit     string    `parquet:"credit"`          // credit assignment: broadcast, skillgate, gigpo (broadcast with step credit) or skillgate+gigpo
	Reward     float64   `parquet:"reward"`          // the episode's reward
	Outcome    float64   `parquet:"outcome"`         // group-relative outcome advantage of the episode
	Selection  float64   `parquet:"selection"`       // skillgate selection advantage of each of the episode's read actions (0 under broadcast or without reads); under --select-baseline group the loss scales its term by select_coef
	Advantages []float32 `parquet:"advantages,list"` // per token: the advantage the loss used, 0 where no loss reaches (all 0 for an episode of a group left out by --drop-flat-groups)
	Channels   []int8    `parquet:"channels,list"`   // per token: 0 none, 1 outcome, 2 selection

	// Added in version 2 (read as empty from older files).
	StepAdvantages []float64 `parquet:"step_advantages,list" since:"2"` // version 2: per turn (one per step key): the GiGPO step advantage before --step-weight; empty without step credit

	// Added in version 3 (read as empty from older files).
	ReadAdvantages []float64 `parquet:"read_advantages,list" since:"3"` // version 3: per read action of the trajectory (one per entry of reads, in order): the advantage its skill-name tokens carry before any scale (the selection advantage under skillgate, the outcome advantage plus its turn's weighted step advantage under broadcast)
}

// CreditAudit is one horizon bin of audit credit: how much loss weight the
// skill-name tokens get and how the credit of right and wrong reads is
// signed. The rho columns are Spearman rank correlations with the horizon
// over all episodes (or reads) of the file; they repeat on every bin row
// of the same horizon measure.
type CreditAudit struct {
	Horizon           string   `parquet:"horizon"`                       // what the horizon counts: steps or tokens
	Bin               int32    `parquet:"bin"`                           // bin index, shortest horizons first
	Lo                float64  `parquet:"lo"`                            // smallest horizon in the bin
	Hi                float64  `parquet:"hi"`                            // largest horizon in the bin
	Episodes          int32    `parquet:"episodes"`                      // episodes in the bin
	RightReads        int32    `parquet:"right_reads"`                   // right reads in the bin
	WrongReads        int32    `parquet:"wrong_reads"`                   // reads that were not right
	SkillNameShare    *float64 `parquet:"skill_name_share,optional"`     // mean over credited episodes of |credit| on skill-name tokens / |credit| on all tokens; NULL without a credited episode (version 4; older files: NaN, read as NULL)
	RightNegFrac      *float64 `parquet:"right_neg_frac,optional"`       // share of right reads whose credit is negative; NULL without right reads (version 4; older files: NaN, read as NULL)
	RightSign         *float64 `parquet:"right_sign,optional"`           // mean sign (-1, 0, 1) of the credit of right reads; NULL without right reads (version 4; older files: NaN, read as NULL)
	WrongSign         *float64 `parquet:"wrong_sign,optional"`           // mean sign of the credit of wrong reads; NULL without wrong reads (version 4; older files: NaN, read as NULL)
	RhoSkillNameShare *float64 `parquet:"rho_skill_name_share,optional"` // Spearman correlation of the per-episode share with the horizon; NULL with fewer than two points or a constant side (version 4; older files: NaN, read as NULL)
	RhoRightNeg       *float64 `parquet:"rho_right_neg,optional"`        // ... of "credit negative" per right read; NULL with fewer than two points or a constant side (version 4; older files: NaN, read as NULL)
	RhoRightSign      *float64 `parquet:"rho_right_sign,optional"`       // ... of the credit sign per right read; NULL with fewer than two points or a constant side (version 4; older files: NaN, read as NULL)
	RhoWrongSign      *float64 `parquet:"rho_wrong_sign,optional"`       // ... of the credit sign per wrong read; NULL with fewer than two points or a constant side (version 4; older files: NaN, read as NULL)

	// Added in version 2 (read as 0 or NULL from older files).
	Turns          int32    `parquet:"turns" since:"2"`                    // version 2: turns (step keys) of the bin's episodes
	AnchorCoverage *float64 `parquet:"anchor_coverage,optional" since:"2"` // version 2: share of those turns in a GiGPO step group of two or more (same group, same step key); NULL without step keys (version 4; older files: NaN, read as NULL)

	// Added in version 3 (read as NULL from older files).
	StepGroupSize *float64 `parquet:"step_group_size,optional" since:"3"` // version 3: mean over those turns of the size of the GiGPO step group the turn is in (itself included, so at least 1); NULL without step keys (version 4; older files: NaN, read as NULL)
}

// UpgradeFrom reads a row of version 3 or older: NaN (nothing to take a
// mean or a correlation over) becomes NULL.
func (a *CreditAudit) UpgradeFrom(version int) {
	if version < 4 {
		nanToNull(&a.SkillNameShare, &a.RightNegFrac, &a.RightSign, &a.WrongSign, &a.RhoSkillNameShare, &a.RhoRightNeg,
			&a.RhoRightSign, &a.RhoWrongSign, &a.AnchorCoverage, &a.StepGroupSize)
	}
}

// ScaffoldAudit is one checkpoint of audit scaffold: the mean negative
// log-likelihood of the policy-written tokens with the scaffold in the
// context and with it removed. Without scored tokens the NLLs and the gap
// are NULL (version 2; version 1 wrote NaN, read as NULL).
type ScaffoldAudit struct {
	Checkpoint  string   `parquet:"checkpoint"`            // checkpoint folder as given
	Index       int32    `parquet:"index"`                 // its position in audit scaffold's --policy list, from 0
	Episodes    int32    `parquet:"episodes"`              // episodes scored (those with scaffold tokens)
	Tokens      int64    `parquet:"tokens"`                // policy-written tokens scored
	NLLWith     *float64 `parquet:"nll_with,optional"`     // mean NLL in nats per token, scaffold in the context; NULL without scored tokens (version 2; older files: NaN, read as NULL)
	NLLWithout  *float64 `parquet:"nll_without,optional"`  // mean NLL with the scaffold tokens removed; NULL without scored tokens (version 2; older files: NaN, read as NULL)
	Gap         *float64 `parquet:"gap,optional"`          // nll_without - nll_with; NULL without scored tokens (version 2; older files: NaN, read as NULL)
	GapRelative *float64 `parquet:"gap_relative,optional"` // (gap - first gap) / |first gap|: the gap's change since the first checkpoint (0 on the first); NULL where this or the first gap is NULL, or the first gap is 0 (version 2; older files: NaN or ±Inf, read as NULL)
}

// UpgradeFrom reads a row of version 1: NaN (no scored tokens) becomes
// NULL, and so does a relative change without a gap, or that is not
// finite (a first gap of 0 or NaN), or the first checkpoint's 0 over a
// gap of 0.
func (a *ScaffoldAudit) UpgradeFrom(version int) {
	if version >= 2 {
		return
	}
	nanToNull(&a.NLLWith, &a.NLLWithout, &a.Gap)
	if a.GapRelative == nil {
		return
	}
	if r := *a.GapRelative; a.Gap == nil || math.IsNaN(r) || math.IsInf(r, 0) || (a.Index == 0 && *a.Gap == 0) {
		a.GapRelative = nil
	}
}

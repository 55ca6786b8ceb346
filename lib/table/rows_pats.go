package table

// Row kinds of the PATS scaffold loop: evidence cards (per group and per
// task type), scaffold snapshot items, controller state, refiner proposals
// and validator decisions. The logic lives in lib/card, lib/scaffold,
// lib/control, lib/refiner and lib/validate; these structs are the file
// schemas those stages exchange.

func init() {
	RegisterKind[Card]("card", 2)
	RegisterKind[TypeEvidence]("type_evidence", 2)
	RegisterKind[ScaffoldItem]("scaffold_item", 2)
	RegisterKind[ControllerState]("controller_state", 4)
	RegisterKind[ItemAbsorption]("item_absorption", 1)
	RegisterKind[Proposal]("proposal", 2)
	RegisterKind[Decision]("decision", 2)
}

// ScaffoldItem is one item of a scaffold snapshot B_k. A snapshot file holds
// all items of one version; the version k and the content hash of the parent
// snapshot are file metadata (lib/scaffold computes the hash).
type ScaffoldItem struct {
	ID       string   `parquet:"id"`                 // stable across iterations: "g-0001", "t-<type>-<hash>", "m-<type>-<hash>"
	Layer    string   `parquet:"layer"`              // general, task or mistake
	TaskType string   `parquet:"task_type,optional"` // NULL for the general layer (version 2; older files: "")
	Text     string   `parquet:"text"`               // the rule as shown to the policy (one line)
	Created  int32    `parquet:"created"`            // iteration that created the item (0 for seeded items)
	Updated  int32    `parquet:"updated"`            // iteration of the last accepted edit or merge
	Support  []string `parquet:"support,list"`       // card ids that support the item
	Tokens   int32    `parquet:"tokens"`             // token count of Text under the run's tokenizer
}

// Card is the evidence of one group (task q at iteration k), or of one
// episode when cards are built per trajectory (an ablation). Feature lists
// are parallel name/frequency lists sorted by frequency (descending), then
// name; a frequency is the share of that side's episodes showing the feature.
type Card struct {
	CardID            string    `parquet:"card_id"`                     // "c-<iteration>-<group_id>" (per trajectory: "...-s<sample>")
	TaskID            string    `parquet:"task_id"`                     // task of the group
	TaskType          string    `parquet:"task_type"`                   // its task type
	GroupID           string    `parquet:"group_id"`                    // the group's id in the trajectories
	Iteration         int32     `parquet:"iteration"`                   // iteration k
	SuccessRate       float64   `parquet:"success_rate"`                // successful episodes / episodes
	NEpisodes         int32     `parquet:"n_episodes"`                  // episodes in the card
	NSuccess          int32     `parquet:"n_success"`                   // successful episodes
	SuccessFeatures   []string  `parquet:"success_features,list"`       // features seen in successful episodes
	SuccessFreqs      []float64 `parquet:"success_freqs,list"`          // share of successful episodes with each
	FailureFeatures   []string  `parquet:"failure_features,list"`       // features seen in failed episodes
	FailureFreqs      []float64 `parquet:"failure_freqs,list"`          // share of failed episodes with each
	Contrast          []string  `parquet:"contrast,list"`               // features separating the sides most (both sides present only)
	ContrastDiff      []float64 `parquet:"contrast_diff,list"`          // signed p_success - p_failure of each
	FailureModes      []string  `parquet:"failure_modes,list"`          // failure modes of the failed episodes
	FailureModeCounts []int32   `parquet:"failure_mode_counts,list"`    // episodes with each mode
	RepSuccessSample  *int32    `parquet:"rep_success_sample,optional"` // representative success: fewest steps, then lowest sample; NULL if none (version 2; older files: -1, read as NULL)
	RepSuccessActions []string  `parquet:"rep_success_actions,list"`    // its actions
	RepFailureSample  *int32    `parquet:"rep_failure_sample,optional"` // representative failure: most common mode, then most steps, then lowest sample; NULL if none (version 2; older files: -1, read as NULL)
	RepFailureMode    string    `parquet:"rep_failure_mode,optional"`   // its failure mode; NULL without a failure
	RepFailureActions []string  `parquet:"rep_failure_actions,list"`    // its actions

	// Added in version 2: where the episodes came from (cards
	// --group-by env,policy,run builds the cards of each source apart).
	Env    string `parquet:"env,optional" since:"2"`    // version 2: environment of the episodes; NULL in older files
	Policy string `parquet:"policy,optional" since:"2"` // version 2: their policy; NULL in older files
	Run    string `parquet:"run,optional" since:"2"`    // version 2: their run name; NULL without one
}

// UpgradeFrom reads a version 1 card: representative sample -1 (none)
// becomes NULL.
func (c *Card) UpgradeFrom(version int) {
	if version < 2 {
		if c.RepSuccessSample != nil && *c.RepSuccessSample == -1 {
			c.RepSuccessSample = nil
		}
		if c.RepFailureSample != nil && *c.RepFailureSample == -1 {
			c.RepFailureSample = nil
		}
	}
}

// TypeEvidence aggregates the cards of one task type at one iteration. The
// row with an empty TaskType aggregates every card: it is the evidence of
// the general layer.
type TypeEvidence struct {
	TaskType          string    `parquet:"task_type,optional"`       // task type; NULL = all types (general layer; version 2, older files: "")
	Iteration         int32     `parquet:"iteration"`                // iteration k
	NCards            int32     `parquet:"n_cards"`                  // cards aggregated
	NEpisodes         int32     `parquet:"n_episodes"`               // episodes behind them
	NTypes            int32     `parquet:"n_types"`                  // distinct task types among the cards
	SuccessRate       float64   `parquet:"success_rate"`             // mean of the cards' success rates
	Contrast          []string  `parquet:"contrast,list"`            // pooled over the type's episodes: top features by |p_success - p_failure|
	ContrastDiff      []float64 `parquet:"contrast_diff,list"`       // signed p_success - p_failure of each
	FailureModes      []string  `parquet:"failure_modes,list"`       // failure modes, most frequent first
	FailureModeCounts []int32   `parquet:"failure_mode_counts,list"` // failed episodes with each
	CardIDs           []string  `parquet:"card_ids,list"`            // the cards aggregated, sorted

	// Added in version 2 (see Card).
	Env    string `parquet:"env,optional" since:"2"`    // version 2: environment of the episodes; NULL in older files
	Policy string `parquet:"policy,optional" since:"2"` // version 2: their policy; NULL in older files
	Run    string `parquet:"run,optional" since:"2"`    // version 2: their run name; NULL without one
}

// ControllerState is the controller's state for one task type after
// iteration k (an empty TaskType is the general layer). Rerunning the
// controller at k+1 from these rows reproduces its decisions.
type ControllerState struct {
	TaskType        string   `parquet:"task_type,optional"`        // task type; NULL = general layer (version 2; older files: "")
	Iteration       int32    `parquet:"iteration"`                 // iteration k
	SmoothedSuccess *float64 `parquet:"smoothed_success,optional"` // EMA of the success rate, s_k; NULL before the type's first evidence (version 3; older files: 0 with n_observed 0)
	LastSuccess     *float64 `parquet:"last_success,optional"`     // the last success rate observed, at k or before (x_k when observed); NULL before the type's first evidence (version 3; older files: 0 with n_observed 0)
	Observed        bool     `parquet:"observed"`                  // the type had evidence at k
	NObserved       int32    `parquet:"n_observed"`                // iterations so far with evidence (0: s not yet initialised)
	Primitive       string   `parquet:"primitive"`                 // EXPAND, REVISE, COMPRESS, FORCED_PRUNE or NONE
	NItems          int32    `parquet:"n_items"`                   // the type's items in the snapshot (task + mistake; general for "")
	NTokens         int32    `parquet:"n_tokens"`                  // their tokens
	NExpand         int32    `parquet:"n_expand"`                  // iterations so far that chose EXPAND
	NRevise         int32    `parquet:"n_revise"`                  // ... REVISE
	NCompress       int32    `parquet:"n_compress"`                // ... COMPRESS
	NForcedPrune    int32    `parquet:"n_forced_prune"`            // ... FORCED_PRUNE
	NNone           int32    `parquet:"n_none"`                    // ... NONE (frozen, disabled primitive, or no evidence)

	// Added in version 4: the absorption signal (the bare replay of the
	// iteration's groups, control --bare) and the caps under the fade.
	BareSmoothed *float64 `parquet:"bare_smoothed,optional" since:"4"` // version 4: EMA of the scope's success in the bare replay (same factor as s_k); NULL without a bare replay so far
	BareLast     *float64 `parquet:"bare_last,optional" since:"4"`     // version 4: the last bare success rate observed; NULL without one
	Absorbed     bool     `parquet:"absorbed" since:"4"`               // version 4: the bare EMA is within the absorption margin of s_k, or above it: the policy does as well without the scope's items
	NWorse       int32    `parquet:"n_worse" since:"4"`                // version 4: consecutive observed iterations, up to k, whose bare rate beat the scaffolded one by more than the margin
	CapItems     *int32   `parquet:"cap_items,optional" since:"4"`     // version 4: the scope's item cap for the snapshot iteration k writes (the fade applied); NULL in older files
	CapTokens    *int32   `parquet:"cap_tokens,optional" since:"4"`    // version 4: its token cap; NULL in older files
}

// ItemAbsorption says, for one scaffold item at iteration k, whether the
// behaviour it asks for already shows in the bare replay of the
// iteration's groups (control --absorption-out): what COMPRESS removes
// first. It is computed from the policy's own episodes only.
type ItemAbsorption struct {
	Iteration   int32    `parquet:"iteration"`          // iteration k
	TaskType    string   `parquet:"task_type,optional"` // the item's scope; NULL = general layer
	ItemID      string   `parquet:"item_id"`            // the item's id in snapshot k
	Layer       string   `parquet:"layer"`              // general, task or mistake
	Text        string   `parquet:"text"`               // the item's text
	Features    []string `parquet:"features,list"`      // the features the item is linked to (from the scope's scaffolded and bare cards)
	BareCards   int32    `parquet:"bare_cards"`         // bare cards of the scope with at least one successful episode
	BareSupport int32    `parquet:"bare_support"`       // of them, those that show the item's behaviour: a linked feature in their successful episodes (a mistake item: none of its linked failure modes in their failed ones)
	Absorbed    bool     `parquet:"absorbed"`           // bare_support reaches the addition rule's minimum support: the policy already does it bare
	Harmful     bool     `parquet:"harmful"`            // the scope did worse with its items than bare for two observed iterations running, the item in the snapshot for both
}

// UpgradeFrom reads a state of version 2 or older: the success rates of a
// type never observed (0) become NULL.
func (s *ControllerState) UpgradeFrom(version int) {
	if version < 3 && s.NObserved == 0 {
		s.SmoothedSuccess, s.LastSuccess = nil, nil
	}
}

// Proposal is one edit a refiner proposes; only the validator changes the
// scaffold.
type Proposal struct {
	ProposalID string   `parquet:"proposal_id"`        // unique within an iteration; the validator applies in this order
	Iteration  int32    `parquet:"iteration"`          // iteration k whose evidence it uses
	TaskType   string   `parquet:"task_type,optional"` // the type whose primitive it serves; NULL = general layer (version 2; older files: "")
	Primitive  string   `parquet:"primitive"`          // the controller's primitive for that type
	Op         string   `parquet:"op"`                 // add, edit, merge or delete
	Targets    []string `parquet:"targets,list"`       // item ids edited, merged or deleted (empty for add)
	Layer      string   `parquet:"layer"`              // layer of the new or edited item
	Text       string   `parquet:"text,optional"`      // new text (NULL for delete)
	Support    []string `parquet:"support,list"`       // supporting card ids
	Refiner    string   `parquet:"refiner"`            // builtin, openai:<model>
	Rationale  string   `parquet:"rationale"`          // short human-readable reason
}

// Decision is the validator's verdict on one proposal.
type Decision struct {
	ProposalID string `parquet:"proposal_id"`        // the proposal judged
	Iteration  int32  `parquet:"iteration"`          // its iteration
	TaskType   string `parquet:"task_type,optional"` // its task type; NULL = general layer (version 2; older files: "")
	Primitive  string `parquet:"primitive"`          // its primitive
	Op         string `parquet:"op"`                 // its op
	Accepted   bool   `parquet:"accepted"`           // applied to the next snapshot
	Reason     string `parquet:"reason"`             // stable short code of the broken rule ("ok" when accepted)
	Message    string `parquet:"message"`            // human-readable detail
	ItemID     string `parquet:"item_id,optional"`   // the item created or kept (add, edit, merge); the deleted one for delete; NULL when none
}

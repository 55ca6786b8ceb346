package table

import (
	"fmt"
	"math"
	"strings"
)

// RowChecker is implemented by row kinds whose values have invariants
// beyond their column types (finite numbers, ranges, list lengths that
// must agree, required values). ReadFiles calls CheckRow on every row it
// reads; an error names the column and becomes an *InputError naming the
// file and the row.
type RowChecker interface {
	CheckRow() error
}

// RowKeyer is implemented by row kinds whose rows carry an id that must be
// unique within one read (ReadFiles refuses a repeated key).
type RowKeyer interface {
	RowKey() string
}

// RowUpgrader is implemented by row kinds whose older schema versions
// stored an absent value as a sentinel (-1, "all") where the current one
// stores NULL. ReadFiles calls UpgradeFrom(v) on every row of a file of
// schema version v older than the kind's (v > 0: files of other tools
// carry no version), before the row checks.
type RowUpgrader interface {
	UpgradeFrom(version int)
}

// upgradeRows converts rows read from a file of an older schema version.
func upgradeRows[T any](rows []T, m Meta, k KindInfo) {
	if m.SchemaVersion <= 0 || m.SchemaVersion >= k.Version {
		return
	}
	for i := range rows {
		if u, ok := any(&rows[i]).(RowUpgrader); ok {
			u.UpgradeFrom(m.SchemaVersion)
		}
	}
}

// rowChecks is turned off only by the I/O tests, whose rows hold arbitrary
// values.
var rowChecks = true

// checkRows runs the row kind's invariants over rows read from path.
func checkRows[T any](path string, rows []T, seen map[string]string) error {
	if !rowChecks {
		return nil
	}
	for i := range rows {
		if c, ok := any(&rows[i]).(RowChecker); ok {
			if err := c.CheckRow(); err != nil {
				return inputErr(path, fmt.Sprintf("row %d: %v", i, err), nil)
			}
		}
		if k, ok := any(&rows[i]).(RowKeyer); ok && seen != nil {
			key := k.RowKey()
			if prev, dup := seen[key]; dup {
				return inputErr(path, fmt.Sprintf("row %d: id %s repeats %s", i, key, prev), nil)
			}
			seen[key] = fmt.Sprintf("row %d of %s", i, path)
		}
	}
	return nil
}

// checkWritten runs the readers' checks (checkRows) over rows about to be
// written, so that no command writes a file its own readers refuse. A
// broken row is an error (not an *InputError: the writer made it).
func checkWritten[T any](rows []T) error {
	if !rowChecks {
		return nil
	}
	seen := map[string]string{}
	for i := range rows {
		if c, ok := any(&rows[i]).(RowChecker); ok {
			if err := c.CheckRow(); err != nil {
				return fmt.Errorf("row %d would be refused by the readers: %v", i, err)
			}
		}
		if k, ok := any(&rows[i]).(RowKeyer); ok {
			key := k.RowKey()
			if prev, dup := seen[key]; dup {
				return fmt.Errorf("row %d would be refused by the readers: id %s repeats %s", i, key, prev)
			}
			seen[key] = fmt.Sprintf("row %d", i)
		}
	}
	return nil
}

// colErr is an invariant broken in one column.
func colErr(col, format string, a ...any) error {
	return fmt.Errorf("column %s: %s", col, fmt.Sprintf(format, a...))
}

func finite(col string, x float64) error {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return colErr(col, "%v is not finite", x)
	}
	return nil
}

func share(col string, x float64) error {
	if !(x >= 0 && x <= 1) {
		return colErr(col, "%v is not a share in [0, 1]", x)
	}
	return nil
}

// optShare checks a nullable share: NULL, or in [0, 1].
func optShare(col string, x *float64) error {
	if x == nil {
		return nil
	}
	return share(col, *x)
}

func count(col string, n int32) error {
	if n < 0 {
		return colErr(col, "negative count %d", n)
	}
	return nil
}

func sameLen(col string, n int, other string, m int) error {
	if n != m {
		return colErr(col, "%d %s for %d %s", n, col, m, other)
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// CheckRow implements RowChecker.
func (r *Trajectory) CheckRow() error {
	if err := firstErr(
		count("history", r.History),
		count("sample", r.Sample), count("steps", r.Steps),
		finite("reward", r.Reward), share("score", r.Score),
		sameLen("roles", len(r.Roles), "tokens", len(r.Tokens)),
		sameLen("reads_right", len(r.ReadsRight), "reads", len(r.Reads)),
		sameLen("reads_misleading", len(r.ReadsMisleading), "reads", len(r.Reads)),
		count("n_tokens", r.NTokens), count("n_policy_tokens", r.NPolicyTokens), count("n_scaffold_tokens", r.NScaffoldTokens),
		count("invalid", r.Invalid),
	); err != nil {
		return err
	}
	if err := iteration("iteration", r.Iteration); err != nil {
		return err
	}
	if r.ScaffoldVersion != nil && *r.ScaffoldVersion < 0 {
		return colErr("scaffold_version", "%d is not a version (NULL stands for no scaffold)", *r.ScaffoldVersion)
	}
	if len(r.Logprobs) != 0 && len(r.Logprobs) != len(r.Tokens) {
		return colErr("logprobs", "%d logprobs for %d tokens", len(r.Logprobs), len(r.Tokens))
	}
	if len(r.StepKeys) != 0 && len(r.StepKeys) != len(r.Actions) {
		return colErr("step_keys", "%d step_keys for %d actions", len(r.StepKeys), len(r.Actions))
	}
	if len(r.StepRewards) != 0 && len(r.StepRewards) != len(r.Actions) {
		return colErr("step_rewards", "%d step_rewards for %d actions", len(r.StepRewards), len(r.Actions))
	}
	if len(r.ReadsOutcome) != 0 && len(r.ReadsOutcome) != len(r.Reads) {
		return colErr("reads_outcome", "%d reads_outcome for %d reads", len(r.ReadsOutcome), len(r.Reads))
	}
	for i, o := range r.ReadsOutcome {
		if o != ReadServed && o != ReadUnknown && o != ReadOverLimit {
			return colErr("reads_outcome", "%q at read %d is not served, unknown or over_limit", o, i)
		}
	}
	if len(r.ReadTurns) != 0 && len(r.ReadTurns) != len(r.Reads) {
		return colErr("read_turns", "%d read_turns for %d reads", len(r.ReadTurns), len(r.Reads))
	}
	for i, t := range r.ReadTurns {
		if t < 0 || int(t) >= len(r.Actions) || i > 0 && t <= r.ReadTurns[i-1] {
			return colErr("read_turns", "read %d's turn %d is not an action after the previous read's (%d actions)", i, t, len(r.Actions))
		}
	}
	if len(r.BodyEnd) != len(r.BodyAt) {
		return colErr("body_end", "%d body_end for %d body_at", len(r.BodyEnd), len(r.BodyAt))
	}
	for i := range r.BodyAt {
		lo := int32(0)
		if i > 0 {
			lo = r.BodyEnd[i-1]
		}
		if r.BodyAt[i] < lo || r.BodyEnd[i] <= r.BodyAt[i] || int(r.BodyEnd[i]) > len(r.Tokens) {
			return colErr("body_at", "body %d [%d, %d) is not inside the %d tokens after the previous body", i, r.BodyAt[i], r.BodyEnd[i], len(r.Tokens))
		}
	}
	for _, x := range r.StepRewards {
		if err := finite("step_rewards", x); err != nil {
			return err
		}
	}
	for i, ro := range r.Roles {
		if ro < 0 || int(ro) >= len(RoleNames) {
			return colErr("roles", "role %d at position %d is not one of the %d roles", ro, i, len(RoleNames))
		}
	}
	for i, lp := range r.Logprobs {
		if math.IsNaN(float64(lp)) || math.IsInf(float64(lp), 0) {
			return colErr("logprobs", "%v at position %d is not finite", lp, i)
		}
	}
	return r.checkWindow()
}

// checkWindow checks the history-window columns (rollout --history): none
// set without a window; with one, one turn_from per turn_at, prompt_len
// inside the tokens, answers in order, each starting on a policy-written
// token, and each history inside [prompt_len, its answer's start].
func (r *Trajectory) checkWindow() error {
	if r.History == 0 {
		if len(r.TurnAt) > 0 || len(r.TurnFrom) > 0 || len(r.HistoryMarker) > 0 || r.PromptLen != 0 {
			return colErr("history", "0 (no window) with turn_at, turn_from, history_marker or prompt_len set")
		}
		return nil
	}
	if len(r.TurnFrom) != len(r.TurnAt) {
		return colErr("turn_from", "%d turn_from for %d turn_at", len(r.TurnFrom), len(r.TurnAt))
	}
	n, prompt, prev := len(r.Tokens), int(r.PromptLen), -1
	if prompt < 0 || prompt > n {
		return colErr("prompt_len", "%d is outside the %d tokens", prompt, n)
	}
	for k := range r.TurnAt {
		at, from := int(r.TurnAt[k]), int(r.TurnFrom[k])
		if at <= prev || at >= n || !PolicyWritten(r.Roles[at]) {
			return colErr("turn_at", "entry %d (%d) is not the start of a policy-written answer after the previous one", k, at)
		}
		if from < prompt || from > at {
			return colErr("turn_from", "entry %d (%d) is outside [prompt_len %d, turn_at %d]", k, from, prompt, at)
		}
		prev = at
	}
	for i, id := range r.HistoryMarker {
		if id < 0 {
			return colErr("history_marker", "token %d is id %d", i, id)
		}
	}
	return nil
}

func required(col, s string) error {
	if s == "" {
		return colErr(col, "empty; a value is required")
	}
	return nil
}

// CheckRow implements RowChecker.
func (c *Card) CheckRow() error {
	if err := firstErr(
		required("card_id", c.CardID),
		iteration("iteration", c.Iteration),
		share("success_rate", c.SuccessRate),
		count("n_episodes", c.NEpisodes), count("n_success", c.NSuccess),
		sameLen("success_freqs", len(c.SuccessFreqs), "success_features", len(c.SuccessFeatures)),
		sameLen("failure_freqs", len(c.FailureFreqs), "failure_features", len(c.FailureFeatures)),
		sameLen("contrast_diff", len(c.ContrastDiff), "contrast", len(c.Contrast)),
		sameLen("failure_mode_counts", len(c.FailureModeCounts), "failure_modes", len(c.FailureModes)),
	); err != nil {
		return err
	}
	if c.RepSuccessSample != nil && *c.RepSuccessSample < 0 {
		return colErr("rep_success_sample", "%d is not a sample", *c.RepSuccessSample)
	}
	if c.RepFailureSample != nil && *c.RepFailureSample < 0 {
		return colErr("rep_failure_sample", "%d is not a sample", *c.RepFailureSample)
	}
	if c.NSuccess > c.NEpisodes {
		return colErr("n_success", "%d successes of %d episodes", c.NSuccess, c.NEpisodes)
	}
	// success_rate is n_success / n_episodes (0 for a card of no
	// episodes), up to a float32 writer's rounding.
	want := 0.0
	if c.NEpisodes > 0 {
		want = float64(c.NSuccess) / float64(c.NEpisodes)
	}
	if math.Abs(c.SuccessRate-want) > 1e-6 {
		return colErr("success_rate", "%v is not n_success / n_episodes (%d of %d)", c.SuccessRate, c.NSuccess, c.NEpisodes)
	}
	for col, xs := range map[string][]float64{"success_freqs": c.SuccessFreqs, "failure_freqs": c.FailureFreqs} {
		for _, x := range xs {
			if err := share(col, x); err != nil {
				return err
			}
		}
	}
	for _, x := range c.ContrastDiff {
		if !(x >= -1 && x <= 1) {
			return colErr("contrast_diff", "%v is not a difference of shares in [-1, 1]", x)
		}
	}
	for _, n := range c.FailureModeCounts {
		if err := count("failure_mode_counts", n); err != nil {
			return err
		}
	}
	return nil
}

// RowKey implements RowKeyer: card ids are unique.
func (c *Card) RowKey() string { return c.CardID }

// CheckRow implements RowChecker.
func (e *TypeEvidence) CheckRow() error {
	if err := firstErr(
		iteration("iteration", e.Iteration),
		share("success_rate", e.SuccessRate),
		count("n_cards", e.NCards), count("n_episodes", e.NEpisodes), count("n_types", e.NTypes),
		sameLen("contrast_diff", len(e.ContrastDiff), "contrast", len(e.Contrast)),
		sameLen("failure_mode_counts", len(e.FailureModeCounts), "failure_modes", len(e.FailureModes)),
	); err != nil {
		return err
	}
	for _, x := range e.ContrastDiff {
		if !(x >= -1 && x <= 1) {
			return colErr("contrast_diff", "%v is not a difference of shares in [-1, 1]", x)
		}
	}
	return nil
}

// CheckRow implements RowChecker.
func (s *ControllerState) CheckRow() error {
	return firstErr(
		iteration("iteration", s.Iteration),
		oneOf("primitive", s.Primitive, Primitives),
		optShare("smoothed_success", s.SmoothedSuccess), optShare("last_success", s.LastSuccess),
		count("n_observed", s.NObserved), count("n_items", s.NItems), count("n_tokens", s.NTokens),
		count("n_expand", s.NExpand), count("n_revise", s.NRevise), count("n_compress", s.NCompress),
		count("n_forced_prune", s.NForcedPrune), count("n_none", s.NNone),
		optShare("bare_smoothed", s.BareSmoothed), optShare("bare_last", s.BareLast), count("n_worse", s.NWorse),
		optCount("cap_items", s.CapItems), optCount("cap_tokens", s.CapTokens),
	)
}

// CheckRow implements RowChecker.
func (a *ItemAbsorption) CheckRow() error {
	if a.ItemID == "" {
		return colErr("item_id", "is empty")
	}
	return firstErr(
		iteration("iteration", a.Iteration),
		oneOf("layer", a.Layer, []string{"general", "task", "mistake"}),
		count("bare_cards", a.BareCards), count("bare_support", a.BareSupport),
	)
}

func optCount(col string, n *int32) error {
	if n == nil {
		return nil
	}
	return count(col, *n)
}

// CheckRow implements RowChecker.
func (a *TokenAdvantages) CheckRow() error {
	if err := firstErr(
		count("sample", a.Sample),
		finite("reward", a.Reward), finite("outcome", a.Outcome), finite("selection", a.Selection),
		sameLen("channels", len(a.Channels), "advantages", len(a.Advantages)),
	); err != nil {
		return err
	}
	for i, x := range a.Advantages {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return colErr("advantages", "%v at position %d is not finite", x, i)
		}
	}
	for i, c := range a.Channels {
		if c < 0 || c > 2 {
			return colErr("channels", "channel %d at position %d is not 0, 1 or 2", c, i)
		}
	}
	for _, x := range a.StepAdvantages {
		if err := finite("step_advantages", x); err != nil {
			return err
		}
	}
	for _, x := range a.ReadAdvantages {
		if err := finite("read_advantages", x); err != nil {
			return err
		}
	}
	return nil
}

// iteration checks an iteration column: k >= 0, or -1 (before training,
// the iteration of a rollout of the initial checkpoint and of what is made
// from it).
func iteration(col string, k int32) error {
	if k < -1 {
		return colErr(col, "%d is neither -1 (before training) nor an iteration", k)
	}
	return nil
}

// oneOf checks that s is one of the values a column allows.
func oneOf(col, s string, allowed []string) error {
	for _, a := range allowed {
		if s == a {
			return nil
		}
	}
	return colErr(col, "%q is not one of %s", s, strings.Join(allowed, ", "))
}

// Values of the enumerated columns of the scaffold loop's row kinds. The
// names are the file contract; lib/scaffold (the primitives, the layers)
// uses the same ones, and tests there keep them in step; the ops are
// named here (OpAdd ... OpDelete) for every package that writes or reads
// them.
var (
	// Primitives are the values of the primitive column of proposals,
	// decisions and controller states.
	Primitives = []string{"EXPAND", "REVISE", "COMPRESS", "FORCED_PRUNE", "NONE"}
	// Ops are the values of the op column of proposals and decisions.
	Ops = []string{OpAdd, OpEdit, OpMerge, OpDelete}
)

// The ops of a proposal, named once: the refiners write them, the
// validator checks and applies them, the reports count them.
const (
	OpAdd    = "add"
	OpEdit   = "edit"
	OpMerge  = "merge"
	OpDelete = "delete"
)

// CheckRow implements RowChecker.
func (m *EvalMetrics) CheckRow() error {
	if err := firstErr(
		count("episodes", m.Episodes),
		share("success", m.Success), share("score", m.Score),
		optShare("right_read_rate", m.RightReadRate), optShare("misleading_read_rate", m.MisleadingRate),
		optShare("misleading_exposure", m.MisleadingExposure),
	); err != nil {
		return err
	}
	for _, c := range []struct {
		col string
		x   float64
	}{{"steps", m.Steps}, {"tokens", m.Tokens}, {"policy_tokens", m.PolicyTokens}, {"reads_per_episode", m.ReadsPerEp}} {
		if !(c.x >= 0) || math.IsInf(c.x, 0) {
			return colErr(c.col, "%v is not a finite mean >= 0", c.x)
		}
	}
	return nil
}

// CheckRow implements RowChecker.
func (p *Proposal) CheckRow() error {
	if err := firstErr(
		required("proposal_id", p.ProposalID),
		iteration("iteration", p.Iteration),
		oneOf("primitive", p.Primitive, Primitives),
		oneOf("op", p.Op, Ops),
		itemText("text", p.Text),
	); err != nil {
		return err
	}
	return nil
}

// RowKey implements RowKeyer: the validator applies proposals by id, so
// an id names one proposal.
func (p *Proposal) RowKey() string { return p.ProposalID }

// CheckRow implements RowChecker.
func (d *Decision) CheckRow() error {
	return iteration("iteration", d.Iteration)
}

// CheckRow implements RowChecker.
func (it *ScaffoldItem) CheckRow() error {
	return firstErr(
		required("id", it.ID),
		iteration("created", it.Created), iteration("updated", it.Updated),
		count("tokens", it.Tokens),
		itemText("text", it.Text),
	)
}

// MaxItemTextBytes bounds the text of a scaffold item (a snapshot's item,
// a proposal's new text, an items.yaml entry): an item is one line shown
// to the policy, tens of tokens under the default limits, so a longer
// text is a broken or hostile file (8 KiB).
const MaxItemTextBytes = 8 << 10

func itemText(col, s string) error {
	if len(s) > MaxItemTextBytes {
		return colErr(col, "%d bytes, more than the %d an item text may hold", len(s), MaxItemTextBytes)
	}
	return nil
}

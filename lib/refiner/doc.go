// Package refiner proposes scaffold edits for the PATS loop. A refiner is
// read-only: it sees one scope's evidence, cards and the current snapshot and
// returns proposals (table.Proposal); only lib/validate changes the scaffold.
//
// Two refiners are built in:
//
//   - RuleBased, the rule-based refiner (--refiner builtin, the name its
//     proposals record), deterministic. Its evidence is the scope's cards
//     of the last Input.Window iterations (control --history), newer ones
//     weighted more (Decay per iteration): the type's evidence accumulated
//     over iterations, so a type seen in one card per iteration still
//     reaches the support an addition needs. Its rules: for a choice slot
//     (source:<place>, heat:<tool>, cool:, clean:) the value that
//     successful episodes and the failed ones that got as far as the slot's
//     step share (failures weighted Partial), when it holds most of the
//     slot, no other value has more successes and the step itself is done
//     by most successes (with none, by MinShare of the failures); for
//     other features what most successes share and failures show less
//     (Phi(G+) with a contrast); for failure modes their share of the
//     failed episodes.
//     Every item is a template filled with a feature value of the run's
//     own episodes (no template names a place or a tool; milestones and
//     features without a template make no item), every addition cites
//     MinSupport cards that show its feature and states its statistic in
//     the rationale ("source:cabinet in 9/10 successes and 11/30 failures
//     over iterations 3-5, 6 cards ..."). A rule becomes General only when
//     it holds in most of the task types whose evidence bears on it.
//     REVISE corrects an item stating a slot value the newer evidence
//     contradicts (an edit to the value it holds now), then merges
//     near-duplicates, re-scopes stale mistakes and updates support;
//     COMPRESS merges and deletes items none of whose rules holds any more;
//     FORCED_PRUNE deletes the least supported items. The RuleBased type
//     documents every rule.
//   - OpenAI, a client of any OpenAI-compatible chat-completions endpoint:
//     the prompt carries the primitive, the scope's evidence, the rules the
//     window's smoothed evidence supports with their statistics and
//     supporting cards (Statistics, the rule-based refiner's), a few of the
//     window's cards and the current items; its proposals meet the same
//     validator; the answer must hold a JSON object with a
//     "proposals" list. An unusable answer (HTTP failure after the retries,
//     timeout, no JSON, a wrong shape) yields no proposals and a Reason, never
//     an error, so the pipeline goes on with an unchanged scaffold.
//
// Proposal ids are "p-<k>-<scope>-<nn>" (ProposalID); the validator applies
// proposals in id order, so a refiner's order within a scope is kept. The
// general layer is the scope with an empty task type ("general" in ids).
package refiner

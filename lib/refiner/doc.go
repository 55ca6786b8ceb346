// Package refiner proposes scaffold edits for the PATS loop. A refiner is
// read-only: it sees one scope's evidence, cards and the current snapshot and
// returns proposals (table.Proposal); only lib/validate changes the scaffold.
//
// Two refiners are built in:
//
//   - RuleBased, the rule-based refiner (--refiner builtin, the name its
//     proposals record), deterministic and contrastive: it turns features frequent in
//     successful episodes and rare in failed ones into concrete steps
//     (text templates per feature, "prefix:value", so any environment's
//     features work), and dominant failure modes into Mistake items; under
//     REVISE it merges near-duplicates, re-scopes stale mistakes and updates
//     support; under COMPRESS it merges and deletes items whose features no
//     longer separate success from failure; under FORCED_PRUNE it deletes
//     the least supported items. The RuleBased type documents every rule.
//   - OpenAI, a client of any OpenAI-compatible chat-completions endpoint:
//     the prompt carries the primitive, the scope's evidence, a few cards and
//     the current items; the answer must hold a JSON object with a
//     "proposals" list. An unusable answer (HTTP failure after the retries,
//     timeout, no JSON, a wrong shape) yields no proposals and a Reason, never
//     an error, so the pipeline goes on with an unchanged scaffold.
//
// Proposal ids are "p-<k>-<scope>-<nn>" (ProposalID); the validator applies
// proposals in id order, so a refiner's order within a scope is kept. The
// general layer is the scope with an empty task type ("general" in ids).
package refiner

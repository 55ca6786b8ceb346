// Package control is the PATS controller: per task type it smooths the
// success rate over iterations and picks the primitive the refiner works
// under.
//
// Smoothing: s_k = a*s_{k-1} + (1-a)*x_k, where x_k is the type's success
// rate at iteration k (the mean of its cards' success rates) and a is
// Options.EMA; the first observation initialises s = x. A type without
// evidence at k keeps s and gets NONE.
//
// Primitive, from s and the type's current size:
//
//   - FORCED_PRUNE when the type's items reach MaxItems or their tokens reach
//     MaxTokens (>=);
//   - otherwise EXPAND when s < RhoR, REVISE when RhoR <= s < RhoC, COMPRESS
//     when s >= RhoC.
//
// A type's size counts its task and mistake items only. General items are
// shared by every type; counting them per type would make one general
// addition push every type towards pruning at once. Instead the general
// layer is its own scope (task type "" in states, evidence and proposals)
// with its own caps (MaxGeneralItems, MaxGeneralTokens) and the success rate
// over all cards; Options.General turns its adaptation off.
//
// Defaults and why. Nothing published fixes these values; they follow from
// GRPO: a group's advantage signal is richest when its success is near 0.5
// and vanishes at 0 and 1.
//
//   - RhoR = 0.4: below it most groups are nearly all-failure, so the
//     scaffold must add concrete help (EXPAND) to bring groups into the
//     informative band; 0.4 also matches the threshold SkillRL uses to add
//     skills.
//   - RhoC = 0.75: above it groups drift towards all-success, the gradient
//     thins out, and the scaffold should shrink (COMPRESS) so the policy
//     carries the skill itself (the scaffold is removed at deployment).
//     Between the two (centred a little above 0.5), REVISE keeps the size
//     and re-targets items at the current failure modes.
//   - EMA = 0.5: one iteration's rate over a few groups is noisy (a type may
//     have 2-4 groups of 8); a half-life of one iteration damps flip-flopping
//     between primitives yet follows a real change within 2-3 iterations.
//   - MaxItems = 12 and MaxTokens = 400 per type: a type's block stays a
//     short read (about the size of the hand-written libraries SkillRL uses:
//     5-6 skills plus a few mistakes per type) and well inside small models'
//     contexts; MaxGeneralItems = 8, MaxGeneralTokens = 200.
//   - ExpandQuota = 3 additions per type per iteration, as in SkillRL's
//     evolution step: enough to react, few enough that each addition's effect
//     can be seen in the next iteration's cards.
//
// Restricting primitives (Options.Enabled; scaffold.ParsePrimitives reads "all",
// "expand", "no-revise", or a comma list): a disabled primitive becomes NONE,
// meaning no proposal for that type this iteration. When a cap is reached but
// FORCED_PRUNE is disabled, the smoothed primitive is used if enabled (the
// validator's caps still stop growth). Frozen: every type gets NONE (the
// scaffold never changes). States are still updated, so a rerun from any
// iteration's states reproduces the decisions.
package control

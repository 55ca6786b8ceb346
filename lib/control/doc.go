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
// The absorption signal and the fade (StepBare; issue 59). With the type
// evidence of the bare replay of iteration k's groups (the same tasks
// played by the same checkpoint without the scaffold), each scope's bare
// rate is smoothed as s is (BareSmoothed). A scope with items whose bare
// EMA is within AbsorbMargin (0.05) of s or above it is Absorbed: the
// policy does as well without its items, and its primitive becomes
// COMPRESS where it would be EXPAND or REVISE (an empty scope may grow).
// NWorse counts the observed iterations running whose bare rate beat the
// scaffolded one by more than the margin; from HarmfulAfter (2) the
// scope's older items are harmful (refiner.Absorption). Under a fade
// (Limits.Fade) the caps are those of snapshot k+1 (Limits.At: whole up to
// the fade's start, 0 from its end), recorded as CapItems and CapTokens; a
// scope at its cap gets FORCED_PRUNE even without evidence at k, and an
// empty scope with a cap of 0 gets NONE, so the scaffold is empty by the
// fade's end.
//
// Restricting primitives (Options.Enabled; scaffold.ParsePrimitives reads "all",
// "expand", "no-revise", or a comma list): a disabled primitive becomes NONE,
// meaning no proposal for that type this iteration. When a cap is reached but
// FORCED_PRUNE is disabled, the smoothed primitive is used if enabled (the
// validator's caps still stop growth). Frozen: every type gets NONE (the
// scaffold never changes). States are still updated, so a rerun from any
// iteration's states reproduces the decisions.
package control

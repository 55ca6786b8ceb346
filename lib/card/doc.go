// Package card builds PATS evidence cards from trajectories.
//
// A card summarises one group: the n episodes of task q at iteration k
// (Per = "group", the method), or one episode (Per = "trajectory", the
// ablation of trajectory-wise cards). It holds:
//
//   - the success rate and the episode counts;
//   - per side (successful / failed episodes) each feature's frequency: the
//     share of that side's episodes whose feature list contains it (a
//     feature listed twice in one episode counts once);
//   - the contrast: the features with the largest |p_success - p_failure|,
//     top Options.TopContrast, with the signed difference, ties broken by
//     name. It is defined only when both sides have episodes; otherwise it is
//     empty (a group where every episode succeeded shows no contrast);
//   - failure-mode counts over the failed episodes (an empty failure mode of
//     a failed episode counts as "unknown");
//   - one representative of each side, by these rules:
//     success: the fewest steps, then the lowest sample index;
//     failure: the card's most common failure mode (ties by name), then the
//     most steps, then the lowest sample index.
//
// Type evidence aggregates the cards of one task type at one iteration:
// n_cards, episodes, the mean of the cards' success rates, the contrast
// pooled over the type's episodes (p over all successful episodes of the
// type against p over all failed ones, so it exists for trajectory-wise cards
// too), failure modes summed, and the card ids. One extra row with an empty
// task type aggregates every card: the general layer's evidence.
//
// Lean (c, f) is the per-card evidence the refiner and validator use: the
// success-side frequency of feature f minus its failure-side frequency, a
// missing side counting as frequency 0.
//
// Everything is deterministic: output order is sorted (cards by iteration,
// task type, group id, sample; evidence by task type), whatever the order of
// the input trajectories.
package card

// Package audit measures three things a training run should show.
//
// # Credit starvation (audit credit)
//
// Given trajectories and the per-token advantages learn grpo used for them
// (joined on group_id and sample), episodes are binned by horizon, in
// environment steps and in tokens (Bins: about equal counts per bin, equal
// horizons never split, one bin per value when there are few). Per bin:
//
//   - skill-name share: per episode, the sum of |advantage| on skill-name
//     tokens over the sum on all tokens, averaged over the bin's episodes
//     that got any credit. Under broadcast credit it is the name tokens'
//     share of the episode's policy tokens and shrinks as episodes grow.
//   - right reads credited negatively: the share of right reads whose
//     credit is below 0. A read's credit is the mean advantage on its run
//     of skill-name tokens (runs and reads pair in order; when they do not,
//     every read of the episode gets the mean over all its skill-name
//     tokens).
//   - mean sign (-1, 0, +1) of the credit of right reads and of wrong reads.
//
// A right read is a right choice: the episode's only read, and of a right
// skill. Every other read is a wrong one: a wrong or misleading skill, or
// any read of an episode that read several times (SkillGate's selection
// advantage punishes those too, so a right read among several is not a
// right choice).
//
// For each measure the Spearman rank correlation (average ranks for ties;
// NaN when either side is constant) with the horizon is computed over all
// episodes (share) or all reads, not over bins, and repeated on each bin
// row. Under broadcast credit these show selector credit starvation: the
// share falls and right reads are punished more often as horizons grow;
// under SkillGate right single reads are always credited positively.
//
// # Scaffold internalisation (audit scaffold)
//
// For each checkpoint in order, the mean negative log-likelihood (nats per
// token, pooled over tokens) of the policy-written tokens of the episodes
// that carry scaffold tokens, scored once as rolled out and once with every
// role-scaffold token removed (WithoutScaffold). gap = NLL without - NLL
// with: how much the policy's actions still lean on the scaffold.
// gap_relative = (gap - gap_0) / |gap_0| against the first checkpoint; a
// value of -0.38 means the gap narrowed by 38%.
//
// Both commands write a table (credit_audit or scaffold_audit rows), print
// it as Markdown, and with --plot draw a PNG (gonum plot); the plot is
// rendered before anything is written.
//
// # Reading (audit reading)
//
// Whether a policy acts on the text in its context (Reading): the same
// tasks and episode seeds played with no extra text, with the
// environment's right rules about each task, with its misleading rules,
// with the right skill's body and with a misleading skill's body before the
// first action. One reading_audit row per condition: success, its 95%
// Wilson score interval (Wilson), the difference from no extra text, steps
// and tokens per episode; printed as a Markdown table (ReadingMarkdown).
// docs/environments.md describes the rules and the conditions.
package audit

// Package rl trains policy checkpoints: supervised fine-tuning on
// demonstrations (SFT) and GRPO on a policy's own rollouts, with ordinary
// broadcast credit, SkillGate's two credit channels, or GiGPO's step-level
// credit added to either. cmd/learn is its command; lib/stage/learn
// (RunSFT, RunGRPO) reads and writes its files.
//
// # Which tokens learn
//
// Only policy-written tokens (roles action and skill name, see
// table.PolicyWritten) carry loss; every other token of a trajectory is
// context. Log-probabilities are natural logarithms at temperature 1 and
// are aligned with the token they score (lp[t] = log p(tokens[t] |
// tokens[:t]), as model.LogProbs returns them), so a trajectory's roles and
// behaviour log-probabilities index them directly.
//
// # SFT
//
// Loss = mean negative log-likelihood of the policy-written tokens of a
// minibatch (token mean). Minibatches are whole demonstrations packed
// greedily, in a seeded shuffle per epoch, up to a token budget (Batches).
// A windowed demonstration is one entry of its minibatch: its turn
// sequences share the episode's prompt, which runs forward and backward
// once for all of them (model.ForwardBackwardPrefix), so it costs the
// prompt once and each sequence's rest. AdamW with
// global gradient-norm clipping; the learning rate warms up linearly over a
// share of the steps, then stays constant or decays by a cosine to a floor.
//
// # GRPO
//
// Outcome advantage of episode i in group g (GroupAdvantages):
//
//	A_i = (r_i - mean_g) / (std_g + 1e-6)   (--adv-norm std; std with n-1)
//	A_i =  r_i - mean_g                     (--adv-norm mean)
//
// A group whose rewards are all equal gets A = 0 exactly (no outcome
// gradient) and is counted in the metrics. Per policy-written token t with
// advantage a_t (see Credit below), behaviour log-probability b_t (from the
// trajectory), current lp_t and reference ref_t:
//
//	ratio   = exp(lp_t - b_t)
//	surr_t  = -min(ratio*a_t, clip(ratio, 1-eps, 1+eps)*a_t)      (Surrogate)
//	kl_t    = exp(ref_t - lp_t) - (ref_t - lp_t) - 1               (K3, >= 0)
//	loss    = sum_i w_i sum_t (surr_t + beta*kl_t)
//
// with w_i = 1/(B*n_i) for seq-mean (B sequences, n_i policy tokens of
// sequence i) or 1/sum(n_i) for token-mean (AggWeights). The model's
// backward takes dloss/dlp_t per token; those weights are the exact
// derivative of the loss above (a finite-difference test holds them to
// it). Epochs reuse the same behaviour log-probabilities; the optimizer
// state of the input checkpoint carries over.
//
// # Credit (SkillGate)
//
// Channels: 0 none, 1 outcome, 2 selection. Broadcast gives every
// policy-written token channel 1 and A_i. SkillGate gives execution tokens
// (role action) channel 1 and A_i, and skill-name tokens channel 2 and the
// selection advantage. With --select-baseline group (the default; the
// SkillGate reference's rule, GroupSelectionAdvantages) every read action
// has utility u = 1 when its episode made exactly one read and it was the
// right skill (and not a misleading one), else 0; its advantage is
//
//	S = u - mean of u over all read actions of the group
//
// (an episode with three reads counts three times in the mean, and all its
// reads share its value), so a group whose read actions all share one
// utility gives no selection credit (S = 0 exactly); and the selection
// term's surrogate is scaled by select_coef (default 0.2):
//
//	loss = outcome term + select_coef * selection term + beta * KL
//
// (Prepared.SelectScale; the KL term of a selection token is not scaled).
// With --select-baseline none the earlier action-local rule holds
// (SelectionAdvantage): S = +select_coef for a single right read,
// -select_coef when the episode read several skills or any wrong or
// misleading one, the term unscaled. Either way an episode without reads
// has no selection credit (its skill-name tokens, if any, get channel 0),
// no token is in both channels, so the outcome advantage never moves a
// skill-name token and the selection advantage never moves an execution
// token, and selection credit applies in groups of equal rewards too. The
// KL term applies to every policy-written token whatever its channel.
// --drop-flat-groups leaves the episodes of groups whose rewards are all
// equal out of the update altogether (the reference's dynamic filter);
// their rows of the advantages file are all 0, channel 0.
//
// # Step credit (GiGPO)
//
// --credit gigpo (broadcast plus step credit) and --step-credit gigpo
// (beside --credit skillgate) add GiGPO's step-level advantage. The turns
// of an episode are the runs of policy-written tokens (TurnOf), one per
// entry of its actions, skill reads included; the trajectory records per
// turn the anchor-state key of the state it acted from (step_keys: a hash
// of the observation text unless the environment names its own key; a
// read leaves the state unchanged) and its reward (step_rewards). Per turn
// t the discounted return is
//
//	R_t = r_t + gamma * R_{t+1}        (--gamma, default 0.95)
//
// Within a group, the turns with equal keys (of any of its episodes, the
// same episode included) form a step group, and a turn's step advantage is
// its return normalised within its step group exactly as episode rewards
// are within their group (StepAdvantages): (R - mean)/(std + 1e-6) under
// --adv-norm std, R - mean under mean, 0 for a step group of one or of
// equal returns. A token of turn t in the outcome channel gets
//
//	A_i + step_weight * S_t            (--step-weight, default 1)
//
// so under skillgate the step credit reaches execution tokens only, never
// skill-name tokens. The advantages file's step_advantages holds S_t per
// turn (before the weight); audit credit reports the share of turns in
// step groups of two or more (anchor coverage).
//
// Under skillgate the selection channel is also its own loss term
// (SelectChannel, the default; ChannelWeights): the loss is the outcome
// term, averaged by the aggregation over the tokens outside the selection
// channel, plus the selection term, averaged the same way over the
// selection tokens of the sequences that have any. Kept inside the
// sequence's average (SelectSequence, as under broadcast), a skill name of
// 2-3 tokens in an episode of a few hundred policy tokens carries about 1-5%
// of the loss weight whatever its sign, and the selector barely moves (a
// measured household run: skill-name share 0.03-0.05 under both credits).
// The per-token weights stay the exact derivative of the loss.
//
// # Input checks and failures
//
// Trajectories from another tokenizer than the model's (the tokenizer
// column against Tokenizer.Hash), mismatched column lengths, ids outside
// the vocabulary, and for GRPO non-finite rewards, groups of one and
// missing behaviour log-probabilities (text policies such as oracle and
// random record 0) are input errors: one line naming the file and episode,
// exit 2, nothing written. A step whose loss or gradient norm is not
// finite stops training with a NonFiniteError naming the step (exit 1),
// and no checkpoint is written. Outputs are written metrics first, then
// advantages, then the checkpoint folder, each atomically, so a checkpoint
// on disk means its run finished.
//
// # Determinism
//
// The same inputs, flags and --seed give byte-identical checkpoints and
// tables apart from the seconds column: shuffles use seeded PCG streams,
// sequences are processed in a fixed order and the model's arithmetic does
// not depend on GOMAXPROCS.
//
// An episode rolled out with a history window (its history column > 0)
// saw a different context at each answer; GRPO and SFT train it as one
// sequence per answer, rebuilt from its turn_at, turn_from, prompt_len,
// history_marker, body_at and body_end columns (TurnSpans: a skill body
// read in a dropped turn stays pinned after the prompt), with the loss on
// that answer's
// tokens and the episode's token credit, so the recomputed
// log-probabilities are those rollout recorded. The sequences of one
// episode share its prompt (Prepared.Prefix), which runs forward and
// backward once for all of them (model.ForwardBackwardPrefix): the same
// gradients up to float rounding for the prompt's cost once.
package rl

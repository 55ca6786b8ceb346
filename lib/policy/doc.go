// Package policy drives episodes with a checkpoint: it decodes each action
// token by token with the model's KV cache, samples with temperature and
// top-p from a generator seeded per episode (or greedily), and records the
// behaviour log-probability of every token it writes.
//
// The episodes of a group share their prompt token for token, so the
// prompt is computed once per group and its KV cache cloned into each
// episode. An action ends at the end token, at MaxActionTokens, or where
// the context would pass the model's position limit; an action without its
// end token is still recorded as written.
//
// The log-probabilities recorded are those of the distribution sampled
// from (softmax of logits / temperature; temperature 1 for greedy), so at
// the default temperature 1 they equal what learn recomputes for the same
// checkpoint and sequence.
package policy

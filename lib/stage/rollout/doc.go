// Package rollout is the stage of the command rollout: resolves the options
// into rollout.Options (environment, policy, tokenizer, skill library,
// rendered scaffold), plays the episodes with lib/rollout and writes the
// trajectories. See lib/stage for the layer's rule.
package rollout

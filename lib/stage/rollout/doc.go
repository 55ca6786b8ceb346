// Package rollout is the stage of the command rollout: it resolves the
// episode options (lib/stage/play) into rollout.Options, plays the
// episodes with lib/rollout and writes the trajectories. See lib/stage for
// the layer's rule.
package rollout

// Package learn is the stage of the command learn: sft and grpo. It opens
// the starting checkpoint (a fresh tiny or small model over the built-in
// tokenizer, or a checkpoint folder with its tokenizer and optimizer state),
// checks the trajectories against it, trains with lib/rl and writes the
// metrics, the advantages and then the checkpoint. See lib/stage for the
// layer's rule.
package learn

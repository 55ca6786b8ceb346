// Package learn is the stage of the command learn: sft, grpo and merge. It
// opens the starting checkpoint (a fresh tiny or small model over the
// built-in tokenizer, or a checkpoint folder with its tokenizer and
// optimizer state), checks the trajectories against it, trains with lib/rl
// and writes the metrics, the advantages and then the checkpoint. See
// lib/stage for the layer's rule.
//
// One file per job: flags.go reads the options, checks.go checks them
// (each subcommand's Check, run before any file is read), init.go opens
// the starting checkpoint and the trajectories (LoadInit, with what the
// checkpoint is used for: Use), sft.go and grpo.go run the two trainers,
// lora.go sets up an adapter's training, merge.go folds one into its
// base, and provenance.go writes a checkpoint with its provenance.json.
package learn

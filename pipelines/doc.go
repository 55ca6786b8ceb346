// Package pipelines holds no Go code of its own: it is the home of the Make
// rules of the PATS loop (pats.mk), the demo (demo.mk), the ablation sweep
// (sweep.mk), the Slurm scripts (slurm/) and the hand-written expert
// scaffolds (expert/). Its test runs a small loop with make, interrupts it,
// resumes it, and checks that the resumed run ends in the same files, byte
// for byte, as a run that was never interrupted. docs/pipelines.md
// documents the variables, variants, outputs and resume semantics.
package pipelines

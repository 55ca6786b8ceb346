// Package play holds the episode options of the commands that play
// episodes: rollout, evaluate --policy and audit reading. They are declared
// once (Flags, with each command's Spec: the defaults that differ and the
// option groups it offers), read once (From), checked once (Options.Check)
// and resolved into what lib/rollout plays (Options.Resolve, one function
// per job: environment, policy, tokenizer and prompt format, skills,
// scaffold, hints), a checkpoint's agent context (agent.json) read once on
// the way. The defaults are the named constants of defaults.go.
//
// play is not a command stage: the command stages import it, and no command
// stage imports another (the architecture test in lib/stage keeps it so).
// An option every episode command should take is added here once: to
// Options, Flags, From, and the Resolve job it concerns.
package play

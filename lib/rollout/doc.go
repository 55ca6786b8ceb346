// Package rollout plays episodes: it draws tasks of a split (seeded,
// optionally a shard), runs Group episodes of each with a Policy, and
// returns one table.Trajectory row per episode with every token, its role
// and its behaviour log-probability.
//
// The agent's role is split over three packages: lib/agent assembles the
// context (system text, scaffold, skill slate, task, observations) with a
// role per token and parses actions; lib/policy samples a checkpoint's
// actions (batched decoding, shared group prompts); this package drives an
// episode between the environment and a Policy (TextPolicy for text agents
// such as the oracle and random ones, CheckpointPolicy for a model,
// ServedPolicy for a model played by an inference server), reads
// skills from the slate, and records the trajectory. Rows do not depend
// on the number of workers: episode seeds come from the rollout seed, the
// task id and the sample (EpisodeSeed).
package rollout

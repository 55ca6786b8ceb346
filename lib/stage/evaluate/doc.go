// Package evaluate is the stage of the command evaluate: summarises
// trajectories by task type (lib/eval), from files or after running a policy
// (the episode options of lib/stage/play, played by lib/rollout), and prints the Markdown table. See lib/stage
// for the layer's rule.
package evaluate

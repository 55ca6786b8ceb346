// Package eval summarises episodes: success rate, mean score, steps, tokens
// and skill reads per episode, overall (task type "all") and per task type,
// as evaluation-metric rows and as a Markdown table.
//
// Success is the share of episodes the environment called successful;
// score is the mean environment score in [0,1]; tokens count the whole
// context of an episode, so a scaffold's tokens are included when one was
// rendered. Right and misleading read rates are shares of all reads.
package eval

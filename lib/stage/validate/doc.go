// Package validate is the stage of the command validate: applies the
// proposals of iteration k to snapshot k with lib/validate and commits
// snapshot k+1 after the decisions; its subcommands init, diff and show
// make, compare and render snapshots. See lib/stage for the layer's rule.
package validate

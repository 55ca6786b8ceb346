// Package report is the stage of the command report: mix, iteration, run,
// compare, sweep, plots and tensorboard over pipeline run folders
// (lib/report computes the tables, plots and events). See lib/stage for
// the layer's rule.
package report

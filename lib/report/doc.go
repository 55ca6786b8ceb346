// Package report reads the run folders written by pipelines/pats.mk and
// turns them into the loop's progress lines, Markdown tables, the sweep's
// results and PNG plots; it also mixes trajectory files into shared groups
// (the oracle-plus-weak evidence behind the initial scaffold B_0).
//
// A run folder (docs/pipelines.md) holds eval/K/{bare,scaffold}-SPLIT.parquet
// (evaluation metrics of checkpoint K without and with the scaffold),
// snap/K.parquet (scaffold snapshots), state/K.parquet (controller
// states), traj/K.parquet and metrics/grpo-K.parquet. Load reads whatever
// of these exists; a run in progress or one without a scaffold loads too.
//
// Units: success and score are shares in [0,1] in the Parquet outputs and
// percent in the sweep's Markdown table (beside the PATS paper's figures,
// which are percent); tokens are per episode; seconds are wall time taken
// from file modification times. Spreads over seeds are sample standard
// deviations (n-1).
//
// Plots (run folders) and SweepPlots (a sweep's runs per variant: the
// mean over seeds as a line, the mean ± one sample standard deviation as
// a band) write PNG files; every legend is drawn beside the plot's area,
// never over its data (layout).
//
// TensorboardSources and TensorboardEvents give the events of a run's
// TensorBoard files (report tensorboard, written by lib/tensorboard): one
// file per traj/K, lift/K and evaluation file, at step K, whose wall time
// is the input files' own pats.time stamp.
//
// Everything but the seconds is deterministic: the same folders give the
// same bytes.
package report

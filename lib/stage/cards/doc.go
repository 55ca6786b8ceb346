// Package cards is the stage of the command cards: reads the trajectories of
// one iteration, builds the evidence cards (and optionally the type
// evidence) with lib/card and writes them with the metadata control reads
// back (granularity, contrast length, iteration). See lib/stage for the
// layer's rule.
package cards

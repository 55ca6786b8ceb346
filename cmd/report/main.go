// Command report prints and plots what a pipelines/pats.mk run folder or a
// sweep holds, and mixes trajectory files into shared groups (the
// evidence behind the initial scaffold).
package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/output"
	"github.com/pats-rl/pats/lib/report"
	"github.com/pats-rl/pats/lib/table"
)

func main() { command.Main(app()) }

func app() *cli.App {
	return &cli.App{
		Name:  "report",
		Usage: "summaries, tables and plots of pipeline runs",
		Description: "Examples:\n" +
			"  report mix boot/oracle.parquet boot/weak.parquet -o boot/traj.parquet\n" +
			"  report iteration runs/pats-s1 3 --scaffold runs/pats-s1/snap/3.parquet\n" +
			"  report run runs/pats-s1\n" +
			"  report compare warm-up=runs/demo/pats@0 pats=runs/demo/pats grpo=runs/demo/grpo\n" +
			"  report sweep --root runs/sweep --variants 'pats grpo' --seeds '1 2 3' -o runs/sweep/results.parquet\n" +
			"  report plots runs/pats-s1",
		HideHelpCommand: true,
		Commands: []*cli.Command{
			{
				Name:      "mix",
				Usage:     "concatenate trajectory files so that episodes of one task form one group (samples renumbered)",
				UsageText: "report mix TRAJ... -o OUT",
				Flags:     []cli.Flag{&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Required: true, Usage: "trajectory file to write"}},
				Action: func(c *cli.Context) error {
					if err := command.Args(c, 1, -1); err != nil {
						return err
					}
					if err := output.Check(c.Args().Slice(), output.File("-o", c.String("output"))); err != nil {
						return err
					}
					var tabs [][]table.Trajectory
					var seed int64
					for _, p := range c.Args().Slice() {
						rows, metas, err := table.ReadFiles[table.Trajectory](p)
						if err != nil {
							return err
						}
						if len(metas) > 0 && seed == 0 {
							seed = metas[0].Seed
						}
						tabs = append(tabs, rows)
					}
					in, err := table.InputHashes(c.Args().Slice()...)
					if err != nil {
						return err
					}
					return table.WriteFile(c.String("output"), report.MixGroups(tabs...), table.Meta{Command: table.CommandLine(), Seed: seed, Inputs: in})
				},
			},
			{
				Name:      "iteration",
				Usage:     "one line on a finished iteration: success, scaffold items and tokens, loss, KL, seconds",
				UsageText: "report iteration RUN K [--scaffold SNAP]",
				Flags:     []cli.Flag{&cli.StringFlag{Name: "scaffold", Usage: "the snapshot the iteration's rollout used"}},
				Action: func(c *cli.Context) error {
					if err := command.Args(c, 2, 2); err != nil {
						return err
					}
					k, err := strconv.Atoi(c.Args().Get(1))
					if err != nil || k < 0 {
						return command.Usagef("iteration %q is not a count", c.Args().Get(1))
					}
					s, err := report.Iteration(c.Args().Get(0), k, c.String("scaffold"))
					if err != nil {
						return err
					}
					fmt.Println(s)
					return nil
				},
			},
			{
				Name:      "run",
				Usage:     "a run's evaluations by iteration as a Markdown table",
				UsageText: "report run RUN",
				Action: func(c *cli.Context) error {
					if err := command.Args(c, 1, 1); err != nil {
						return err
					}
					r, err := report.Load(c.Args().First())
					if err != nil {
						return err
					}
					report.WriteRunMarkdown(os.Stdout, r)
					return nil
				},
			},
			{
				Name:      "compare",
				Usage:     "compare checkpoints of runs: success per split, score, tokens per episode",
				UsageText: "report compare LABEL=RUN[@K][+scaffold]... [--splits 'valid_seen valid_unseen']",
				Flags:     []cli.Flag{&cli.StringFlag{Name: "splits", Value: "valid_seen valid_unseen", Usage: "splits, space separated"}},
				Action: func(c *cli.Context) error {
					if err := command.Args(c, 1, -1); err != nil {
						return err
					}
					var es []report.Entry
					for _, a := range c.Args().Slice() {
						e, err := report.ParseEntry(a)
						if err != nil {
							return command.Usagef("%v", err)
						}
						es = append(es, e)
					}
					var b bytes.Buffer
					if err := report.WriteCompareMarkdown(&b, es, strings.Fields(c.String("splits"))); err != nil {
						return err
					}
					_, err := os.Stdout.Write(b.Bytes())
					return err
				},
			},
			{
				Name:      "sweep",
				Usage:     "mean and spread over seeds of each variant's final zero-scaffold evaluation, beside the paper's figures",
				UsageText: "report sweep --root runs/sweep --variants '...' --seeds '1 2 3' [-o results.parquet] [--runs runs.parquet] [--partial]",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "root", Value: "runs/sweep", Usage: "folder holding VARIANT-sSEED run folders"},
					&cli.StringFlag{Name: "variants", Required: true, Usage: "variants, space separated"},
					&cli.StringFlag{Name: "seeds", Required: true, Usage: "seeds, space separated"},
					&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the aggregated rows (sweep_result) here"},
					&cli.StringFlag{Name: "runs", Usage: "write the per-run rows (sweep_run) here"},
					&cli.BoolFlag{Name: "partial", Usage: "leave out unfinished runs (listed under the table) instead of failing"},
				},
				Action: sweep,
			},
			{
				Name:      "plots",
				Usage:     "PNG plots of a run: success.png, scaffold.png, primitives.png",
				UsageText: "report plots RUN [-o DIR]",
				Flags:     []cli.Flag{&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "folder for the PNG files (default RUN/plots)"}},
				Action: func(c *cli.Context) error {
					if err := command.Args(c, 1, 1); err != nil {
						return err
					}
					r, err := report.Load(c.Args().First())
					if err != nil {
						return err
					}
					dir := c.String("output")
					if dir == "" {
						dir = r.Dir + "/plots"
					}
					if err := os.MkdirAll(dir, 0o755); err != nil {
						return err
					}
					paths, err := report.Plots(r, dir)
					for _, p := range paths {
						fmt.Println(p)
					}
					return err
				},
			},
		},
	}
}

func sweep(c *cli.Context) error {
	variants := strings.Fields(c.String("variants"))
	var seeds []int64
	for _, s := range strings.Fields(c.String("seeds")) {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return command.Usagef("--seeds: %q is not a number", s)
		}
		seeds = append(seeds, n)
	}
	var runs []report.SweepRun
	var missing []string
	for _, v := range variants {
		for _, s := range seeds {
			r, err := report.LoadSweepRun(report.RunDir(c.String("root"), v, s), v, s)
			if err != nil {
				if !c.Bool("partial") {
					return err
				}
				missing = append(missing, fmt.Sprintf("%s seed %d", v, s))
				continue
			}
			runs = append(runs, r)
		}
	}
	res := report.Aggregate(runs, variants)
	meta := table.Meta{Command: table.CommandLine()}
	var u output.Unit
	defer u.Abort()
	if p := c.String("runs"); p != "" {
		if err := table.Stage(&u, p, runs, meta); err != nil {
			return err
		}
	}
	if p := c.String("output"); p != "" {
		if err := table.Stage(&u, p, res, meta); err != nil {
			return err
		}
	}
	if err := u.Commit(); err != nil {
		return err
	}
	var b bytes.Buffer
	report.WriteSweepMarkdown(&b, res, missing)
	_, err := os.Stdout.Write(b.Bytes())
	return err
}

package rollout

import (
	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/stage/deviceflag"
)

// The rollout command's options are declared here once (name, type,
// default, help), the policy's among them (PolicyFlags), and read here
// (From); Check and Resolve check them.

// Flags declares the rollout command's options.
func Flags() []cli.Flag {
	fs := []cli.Flag{
		deviceflag.Flag(),
		&cli.StringFlag{Name: "env", Value: "household", Usage: "environment: household, shop, searchqa, or exec:COMMAND"},
		&cli.StringFlag{Name: "split", Value: "train", Usage: "task split: train, valid_seen, valid_unseen (shop and searchqa: also test)"},
		&cli.IntFlag{Name: "tasks", Value: 0, Usage: "tasks drawn from the split with --seed; 0 runs the whole split in order"},
		&cli.IntFlag{Name: "group", Value: 1, Usage: "episodes per task (a GRPO group)"},
		&cli.Int64Flag{Name: "seed", Value: 1, Usage: "seed of task draw, environments and sampling"},
		&cli.StringFlag{Name: "shard", Usage: "run part i of n of the tasks, as i/n (0-based)"},
		&cli.StringFlag{Name: "policy", Value: "oracle", Usage: "oracle, random, or a checkpoint folder"},
		&cli.StringFlag{Name: "tokenizer", Usage: "a checkpoint folder whose tokenizer (and chat template) the oracle and random policies write with; default: the built-in one"},
		&cli.StringFlag{Name: "run", Usage: "run name recorded in every row"},
		&cli.IntFlag{Name: "iteration", Usage: "training iteration k recorded in every row"},
		&cli.BoolFlag{Name: "skills", Usage: "show a slate of skills from the environment's built-in library"},
		&cli.StringFlag{Name: "skills-dir", Usage: "a folder of SKILL.md folders to draw slates from (implies --skills)"},
		&cli.StringFlag{Name: "text-read", Usage: "with skills on, the skill oracle and random policies read first: right, random (drawn from the slate) or none; unset: right for the oracle, random for the random policy"},
		&cli.StringFlag{Name: "preread", Value: "none", Usage: "without --skills, a library skill's body before the first action, as if read: none, right (the type's right skill) or random (a library skill drawn per task); demonstrations for a base that reads"},
		&cli.StringFlag{Name: "hints", Value: "none", Usage: "rules about each task in the scaffold's place: none, right, misleading, irrelevant, or mixed (demonstrations for a base that reads; the household worlds)"},
		&cli.IntFlag{Name: "slate", Value: 16, Usage: "candidates per slate"},
		&cli.StringFlag{Name: "scaffold", Usage: "scaffold snapshot rendered into the context; without it no scaffold (deployment)"},
		&cli.IntFlag{Name: "scaffold-budget", Value: 400, Usage: "token budget of the rendered scaffold"},
	}
	fs = append(fs, PolicyFlags(RolloutDefaults)...)
	fs = append(fs,
		&cli.Float64Flag{Name: "invalid-penalty", Value: 0.1, Usage: "subtracted from the episode's reward for each answer without a well-formed <action> (chatml)"},
		&cli.IntFlag{Name: "batch", Value: 32, Usage: "episodes that decode together, one batched forward per token (checkpoint policies)"},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "output file, or - for an Arrow stream on stdout"},
	)
	return append(fs, stage.ProgressFlags()...)
}

// From reads the rollout command's options and checks them (Check).
func From(c *cli.Context) (Options, error) {
	if err := command.Args(c, 0, 0); err != nil {
		return Options{}, err
	}
	prog, err := stage.ProgressSettings(c)
	if err != nil {
		return Options{}, err
	}
	f := Options{
		Env: c.String("env"), Split: c.String("split"), Tasks: c.Int("tasks"), Group: c.Int("group"),
		Seed: c.Int64("seed"), Shard: c.String("shard"), Policy: c.String("policy"), Tokenizer: c.String("tokenizer"), Run: c.String("run"),
		Iteration: c.Int("iteration"), Skills: c.Bool("skills"), SkillsDir: c.String("skills-dir"),
		Slate: c.Int("slate"), TextRead: c.String("text-read"), Hints: c.String("hints"), Preread: c.String("preread"),
		Scaffold: c.String("scaffold"), ScaffoldBudget: c.Int("scaffold-budget"),
		PolicyOptions:  PolicyFrom(c),
		InvalidPenalty: c.Float64("invalid-penalty"), Batch: c.Int("batch"), Output: c.String("output"), Progress: prog,
		Device: c.String("device"),
	}
	return f, f.Check()
}

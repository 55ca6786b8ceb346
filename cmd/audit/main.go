// Command audit measures what training did: credit starvation of the
// skill-naming tokens (audit credit) and how far a policy has internalised
// its training scaffold (audit scaffold).
package main

import (
	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/stage/audit"
)

func main() { command.Main(app()) }

func app() *cli.App {
	return &cli.App{
		Name:  "audit",
		Usage: "credit-starvation and scaffold-internalisation diagnostics",
		Description: "Examples:\n" +
			"  audit credit traj/3.parquet --advantages adv/3.parquet -o audit/credit.parquet --plot audit/credit.png\n" +
			"  audit scaffold --policy ckpt/0,ckpt/5 --traj traj/5.parquet --scaffold snap/5.parquet -o audit/nll.parquet\n" +
			"  audit reading --policy ckpt/0 --env household --split valid_seen -o reading.parquet\n" +
			"  audit lift traj/3.parquet --without bare/3.parquet -o lift/3.parquet\n" +
			"  audit truth --scaffold snap/5.parquet --iteration 5 --env household-rl -o truth/5.parquet",
		HideHelpCommand: true,
		Commands: []*cli.Command{
			{
				Name:      "credit",
				Usage:     "how the credit of skill reads behaves as episodes lengthen",
				UsageText: "audit credit TRAJ... (or --traj TRAJ,...) --advantages adv.parquet -o credit.parquet [--plot credit.png] [--bins 4]",
				Description: "Joins trajectories with the per-token advantages learn grpo used (--advantages) and bins\n" +
					"the episodes by horizon, in steps and in tokens (about equal counts per bin). Per bin:\n" +
					"(1) the share of the absolute credit that lands on skill-name tokens (mean over episodes);\n" +
					"(2) the share of right reads whose credit is negative; (3) the mean sign of the credit of\n" +
					"right and of wrong reads. A read's credit is the mean advantage on its skill-name tokens.\n" +
					"(4) GiGPO's anchor coverage: the share of the bin's turns whose step key (step_keys) another\n" +
					"turn of the same group shares, that is, turns in a step group of two or more; (5) the mean\n" +
					"size of the step group of the bin's turns (1 for a turn alone in its state).\n" +
					"Each measure's Spearman rank correlation with the horizon is taken over all episodes or\n" +
					"reads. Prints a Markdown table.\n\n" +
					"Examples:\n" +
					"  learn grpo --init ckpt/3 --ref ckpt/0 traj/3.parquet -o ckpt/4 --advantages adv/3.parquet\n" +
					"  audit credit traj/3.parquet --advantages adv/3.parquet -o audit/credit.parquet --plot audit/credit.png",
				Flags:  audit.CreditFlags(),
				Action: stage.Action(audit.CreditFrom, audit.RunCredit),
			},
			{
				Name:      "scaffold",
				Usage:     "NLL of the policy's tokens with and without the scaffold, per checkpoint",
				UsageText: "audit scaffold --policy ckpt/0,ckpt/5 --traj traj.parquet [--scaffold snap.parquet] -o nll.parquet [--plot nll.png]",
				Description: "For each checkpoint, the mean negative log-likelihood (nats per token) of the policy-written\n" +
					"tokens of the episodes that carry a scaffold, once with the scaffold tokens in the context\n" +
					"and once with them removed; the gap (without - with) and its relative change from the first\n" +
					"checkpoint. A shrinking gap means the policy no longer needs the scaffold to act as it does.\n" +
					"--scaffold names the snapshot the trajectories were made with; it is recorded (hash) only,\n" +
					"since the trajectories' scaffold tokens are what is removed. Prints a Markdown table.\n\n" +
					"Examples:\n" +
					"  audit scaffold --policy ckpt/0 --policy ckpt/5 --policy ckpt/10 --traj traj/10.parquet --scaffold snap/10.parquet -o audit/nll.parquet --plot audit/nll.png",
				Flags:  audit.ScaffoldFlags(),
				Action: stage.Action(audit.ScaffoldFrom, audit.RunScaffold),
			},
			{
				Name:      "reading",
				Usage:     "does the policy act on the text in its context: success with no extra text, right and misleading rules, right and wrong skill bodies",
				UsageText: "audit reading --policy CKPT --env household --split valid_seen [--tasks N] -o reading.parquet",
				Description: "Plays the same tasks and episode seeds once per condition: none (no extra text), right-hint\n" +
					"(the environment's right rules about the task, rendered like the scaffold's Task layer),\n" +
					"misleading-hint (false rules of the same form), right-skill (the right skill's body in the\n" +
					"context before the first action, as if read) and wrong-skill (a misleading skill's body).\n" +
					"With --skills every condition shows a slate and the skill conditions make the first action\n" +
					"read the right skill or a misleading one of the slate instead.\n" +
					"A policy that reads does better with right text than with none, and worse with misleading\n" +
					"text. Writes one row per condition and prints a Markdown table: success, its 95% Wilson\n" +
					"interval, the difference from none, steps and tokens per episode. The hint conditions need\n" +
					"an environment that states rules (household, household-rl), the skill conditions a skill\n" +
					"library (the environment's built-in one, or --skills-dir).\n\n" +
					"Examples:\n" +
					"  audit reading --policy runs/base-reading/ckpt/0 --env household --split valid_seen -o reading.parquet\n" +
					"  audit reading --policy oracle --env household-rl --split valid_unseen --tasks 40 -o reading-oracle.parquet",
				Flags:  audit.ReadingFlags(),
				Action: stage.Action(audit.ReadingFrom, audit.RunReading),
			},
			{
				Name:      "lift",
				Usage:     "does the scaffold lift the success of the policy that plays with it",
				UsageText: "audit lift TRAJ... (or --traj TRAJ,...) --without BARE.parquet -o lift.parquet",
				Description: "Pairs an iteration's rollouts with the scaffold (TRAJ) with the same groups played again by\n" +
					"the same checkpoint with no scaffold (--without: rollout with the same --tasks, --group and\n" +
					"--seed, and no --scaffold), episode by episode (task and sample; their episode seeds must\n" +
					"agree). Per task type and overall: success with and without, the lift (the mean per-task\n" +
					"difference) with a 95% percentile bootstrap over tasks, and the share of groups where every\n" +
					"episode failed on each side. A measure of the PATS loop only: nothing in the loop reads it.\n" +
					"Prints a Markdown table.\n\n" +
					"Examples:\n" +
					"  rollout --env household-rl --split train --tasks 8 --group 8 --seed 3 --policy ckpt/3 -o bare/3.parquet\n" +
					"  audit lift traj/3.parquet --without bare/3.parquet -o lift/3.parquet",
				Flags:  audit.LiftFlags(),
				Action: stage.Action(audit.LiftFrom, audit.RunLift),
			},
			{
				Name:      "truth",
				Usage:     "are the scaffold's items true of the environment, and which of its rules do they state",
				UsageText: "audit truth --scaffold snap/K.parquet --iteration K --env ENV -o truth.parquet [--rules rules.parquet]",
				Description: "Judges every item of a snapshot against the rules the environment knows about itself (the\n" +
					"right rules that hold for most train tasks of a type: in household-rl where each type's goal\n" +
					"objects are kept and which appliance heats, cools and cleans): true, false, or not judgeable\n" +
					"(no claim the environment can check). --rules writes each of the environment's rules with\n" +
					"the items that state it. Prints precision (true over judgeable items) and recall (rules\n" +
					"stated over rules). Environments that do not judge (shop, searchqa, exec:) answer not\n" +
					"judgeable for every item. A measure of the PATS loop only: nothing in the loop reads it.\n\n" +
					"Examples:\n" +
					"  audit truth --scaffold snap/5.parquet --iteration 5 --env household-rl -o truth/5.parquet --rules truth/5-rules.parquet",
				Flags:  audit.TruthFlags(),
				Action: stage.Action(audit.TruthFrom, audit.RunTruth),
			},
		},
	}
}

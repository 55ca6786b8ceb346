// Command learn trains a policy checkpoint: supervised fine-tuning on
// demonstrations (learn sft) or a GRPO update on rollouts (learn grpo).
package main

import (
	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/stage"
	"github.com/pats-rl/pats/lib/stage/learn"
)

func main() { command.Main(app()) }

func app() *cli.App {
	return &cli.App{
		Name:  "learn",
		Usage: "train a checkpoint: sft on demonstrations, grpo on rollouts, merge a LoRA adapter",
		Description: "Examples:\n" +
			"  learn sft --init tiny --traj demos.parquet -o ckpt/0 --metrics metrics/sft.parquet\n" +
			"  learn grpo --init ckpt/3 --ref ckpt/0 traj/3.parquet -o ckpt/4 --metrics metrics/4.parquet --credit skillgate",
		HideHelpCommand: true,
		Commands: []*cli.Command{
			{
				Name:      "sft",
				Usage:     "supervised fine-tuning on the policy-written tokens of trajectories",
				UsageText: "learn sft --init tiny|small|CKPT --traj demos.parquet -o ckpt/0 [--epochs N --batch-tokens N --lr X --seed N --metrics m.parquet]",
				Description: "Minimises the next-token loss of the policy-written tokens (roles action and skill name)\n" +
					"of the given trajectories; every other token is context. Minibatches hold whole sequences up\n" +
					"to --batch-tokens tokens in all, in a seeded shuffle per epoch; AdamW with gradient clipping,\n" +
					"linear warmup then cosine decay. Writes a Hugging Face checkpoint folder with tokenizer.json\n" +
					"(the built-in tokenizer for tiny and small, else the init checkpoint's) and optimizer state.\n" +
					"Trajectories made with another tokenizer are refused.\n\n" +
					"Examples:\n" +
					"  rollout --env household --tasks 64 --group 1 --policy oracle -o demos.parquet\n" +
					"  learn sft --init tiny --traj demos.parquet -o ckpt/0 --epochs 3 --metrics sft.parquet\n" +
					"  learn sft --init ckpt/0 --traj more.parquet --lr 3e-4 -o ckpt/0b",
				Flags:  learn.SFTFlags(),
				Action: stage.Action(learn.SFTFrom, learn.RunSFT),
			},
			{
				Name:      "grpo",
				Usage:     "one GRPO update of a checkpoint on its own rollouts",
				UsageText: "learn grpo --init ckpt/k --ref ckpt/0 traj/k.parquet... -o ckpt/k+1 [--metrics m.parquet --advantages adv.parquet --credit broadcast|skillgate ...]",
				Description: "Group-relative advantages (episodes with one group_id normalised by the group's mean and\n" +
					"std; --adv-norm mean: mean only; a group whose rewards are all equal gives no outcome\n" +
					"credit), a PPO clipped surrogate on the policy-written tokens with the ratio taken against\n" +
					"the trajectories' behaviour log-probabilities, plus --kl times the k3 KL estimate to --ref.\n" +
					"--credit skillgate sends the outcome advantage to execution tokens only and a selection\n" +
					"advantage to skill-name tokens only: with --select-baseline group (the default) each read\n" +
					"action's utility (1 when the episode's single read is the right skill, else 0) minus the\n" +
					"mean utility of the group's read actions, its loss term scaled by --select-coef; with\n" +
					"--select-baseline none +select-coef for a single right read, -select-coef otherwise. With\n" +
					"--select-norm channel (the default) the selection tokens form a loss term of their own,\n" +
					"averaged apart from the execution tokens. --drop-flat-groups leaves groups whose rewards\n" +
					"are all equal out of the update.\n" +
					"--credit gigpo (broadcast with --step-credit gigpo; a --step-credit none beside it is refused),\n" +
					"or --step-credit gigpo beside --credit skillgate, adds GiGPO's step-level\n" +
					"advantage: each turn's discounted return (--gamma) relative to the group's turns that\n" +
					"acted from the same state (step_keys), normalised as --adv-norm says, times --step-weight,\n" +
					"on the execution tokens of that turn (never on skill-name tokens under skillgate).\n" +
					"The optimizer state of --init carries over.\n" +
					"Log-probabilities are taken under the rule the trajectories record (temperature, top_p,\n" +
					"top_k, repetition_penalty): log softmax(logits / temperature) over the whole vocabulary, as\n" +
					"rollout recorded them, so the first step's ratio is 1; trajectories sampled under different\n" +
					"rules are refused. Trajectories played by other weights than --init's (policy_hash) are\n" +
					"refused unless --off-policy.\n" +
					"--lora-rank R trains a LoRA adapter (PEFT's layout) on the frozen --init instead of every weight;\n" +
					"the KL's reference is then the base with the adapter off (--ref may be left out), and an adapter\n" +
					"checkpoint as --init continues its adapter. --recompute recomputes each layer in the backward.\n\n" +
					"Examples:\n" +
					"  learn grpo --init ckpt/0 --ref ckpt/0 traj/0.parquet -o ckpt/1 --metrics metrics/1.parquet\n" +
					"  learn grpo --init ckpt/3 --ref ckpt/0 traj/3/ -o ckpt/4 --credit skillgate --advantages adv/3.parquet\n" +
					"  learn grpo --init ckpt/3 --ref ckpt/0 traj/3/ -o ckpt/4 --credit gigpo --gamma 0.95 --advantages adv/3.parquet\n" +
					"  learn grpo --init ckpt/3 --ref ckpt/0 traj/3/ -o ckpt/4 --credit skillgate --step-credit gigpo\n" +
					"  learn grpo --init ckpt/3 --ref ckpt/0 traj/3.parquet -o ckpt/4 --loss-agg token-mean --epochs 2 --minibatch 16\n" +
					"  learn grpo --init ckpt/0 traj/0.parquet -o ckpt/1 --lora-rank 64 --recompute",
				Flags:  learn.GRPOFlags(),
				Action: stage.Action(learn.GRPOFrom, learn.RunGRPO),
			},
			{
				Name:      "merge",
				Usage:     "fold a LoRA adapter into its base: a full checkpoint",
				UsageText: "learn merge --adapter ckpt/k -o merged/k [--dtype f32|bf16]",
				Description: "Reads a LoRA adapter checkpoint (adapter_config.json and adapter_model.safetensors, as\n" +
					"learn sft and learn grpo --lora-rank write them) and its base checkpoint, adds\n" +
					"(lora_alpha/r) B A to each targeted weight, and writes a full Hugging Face checkpoint with\n" +
					"the adapter's tokenizer files and a provenance.json naming the adapter and its base. No\n" +
					"optimizer state is written.\n\n" +
					"Examples:\n" +
					"  learn merge --adapter ckpt/3 -o merged/3\n" +
					"  learn merge --adapter ckpt/3 -o merged/3 --dtype bf16",
				Flags:  learn.MergeFlags(),
				Action: stage.Action(learn.MergeFrom, learn.RunMerge),
			},
		},
	}
}

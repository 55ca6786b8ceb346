#!/usr/bin/env bash
# SkillGate against broadcast credit on household with a skill slate of 16:
# one warm-up SFT on oracle demonstrations whose first read is drawn at
# random from the slate (so which skill to read is left to be learned), then
# ITERS GRPO iterations under each credit, SEEDS seeds each, and the
# evaluation of every final checkpoint on valid_seen and valid_unseen.
# Usage: [CREDITS="broadcast skillgate"] scripts/skillgate-experiment.sh OUT [ITERS] [TASKS] [GROUP] [SEEDS...]
set -euo pipefail
out=${1:?usage: $0 OUT [ITERS] [TASKS] [GROUP] [SEEDS...]}
iters=${2:-4}; tasks=${3:-16}; group=${4:-8}; shift $(( $# < 4 ? $# : 4 )) || true
seeds=${*:-1 2 3}
bin=$(cd "$(dirname "$0")/.." && pwd)/bin
mkdir -p "$out"
[ -f "$out/demos.parquet" ] || "$bin/rollout" --env household --split train --tasks 1500 --group 1 \
  --policy oracle --skills --text-read random --seed 11 -o "$out/demos.parquet"
[ -f "$out/ckpt0/config.json" ] || "$bin/learn" sft --init tiny --demos "$out/demos.parquet" -o "$out/ckpt0" \
  --epochs 4 --batch-tokens 2048 --lr 2e-3 --metrics "$out/sft.parquet"
for credit in ${CREDITS:-broadcast skillgate}; do
  for seed in $seeds; do
    run="$out/$credit-s$seed"; mkdir -p "$run"
    prev="$out/ckpt0"
    for k in $(seq 0 $((iters - 1))); do
      next="$run/ckpt$((k + 1))"
      if [ ! -f "$next/config.json" ]; then
        "$bin/rollout" --env household --split train --tasks "$tasks" --group "$group" --policy "$prev" \
          --skills --seed $((seed * 1000 + k)) --iteration "$k" --run "$credit-s$seed" -o "$run/traj$k.parquet"
        "$bin/learn" grpo --init "$prev" --ref "$out/ckpt0" "$run/traj$k.parquet" -o "$next" \
          --credit "$credit" --lr 2e-4 --minibatch 32 --metrics "$run/m$k.parquet" --advantages "$run/adv$k.parquet"
      fi
      prev="$next"
    done
    for split in valid_seen valid_unseen; do
      [ -f "$run/eval-$split.parquet" ] || "$bin/evaluate" --policy "$prev" --env household --split "$split" \
        --skills --seed "$seed" -o "$run/eval-$split.parquet" --trajectories "$run/evaltraj-$split.parquet" > /dev/null
    done
  done
done
echo "done: $out"

#!/usr/bin/env bash
# Packs every finished run of a sweep (a run folder with summary.md; the
# shared warm-ups are not runs) into DEST/RUN.tar.xz, once: everything the
# tables, plots and audits read (trajectories, advantages, evaluations,
# snapshots, controller states, metrics, audits, logs, settings) with the
# files' times, and no weights (ckpt/K keeps config.json and agent.json,
# not model.safetensors, the optimizer or the tokenizer). A run's `audit
# scaffold` needs its checkpoints, so a pats run is packed only once
# scripts/sweep-audits.sh has written its scaffold audits. The archives let
# a sweep that runs in parts on machines that do not keep runs/ go on
# elsewhere: scripts/sweep-restore.sh unpacks them, `make sweep-rest` runs
# what is left and `make sweep-report` makes the tables (sweep.mk).
#
# Usage: scripts/sweep-archive.sh SWEEP [DEST]     (DEST: results/NAME of runs/NAME)
#   scripts/sweep-archive.sh runs/s32
set -euo pipefail
sweep=${1:?usage: $0 SWEEP [DEST]}
dest=${2:-results/$(basename "$sweep")}
[ -d "$sweep" ] || { echo "$0: $sweep: not a folder" >&2; exit 2; }
mkdir -p "$dest"
packed=0 kept=0 waiting=""
for run in "$sweep"/*; do
  name=$(basename "$run")
  [ -f "$run/summary.md" ] || continue
  case $name in warmup-*) continue ;; esac
  out=$dest/$name.tar.xz
  if [ -f "$out" ]; then
    kept=$((kept + 1))
    continue
  fi
  case $name in
    pats-s* | pats-gigpo-s*)
      if ! ls "$run"/audit/scaffold-*.parquet > /dev/null 2>&1; then
        waiting="$waiting $name"
        continue
      fi ;;
  esac
  # -h: a run folder may be a link (a sweep assembled from runs elsewhere)
  tar -C "$sweep" -chf - --sort=name --owner=0 --group=0 --numeric-owner \
    --exclude='*.safetensors' --exclude=optimizer.json --exclude=tokenizer.json \
    --exclude='*.tmp' --exclude='.*' "$name" | xz -9 -T1 > "$out.tmp"
  mv "$out.tmp" "$out"
  packed=$((packed + 1))
done
echo "$0: $packed runs packed into $dest, $kept there already"
if [ -n "$waiting" ]; then
  echo "$0: not packed, no scaffold audit yet (scripts/sweep-audits.sh $sweep ITERS first):$waiting" >&2
fi

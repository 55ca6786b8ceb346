#!/usr/bin/env bash
# SkillGate against broadcast credit on household with a skill slate of 16,
# as the sweep's skillgate and broadcast variants (pipelines/pats.mk: GRPO
# with skills, no scaffold; with BASE_SKILLS, one shared base whose
# demonstrations read the right skill first in half of the episodes and a
# random slate skill in the other half), then the credit audit of every run over all its iterations.
# Sizes are the sweep's Make variables, passed through.
#
# Usage: scripts/skillgate-experiment.sh SWEEP [MAKE VARIABLES...]
#   scripts/skillgate-experiment.sh runs/sweep3 SEEDS="1 2 3" ITERS=4 TASKS=8 GROUP=8 \
#     BASE=sweep3/warmup-none-s1 BASE_SKILLS=sweep3/warmup-skills-s1
set -euo pipefail
sweep=${1:?usage: $0 SWEEP [MAKE VARIABLES...]}
shift
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
make --no-print-directory -j2 sweep SWEEP="$sweep" VARIANTS="skillgate broadcast" "$@"
for run in "$sweep"/skillgate-s* "$sweep"/broadcast-s*; do
  [ -d "$run/adv" ] || continue
  mkdir -p "$run/audit"
  if [ ! -f "$run/audit/credit.md" ]; then
    bin/audit credit "$run/traj" --advantages "$run/adv" -o "$run/audit/credit.parquet" \
      --plot "$run/audit/credit.png" > "$run/audit/credit.md.tmp"
    mv "$run/audit/credit.md.tmp" "$run/audit/credit.md"
  fi
  echo "== $run"
  cat "$run/audit/credit.md"
done

#!/bin/bash
# Submit a sweep as one Slurm array (sweep.sbatch), sized from the variant
# and seed lists: one array task per (variant, seed), so no pair is dropped
# and no task idles. Prints the job id.
#
#   pipelines/slurm/submit-sweep.sh                               # every variant x seeds 1 2 3
#   VARIANTS="pats grpo" SEEDS="1 2" pipelines/slurm/submit-sweep.sh
#
# Variables: VARIANTS [every variant of pipelines/sweep.mk], SEEDS ["1 2 3"],
# SBATCH_OPTS (partition, account, ...), and those of sweep.sbatch.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# The default list is sweep.mk's ALL_VARIANTS, read from it.
all=$(sed -n 's/^ALL_VARIANTS *:= *//p' "$here/../sweep.mk")
export VARIANTS="${VARIANTS:-$all}" SEEDS="${SEEDS:-1 2 3}"
read -r -a variants <<< "$VARIANTS"
read -r -a seeds <<< "$SEEDS"
n=$(( ${#variants[@]} * ${#seeds[@]} ))
if (( n == 0 )); then
  echo "submit-sweep.sh: no variants or no seeds" >&2
  exit 2
fi
# shellcheck disable=SC2086
sbatch --parsable ${SBATCH_OPTS:-} --export=ALL --array=0-$(( n - 1 )) "$here/sweep.sbatch"

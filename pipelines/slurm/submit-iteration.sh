#!/bin/bash
# Submit one large iteration k of a run to Slurm: the rollout sharded over
# an array of SHARDS tasks (rollout-shard.sbatch), then the update job
# (update.sbatch) once every shard succeeded. The run folder must hold
# ckpt/k (and snap/k unless NO_SCAFFOLD=1), e.g. from `make pats` up to
# ckpt/0 and snap/0. Prints the two job ids.
#
#   R=runs/big K=0 SHARDS=8 TASKS=128 GROUP=8 pipelines/slurm/submit-iteration.sh
#
# Extra sbatch options (partition, account, ...) go in SBATCH_OPTS.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${R:?R: the run folder}" "${K:?K: the iteration}"
shards=${SHARDS:-4}
export OUT="$R/traj/$K" POLICY="$R/ckpt/$K" ITERATION="$K" R K SHARDS="$shards"
[[ ${NO_SCAFFOLD:-0} == 1 ]] || export SCAFFOLD="${SCAFFOLD:-$R/snap/$K.parquet}"
export SEED="${SEED:-$(( 1000 + K ))}"
# shellcheck disable=SC2086
roll=$(sbatch --parsable ${SBATCH_OPTS:-} --export=ALL --array=0-$(( shards - 1 )) "$here/rollout-shard.sbatch")
# shellcheck disable=SC2086
upd=$(sbatch --parsable ${SBATCH_OPTS:-} --export=ALL --dependency=afterok:"${roll%%;*}" "$here/update.sbatch")
echo "$roll $upd"

#!/bin/bash
# Integration test of the Slurm scripts against a real single-node Slurm
# (Debian's slurmctld, slurmd and munge), configured and started here:
#
#   1. installs slurm-wlm and munge when missing (apt-get; needs root);
#   2. writes a slurm.conf for this machine (its CPUs and memory) under
#      $WORK, starts munged (unless one answers), slurmctld and slurmd;
#   3. builds the binaries, submits a 2-task array of a tiny sweep
#      (sweep.sbatch: pats and grpo, seed 1) and waits for it (bounded);
#   4. checks both runs finished (summary, final checkpoint, evaluations),
#      then shards one rollout over a 2-task array and runs the update job
#      after it (submit-iteration.sh) and checks ckpt/k+1 and snap/k+1;
#   5. stops the daemons it started (munged only if it started it).
#
# Idempotent: a rerun starts from a fresh $WORK. Safe as root in CI: it
# touches only $WORK (default /tmp/pats-slurm-test), the munge key when none
# exists, and the processes it started (by their pid files).
# Usage: pipelines/slurm/test/run.sh   (from anywhere; TIMEOUT=seconds [900])
set -euo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
WORK=${WORK:-/tmp/pats-slurm-test}
TIMEOUT=${TIMEOUT:-900}
log() { echo "slurm-test: $*"; }
fail() { echo "slurm-test: FAIL: $*" >&2; exit 1; }

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null || ! command -v sbatch >/dev/null; then
  [[ $(id -u) == 0 ]] || fail "slurm-wlm and munge are not installed and I am not root to install them"
  log "installing slurm-wlm and munge"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm munge >/dev/null ||
    { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm munge >/dev/null; }
fi
[[ $(id -u) == 0 ]] || fail "the daemons need root (slurmd runs jobs as their user)"

# Stop what an earlier run of this script left, by its pid files only.
stop_daemons() {
  for f in "$WORK"/run/slurmd.pid "$WORK"/run/slurmctld.pid "$WORK"/munge/munged.pid; do
    [[ -s $f ]] && kill "$(cat "$f")" 2>/dev/null || true
  done
  sleep 1
}
if [[ -d $WORK ]]; then stop_daemons; rm -rf "$WORK"; fi
mkdir -p "$WORK"/{etc,run,state,spool,log,repo}
chmod 755 "$WORK"
trap 'rc=$?; stop_daemons; if (( rc )); then for f in "$WORK"/log/*.log "$WORK"/repo/slurm-*.out; do [[ -f $f ]] && { echo "== $f"; tail -n 30 "$f"; }; done; fi; exit $rc' EXIT

# munge: a key if none, and a daemon if none answers.
if ! munge -n </dev/null >/dev/null 2>&1; then
  if [[ ! -s /etc/munge/munge.key ]]; then
    mungekey --create --keyfile /etc/munge/munge.key 2>/dev/null || dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
    chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
  fi
  mkdir -p /run/munge && chown munge:munge /run/munge
  mkdir -p "$WORK/munge" && chown munge:munge "$WORK/munge"
  runuser -u munge -- /usr/sbin/munged --pid-file="$WORK/munge/munged.pid" || fail "munged did not start"
  sleep 1
  munge -n </dev/null >/dev/null || fail "munge does not answer"
fi

host=$(hostname -s)
cpus=$(nproc)
mem=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 512 ))
export SLURM_CONF=$WORK/etc/slurm.conf
cat > "$SLURM_CONF" <<CONF
ClusterName=patstest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$WORK/run/slurmctld.pid
SlurmdPidFile=$WORK/run/slurmd.pid
SlurmctldLogFile=$WORK/log/slurmctld.log
SlurmdLogFile=$WORK/log/slurmd.log
SlurmctldPort=16817
SlurmdPort=16818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
: > "$WORK/etc/cgroup.conf"  # defaults: slurmd only probes cgroups (proctrack/linuxproc, task/none)

log "starting slurmctld and slurmd ($cpus CPUs, ${mem} MB)"
slurmctld -i -f "$SLURM_CONF" || fail "slurmctld did not start"
slurmd -f "$SLURM_CONF" || fail "slurmd did not start"
for _ in $(seq 60); do
  sinfo -h -o '%t' 2>/dev/null | grep -qE '^(idle|mix|alloc)' && break
  sleep 1
done
sinfo -h -o '%t' | grep -qE '^(idle|mix|alloc)' || fail "the node did not come up: $(sinfo -h 2>&1)"

# A copy of the tree's Make files with freshly built binaries: the jobs run there.
log "building the binaries"
(cd "$repo" && go build -o "$WORK/repo/bin/" ./cmd/...)
cp -r "$repo/Makefile" "$repo/pipelines" "$WORK/repo/"
cd "$WORK/repo"

sizes="ITERS=1 TASKS=2 GROUP=2 BOOT_TASKS=6 DEMO_TASKS=4 SFT_EPOCHS=1 SFT_BATCH=1024 EVAL_TASKS=1 MAX_CONTEXT=384"
deadline=$(( $(date +%s) + TIMEOUT ))
wait_job() { # wait_job JOBID: until it leaves the queue, bounded by the deadline
  while squeue -h -j "$1" 2>/dev/null | grep -q .; do
    if squeue -h -j "$1" -o '%r' 2>/dev/null | grep -q DependencyNeverSatisfied; then
      scancel "$1"; fail "job $1 waits on a job that failed"
    fi
    (( $(date +%s) < deadline )) || { scancel "$1"; fail "job $1 still running after ${TIMEOUT}s"; }
    sleep 3
  done
}

log "submitting a 2-task array of a tiny sweep (pats and grpo, seed 1)"
job=$(VARIANTS="pats grpo" SEEDS="1" PATS_SIZES="$sizes" MAKE_JOBS=1 \
  sbatch --parsable --export=ALL --array=0-1 --cpus-per-task=1 --mem=1G pipelines/slurm/sweep.sbatch)
wait_job "$job"
for v in pats grpo; do
  r=runs/sweep/$v-s1
  for f in summary.md ckpt/1/config.json eval/1/bare-valid_seen.parquet traj/0.parquet; do
    [[ -s $r/$f ]] || fail "array task for $v did not produce $r/$f"
  done
done
[[ -s runs/sweep/pats-s1/snap/1.parquet ]] || fail "the pats run has no snap/1"
state=$(sacct -n -X -j "$job" -o State 2>/dev/null | sort -u | tr -d ' ' | tr '\n' ' ' || true)
log "sweep array $job done (${state:-no accounting})"
bin/report sweep --root runs/sweep --variants 'pats grpo' --seeds 1 || fail "report sweep over the array's runs"

log "sharding the rollout of iteration 1 over a 2-task array, then the update job"
ids=$(R=runs/sweep/pats-s1 K=1 SHARDS=2 TASKS=2 GROUP=2 ROLLOUT_FLAGS="--max-context 384" \
  SBATCH_OPTS="--cpus-per-task=1 --mem=1G" pipelines/slurm/submit-iteration.sh)
read -r roll upd <<< "$ids"
wait_job "$roll"
wait_job "$upd"
for f in traj/1/part-0000.parquet traj/1/part-0001.parquet ckpt/2/config.json snap/2.parquet metrics/grpo-1.parquet; do
  [[ -s runs/sweep/pats-s1/$f ]] || fail "the sharded iteration did not produce $f"
done
n=$(bin/evaluate runs/sweep/pats-s1/traj/1 | awk -F'|' '/\*\*all\*\*/ {gsub(/ /, "", $3); print $3}')
[[ $n == 4 ]] || fail "the two shards hold $n episodes, want 4 (2 tasks x group 2)"
log "PASS"

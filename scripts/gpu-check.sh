#!/bin/bash
# The one prepared command for a machine with an NVIDIA GPU (docs/cuda.md,
# "The GPU check"). It needs nvcc and, built beforehand on a machine with
# Go (`make gpu-tests`), the parity test binaries build/gpu/*.test and the
# benchmark build/gpu/gpubench; no Go toolchain and no network.
#
#   1. gpu: the GPU and nvcc (nvidia-smi, nvcc --version);
#   2. build-library: bin/libpatscuda.so for this GPU's architecture
#      (machine code and PTX), with make or nvcc directly;
#   3. test-NAME: every build/gpu/NAME.test (-test.v) from the repository
#      root with PATS_CUDA_LIB pointing at the library (the whole-model
#      parity runs tiny, small, the Qwen3 shape qwen3-small and the 0.5B
#      shape);
#   4. memcheck, racecheck: compute-sanitizer's memcheck and racecheck over
#      the kernel tests (-test.short), when compute-sanitizer is present;
#   5. hf-logits: scripts/hf-logits.py over the checkpoints the parity
#      suite exported (transformers against our logits); a missing Python
#      package is one line and the step is skipped;
#   6. gpubench: build/gpu/gpubench -budget (what is left) -o bench/gpu.md.
#
# Time. The whole check is bounded by GPU_CHECK_SECONDS (default 450 s
# since issue 60 added LoRA, recompute and the 7B and 8B updates, so that
# the check itself stays under 8 minutes). Each step's limit is computed from the time
# left, keeping a reserve for every later step that will run; a step that
# runs out of time is recorded as tmout and the check goes on.
#
# Output. $OUT (default build/gpu/out) comes back from the GPU machine and
# gets only small files: summary.txt (one line per step: name, pass / FAIL /
# tmout / skip / part, seconds, a note; then the result), gpu.txt, parity.txt,
# gpu.md and steps.log, every step's log cut to its first and last lines
# (five files: the GPU machine returns at most 8). Large files (exported checkpoints, full logs) go to the
# scratch folder $GPU_CHECK_SCRATCH (default ${TMPDIR:-/tmp}/pats-gpu-scratch),
# which the parity suite gets as PATS_GPU_SCRATCH.
#
# --dry-run runs the same script with the CPU standing in for the GPU:
# no GPU, nvcc or library is needed or built; the test binaries run with
# PATS_PARITY_DRYRUN=1 (lib/device's parity suite on model.CPU and
# model.NewHostAccelerator); the sanitizer and the benchmark, which need a
# GPU, are recorded as skipped; the summary has the same form.
#
# Exit 0 when no step failed or timed out, 1 when one did, 2 (one line)
# when there is no GPU, no nvcc or no prepared binaries.
# Usage: scripts/gpu-check.sh [--dry-run]   (from anywhere)
# Overridable: OUT, GPU_CHECK_SECONDS, GPU_CHECK_BIN (the prepared
# binaries' folder, default build/gpu), GPU_CHECK_CARRY (the same binaries
# xz-compressed, as the device tool carries them, default build/gpucarry:
# each one missing from GPU_CHECK_BIN, or older there, is unpacked there), GPU_CHECK_SCRATCH.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo" || exit 2
dry=0
case "${1:-}" in
--dry-run) dry=1 ;;
"") ;;
*)
  echo "gpu-check: unknown argument ${1} (usage: scripts/gpu-check.sh [--dry-run])" >&2
  exit 2
  ;;
esac
budget=${GPU_CHECK_SECONDS:-450}
if ! [[ $budget =~ ^[0-9]+$ ]] || ((budget < 10)); then
  echo "gpu-check: GPU_CHECK_SECONDS=$budget is not a number of seconds of at least 10" >&2
  exit 2
fi
start=$(date +%s)
left() { echo $((budget - ($(date +%s) - start))); }
log() { echo "gpu-check: $*"; }
bin=${GPU_CHECK_BIN:-build/gpu}

# Refusals: one line, exit 2.
shopt -s nullglob
# The binaries as carried (make gpu-tests writes build/gpucarry/*.xz):
# unpacked into $bin where they are missing there or older than the
# archive (a warm machine keeps the last call's unpacked binaries).
for z in "${GPU_CHECK_CARRY:-build/gpucarry}"/*.xz; do
  b=$bin/$(basename "$z" .xz)
  [[ -x $b && $b -nt $z ]] && continue
  mkdir -p "$bin"
  if command -v xz >/dev/null; then
    xz -dc "$z" >"$b.part"
  else
    python3 -c 'import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' "$z" "$b.part"
  fi && chmod +x "$b.part" && mv "$b.part" "$b" || { echo "gpu-check: cannot unpack $z" >&2; rm -f "$b.part"; exit 2; }
done
tests=("$bin"/*.test)
if ((${#tests[@]} == 0)) || [[ ! -x $bin/gpubench ]]; then
  echo "gpu-check: no prepared binaries ($bin/*.test and $bin/gpubench): run make gpu-tests on a machine with Go first" >&2
  exit 2
fi
if ((!dry)); then
  if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    echo "gpu-check: no NVIDIA GPU here (nvidia-smi lists none); nothing run (scripts/gpu-check.sh --dry-run runs the check on the CPU)" >&2
    exit 2
  fi
  for d in /usr/local/cuda/bin /usr/local/cuda-*/bin; do
    [[ -x $d/nvcc ]] && ! command -v nvcc >/dev/null && PATH=$d:$PATH
  done
  if ! command -v nvcc >/dev/null; then
    echo "gpu-check: no nvcc on PATH or under /usr/local/cuda*: cannot build the library" >&2
    exit 2
  fi
fi

export PATS_GPU_OUT=${OUT:-$repo/build/gpu/out}
export PATS_GPU_SCRATCH=${GPU_CHECK_SCRATCH:-${TMPDIR:-/tmp}/pats-gpu-scratch}
mkdir -p "$PATS_GPU_OUT" "$PATS_GPU_SCRATCH/logs" || exit 2
rm -f "$PATS_GPU_OUT/parity.txt" "$PATS_GPU_OUT/steps.log"
[[ $dry == 1 ]] && export PATS_PARITY_DRYRUN=1
summary=$PATS_GPU_OUT/summary.txt
mode=gpu
((dry)) && mode="dry run (the CPU stands in for the GPU)"
{
  echo "gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ), $mode, budget ${budget}s"
  echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
} >"$summary"
failed=0
ran=0

record() { # name status seconds note
  printf '%-16s %-5s %4ss  %s\n' "$1" "$2" "$3" "${4:-}" | tee -a "$summary"
  [[ $2 == FAIL || $2 == tmout ]] && failed=1
  return 0
}

# keep_log NAME: the step's full log stays in scratch; $PATS_GPU_OUT's one
# steps.log gets, under a header line, at most its first 1,000 and last
# 3,000 lines, each cut to 400 bytes (the machine returns at most 8 files,
# so the steps share one).
keep_log() {
  local full=$PATS_GPU_SCRATCH/logs/$1.log dst=$PATS_GPU_OUT/steps.log n
  n=$(wc -l <"$full")
  echo "=== $1 ($n lines) ===" >>"$dst"
  if ((n > 4000)); then
    {
      head -n 1000 "$full"
      echo "... ($((n - 4000)) lines left out; the whole log is $full on the GPU machine) ..."
      tail -n 3000 "$full"
    } | cut -c1-400 >>"$dst"
  else
    cut -c1-400 "$full" >>"$dst"
  fi
}

# step NAME LIMIT [--skip-rc N] [--soft] COMMAND...: runs COMMAND under
# timeout with its output in NAME.log; exit status N (when given) records
# a skip with the log's last line as the note; with --soft, running out of
# time is recorded as part (the sanitizer found nothing in the time it had,
# the benchmark measured what it could) rather than as a failure.
step() {
  local name=$1 limit=$2
  shift 2
  local skiprc=-1 soft=0
  while [[ $1 == --* ]]; do
    case $1 in
    --skip-rc)
      skiprc=$2
      shift 2
      ;;
    --soft)
      soft=1
      shift
      ;;
    esac
  done
  local t0 rc
  t0=$(date +%s)
  if ((limit < 5)); then
    record "$name" tmout 0 "not started: ${limit}s left of its share of the ${budget}s budget"
    return 1
  fi
  ran=$((ran + 1))
  timeout --kill-after=5 "$limit" "$@" >"$PATS_GPU_SCRATCH/logs/$name.log" 2>&1
  rc=$?
  keep_log "$name"
  local secs=$(($(date +%s) - t0))
  if ((rc == 0)); then
    record "$name" pass "$secs" "limit ${limit}s"
  elif ((rc == skiprc)); then
    record "$name" skip "$secs" "$(tail -n 1 "$PATS_GPU_SCRATCH/logs/$name.log" | cut -c1-200)"
  elif ((rc == 124 || rc == 137)) && ((soft)); then
    record "$name" part "$secs" "stopped at its limit of ${limit}s with no error found so far (not a failure)"
  elif ((rc == 124 || rc == 137)); then
    record "$name" tmout "$secs" "killed at its limit of ${limit}s"
    tail -n 20 "$PATS_GPU_SCRATCH/logs/$name.log" | cut -c1-400
  else
    record "$name" FAIL "$secs" "exit $rc; see steps.log"
    grep -a -e '--- FAIL' -e 'above tolerance' -e '^panic' "$PATS_GPU_SCRATCH/logs/$name.log" | head -n 40 | cut -c1-400
    tail -n 10 "$PATS_GPU_SCRATCH/logs/$name.log" | cut -c1-400
  fi
  return $rc
}

# limit SHARE RESERVE: at most SHARE seconds, and what is left after
# RESERVE seconds are kept for the later steps.
limit() {
  local l=$(($(left) - $2))
  ((l > $1)) && l=$1
  echo "$l"
}

# Which later steps will run, and what each is kept: seconds of the
# default 360 s budget, scaled to the budget given.
scaled() { echo $(($1 * budget / 360)); }
sanitizer=""
((!dry)) && sanitizer=$(command -v compute-sanitizer || true)
[[ -z $sanitizer && $dry == 0 && -x /usr/local/cuda/bin/compute-sanitizer ]] && sanitizer=/usr/local/cuda/bin/compute-sanitizer
keep_san=0
[[ -n $sanitizer ]] && keep_san=$(scaled 60) # memcheck 35 s, racecheck 25 s
keep_hf=0
[[ -f scripts/hf-logits.py ]] && keep_hf=$(scaled 40)
keep_bench=0
((!dry)) && keep_bench=$(scaled 100) # issue 60: the LoRA section's 7B and 8B updates
keep_tests=$(($(scaled 90) * ${#tests[@]}))

# 1. The GPU.
if ((dry)); then
  echo "no GPU: dry run on $(uname -m), $(nproc) CPUs" >"$PATS_GPU_OUT/gpu.txt"
  record gpu skip 0 "dry run: $(head -n 1 "$PATS_GPU_OUT/gpu.txt")"
else
  {
    nvidia-smi --query-gpu=name,memory.total,driver_version,compute_cap --format=csv,noheader
    nvcc --version | tail -n 2
    [[ -n $sanitizer ]] && "$sanitizer" --version | tail -n 1
  } >"$PATS_GPU_OUT/gpu.txt" 2>&1
  record gpu pass 0 "$(head -n 1 "$PATS_GPU_OUT/gpu.txt")"
fi
cat "$PATS_GPU_OUT/gpu.txt"

# 2. The library, for this GPU's architecture only (faster than both), as
# machine code and PTX.
if ((dry)); then
  record build-library skip 0 "dry run: no library (the CPU stands in)"
else
  cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d ' .')
  [[ $cap =~ ^[0-9]+$ ]] || cap=90
  arch="-gencode arch=compute_${cap},code=sm_${cap} -gencode arch=compute_${cap},code=compute_${cap}"
  libdir=$(cd "$(dirname "$(command -v nvcc)")/../lib64" 2>/dev/null && pwd)
  export LD_LIBRARY_PATH=${libdir:+$libdir:}${LD_LIBRARY_PATH:-}
  # Objects from another toolkit or architecture must not be reused.
  rm -rf build/cuda bin/libpatscuda.so
  lim=$(limit "$(scaled 150)" $((keep_tests + keep_san + keep_hf + keep_bench)))
  if command -v make >/dev/null; then
    step build-library "$lim" make -j"$(nproc)" cuda CUDA_ARCH="$arch"
  else
    mkdir -p bin
    step build-library "$lim" nvcc -O3 -std=c++17 $arch -shared -Xcompiler -fPIC -Icuda \
      -o bin/libpatscuda.so cuda/*.cu -lcublas -lcublasLt -lcudart
  fi
  if [[ ! -f bin/libpatscuda.so ]]; then
    log "the library did not build; see $PATS_GPU_OUT/steps.log"
    echo "result: FAIL (the library did not build), $(($(date +%s) - start))s of ${budget}s" | tee -a "$summary"
    exit 1
  fi
  export PATS_CUDA_LIB=$repo/bin/libpatscuda.so
fi

# 3. The parity suite: each binary gets what is left after the later
# steps' reserves, shared among the binaries still to run.
i=0
for t in "${tests[@]}"; do
  name=$(basename "$t" .test)
  rest=$((${#tests[@]} - i))
  lim=$((($(left) - keep_san - keep_hf - keep_bench) / rest))
  step "test-$name" "$lim" "$t" -test.v -test.timeout "$((lim > 10 ? lim - 5 : lim))s"
  i=$((i + 1))
done

# 4. compute-sanitizer over the kernel tests (small shapes: -test.short).
kernels='^TestParity(MatMul|RMSNorm|RoPE|Attention|PeakedAttention|DecodeAttention|SwiGLU|LogSoftmax|AdamW|Sample)$'
if [[ -n $sanitizer ]]; then
  for tool in memcheck racecheck; do
    share=$(scaled 35)
    [[ $tool == racecheck ]] && share=$(scaled 25)
    keep_san=$((keep_san - share))
    step "$tool" "$(limit $share $((keep_san + keep_hf + keep_bench)))" --soft \
      "$sanitizer" --tool "$tool" --error-exitcode 1 --target-processes all \
      "${tests[0]}" -test.run "$kernels" -test.short -test.v
  done
elif ((dry)); then
  record memcheck skip 0 "dry run: compute-sanitizer needs a GPU"
  record racecheck skip 0 "dry run: compute-sanitizer needs a GPU"
else
  record memcheck skip 0 "compute-sanitizer not found (PATH, /usr/local/cuda/bin)"
  record racecheck skip 0 "compute-sanitizer not found (PATH, /usr/local/cuda/bin)"
fi

# 5. transformers against our logits.
if [[ -f scripts/hf-logits.py ]]; then
  if ! command -v python3 >/dev/null; then
    record hf-logits skip 0 "no python3"
  elif [[ ! -d $PATS_GPU_SCRATCH/hf ]]; then
    record hf-logits skip 0 "no checkpoints exported (TestParityHFExport did not run or failed: see the test step)"
  else
    step hf-logits "$(limit "$(scaled 100)" "$keep_bench")" --skip-rc 3 python3 scripts/hf-logits.py "$PATS_GPU_SCRATCH/hf"
  fi
fi

# 6. The benchmark, with the time that is left (less a margin to write).
if ((dry)); then
  record gpubench skip 0 "dry run: the benchmark measures a GPU"
else
  lim=$(($(left) - 5))
  mkdir -p bench
  # gpubench rewrites bench/gpu.md after each section: a run stopped at
  # its limit keeps what it measured (part, not a failure).
  step gpubench "$lim" --soft "$bin/gpubench" -budget "$((lim > 25 ? lim - 20 : 5))s" -o bench/gpu.md
  [[ -f bench/gpu.md && bench/gpu.md -nt $summary ]] && cp bench/gpu.md "$PATS_GPU_OUT/gpu.md"
fi

[[ -f $PATS_GPU_OUT/parity.txt ]] && [[ $(wc -c <"$PATS_GPU_OUT/parity.txt") -gt 1048576 ]] &&
  { head -c 1048576 "$PATS_GPU_OUT/parity.txt" >"$PATS_GPU_SCRATCH/parity.cut" && mv "$PATS_GPU_SCRATCH/parity.cut" "$PATS_GPU_OUT/parity.txt"; }
took=$(($(date +%s) - start))
if ((failed)); then
  echo "result: FAIL, ${took}s of ${budget}s" | tee -a "$summary"
  log "FAILED (summary: $summary)"
  exit 1
fi
echo "result: pass, ${took}s of ${budget}s" | tee -a "$summary"
log "all passed (summary: $summary)"

#!/bin/bash
# The one prepared command for a machine with an NVIDIA GPU (see
# docs/gpu.md). It needs nvcc and, built beforehand on a machine with Go
# (`make gpu-tests`), the parity test binaries build/gpu/*.test and the
# benchmark build/gpu/gpubench; it needs no Go toolchain and no network.
#
#   1. prints the GPU summary (nvidia-smi);
#   2. builds bin/libpatscuda.so for this GPU's architecture (make cuda, or
#      nvcc directly when make is absent);
#   3. runs every build/gpu/*.test (-test.v -test.timeout 6m) from the
#      repository root with PATS_CUDA_LIB pointing at the library;
#   4. runs scripts/hf-logits.py "$PATS_GPU_OUT/hf" when that script exists
#      (Hugging Face transformers against our logits);
#   5. runs build/gpu/gpubench -o bench/gpu.md;
#   6. leaves every log, summary.txt and gpu.md in $PATS_GPU_OUT
#      (${OUT:-build/gpu/out}).
# The whole run is bounded to 8 minutes (GPU_CHECK_SECONDS); each step
# gets what is left. Exit 0 when every step passed, 1 when one failed, 2
# (one line) when there is no GPU or the prepared binaries are missing.
# Usage: scripts/gpu-check.sh   (from anywhere)
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo" || exit 2
budget=${GPU_CHECK_SECONDS:-480}
start=$(date +%s)
left() { echo $((budget - ($(date +%s) - start))); }
log() { echo "gpu-check: $*"; }

# Refusals: one line, exit 2.
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  echo "gpu-check: no NVIDIA GPU here (nvidia-smi lists none); nothing run" >&2
  exit 2
fi
shopt -s nullglob
tests=(build/gpu/*.test)
if (( ${#tests[@]} == 0 )) || [[ ! -x build/gpu/gpubench ]]; then
  echo "gpu-check: no prepared binaries (build/gpu/*.test and build/gpu/gpubench): run make gpu-tests on a machine with Go first" >&2
  exit 2
fi
for d in /usr/local/cuda/bin /usr/local/cuda-*/bin; do
  [[ -x $d/nvcc ]] && ! command -v nvcc >/dev/null && PATH=$d:$PATH
done
if ! command -v nvcc >/dev/null; then
  echo "gpu-check: no nvcc on PATH or under /usr/local/cuda*: cannot build the library" >&2
  exit 2
fi

export PATS_GPU_OUT=${OUT:-$repo/build/gpu/out}
mkdir -p "$PATS_GPU_OUT"
summary=$PATS_GPU_OUT/summary.txt
: >"$summary"
failed=0
record() { # name status seconds
  printf '%-40s %-6s %5ss\n' "$1" "$2" "$3" | tee -a "$summary"
  [[ $2 == pass ]] || failed=1
}
step() { # name limit command...: runs under timeout, output to $PATS_GPU_OUT/name.log
  local name=$1 limit=$2
  shift 2
  local t0 rc
  t0=$(date +%s)
  if (( limit < 5 )); then
    record "$name" skip 0
    log "$name: skipped, the ${budget}s budget is spent"
    return 1
  fi
  timeout --kill-after=10 "$limit" "$@" >"$PATS_GPU_OUT/$name.log" 2>&1
  rc=$?
  if (( rc == 0 )); then
    record "$name" pass $(($(date +%s) - t0))
  elif (( rc == 124 || rc == 137 )); then
    record "$name" tmout $(($(date +%s) - t0))
    tail -n 20 "$PATS_GPU_OUT/$name.log"
  else
    record "$name" FAIL $(($(date +%s) - t0))
    tail -n 40 "$PATS_GPU_OUT/$name.log"
  fi
  return $rc
}

log "GPU:"
nvidia-smi --query-gpu=name,memory.total,driver_version,compute_cap --format=csv,noheader | tee "$PATS_GPU_OUT/gpu.txt"
nvcc --version | tail -n 2 | tee -a "$PATS_GPU_OUT/gpu.txt"

# The library, for this GPU's architecture only (faster than both).
cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d ' .')
arch="-gencode arch=compute_${cap},code=sm_${cap}"
[[ $cap =~ ^[0-9]+$ ]] || arch="-gencode arch=compute_90,code=sm_90"
libdir=$(cd "$(dirname "$(command -v nvcc)")/../lib64" 2>/dev/null && pwd)
export LD_LIBRARY_PATH=${libdir:+$libdir:}${LD_LIBRARY_PATH:-}
# Objects from another toolkit or architecture must not be reused.
rm -rf build/cuda bin/libpatscuda.so
if command -v make >/dev/null; then
  step build-library $(( $(left) < 240 ? $(left) : 240 )) make -j"$(nproc)" cuda CUDA_ARCH="$arch"
else
  mkdir -p bin
  step build-library $(( $(left) < 240 ? $(left) : 240 )) nvcc -O3 -std=c++17 $arch -shared -Xcompiler -fPIC -Icuda \
    -o bin/libpatscuda.so cuda/*.cu -lcublas -lcublasLt -lcudart
fi
if [[ ! -f bin/libpatscuda.so ]]; then
  log "the library did not build; see $PATS_GPU_OUT/build-library.log"
  exit 1
fi
export PATS_CUDA_LIB=$repo/bin/libpatscuda.so

# The parity suite: each binary within 6 minutes and what is left, keeping
# 90 s for the transformers check and the benchmark.
for t in "${tests[@]}"; do
  name=$(basename "$t" .test)
  lim=$(( $(left) - 90 ))
  (( lim > 360 )) && lim=360
  step "test-$name" "$lim" "$t" -test.v -test.timeout 6m
done
if [[ -f scripts/hf-logits.py ]]; then
  lim=$(( $(left) - 60 ))
  (( lim > 120 )) && lim=120
  step hf-logits "$lim" python3 scripts/hf-logits.py "$PATS_GPU_OUT/hf"
fi
mkdir -p bench
step gpubench $(( $(left) - 5 )) build/gpu/gpubench -o bench/gpu.md
[[ -f bench/gpu.md ]] && cp bench/gpu.md "$PATS_GPU_OUT/gpu.md"

log "summary ($(( $(date +%s) - start ))s; logs in $PATS_GPU_OUT):"
cat "$summary"
if (( failed )); then
  log "FAILED"
  exit 1
fi
log "all passed"

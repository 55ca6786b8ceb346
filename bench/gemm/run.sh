#!/bin/sh
# Measures gemm.Sgemm against OpenBLAS cblas_sgemm and gonum blas32.Gemm in
# one run, two threads each, and prints a Markdown table.
# Usage: bench/gemm/run.sh [-time 100ms] [-rounds 5]
set -eu
cd "$(dirname "$0")/../.."
if ! dpkg -s libopenblas-dev >/dev/null 2>&1; then
	# quietly: this script's output is the results table
	(apt-get update && apt-get install -y libopenblas-dev) >/dev/null 2>&1 ||
		{ echo "bench/gemm: could not install libopenblas-dev" >&2; exit 1; }
fi
date -u "+%Y-%m-%d %H:%M UTC"
grep -m1 "model name" /proc/cpuinfo
go version
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
# OpenBLAS picks its kernel from the CPU unless these force one; unset them
# for this command only so it runs the kernel it would choose by itself.
OPENBLAS_NUM_THREADS=2 GOMAXPROCS=2 \
	env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE go run -tags openblas ./bench/gemm "$@"

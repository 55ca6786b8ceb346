#!/usr/bin/env bash
# make bench: every speed figure of the project in one run, written to
# bench/results.md with the machine, the date and the Go version. Figures
# are read as ratios within this one run: these machines are noisy.
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/results.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make -s build
t() { local s=$(date +%s%N); "$@" > /dev/null; awk -v a="$s" -v b="$(date +%s%N)" 'BEGIN{printf "%.2f", (b-a)/1e9}'; }
{
echo "# Benchmark results"
echo
echo "Written by \`make bench\` (bench/run.sh) on $(date -u '+%Y-%m-%d %H:%M UTC')."
echo
echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB"
echo "- flags: $(grep -m1 '^flags' /proc/cpuinfo | grep -o 'avx512f\|avx2\|fma' | sort -u | tr '\n' ' ')"
echo "- $(go version)"
echo "- load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "## Matrix products: ours against OpenBLAS and gonum (same run, same shapes)"
echo
bash bench/gemm/run.sh 2>&1 | grep -v '^model name\|^load average' || echo "(OpenBLAS benchmark failed)"
echo
echo "## Model: training and decoding"
echo
go run ./bench/e2e
echo
echo "## Oracle rollouts over whole splits"
echo
echo "| environment | split | episodes | seconds | episodes/s |"
echo "| --- | --- | ---: | ---: | ---: |"
for e in household shop searchqa; do
  for s in train valid_seen valid_unseen; do
    secs=$(t bin/rollout --env $e --split $s --policy oracle --group 1 -o "$tmp/o.parquet")
    # The whole table first: grep -q on a pipe may end evaluate by SIGPIPE,
    # which pipefail would report as a failed oracle.
    ev=$(bin/evaluate "$tmp/o.parquet")
    n=$(awk -F'|' '/\*\*all\*\*/{print $3}' <<<"$ev" | tr -d ' ')
    grep -q '| \*\*all\*\* | [0-9]* | 1.000 |' <<<"$ev" || echo "oracle below 1.0 on $e $s" >&2
    echo "| $e | $s | $n | $secs | $(awk -v n="$n" -v s="$secs" 'BEGIN{printf "%.0f", n/s}') |"
  done
done
echo
echo "## One PATS iteration, by stage (household, tiny model, 16 tasks x group 8)"
echo
bin/rollout --env household --split train --tasks 64 --group 1 --policy oracle --seed 3 -o "$tmp/demos.parquet"
bin/learn sft --init tiny --demos "$tmp/demos.parquet" -o "$tmp/ckpt0" --epochs 1 > /dev/null
bin/validate init -o "$tmp/snap0.parquet"
echo "| stage | seconds |"
echo "| --- | ---: |"
echo "| rollout (checkpoint, with scaffold) | $(t bin/rollout --env household --split train --tasks 16 --group 8 --policy "$tmp/ckpt0" --scaffold "$tmp/snap0.parquet" --seed 4 -o "$tmp/traj.parquet") |"
echo "| cards | $(t bin/cards "$tmp/traj.parquet" -o "$tmp/cards.parquet") |"
echo "| control | $(t bin/control --cards "$tmp/cards.parquet" --scaffold "$tmp/snap0.parquet" -o "$tmp/prop.parquet" --state-out "$tmp/state.parquet") |"
echo "| validate | $(t bin/validate --scaffold "$tmp/snap0.parquet" --proposals "$tmp/prop.parquet" --cards "$tmp/cards.parquet" -o "$tmp/snap1.parquet" --decisions "$tmp/dec.parquet") |"
echo "| learn grpo | $(t bin/learn grpo --init "$tmp/ckpt0" --ref "$tmp/ckpt0" "$tmp/traj.parquet" -o "$tmp/ckpt1" --metrics "$tmp/m.parquet") |"
echo
echo "## Environment server: 50 ms a step, 1 and 32 requests in flight (bench/envserver.md)"
echo
echo '```'
go test -run '^$' -bench EnvServer -benchtime 1x ./cmd/rollout 2>&1 | grep -E '^(Benchmark|ok|FAIL)'
echo '```'
echo
echo "## Go benchmarks"
echo
echo '```'
go test -run '^$' -bench . -benchtime 1s ./lib/gemm ./lib/model ./lib/rl ./lib/env/... ./lib/tokenizer ./lib/scaffold ./lib/policy 2>&1 | grep -E '^(Benchmark|ok|FAIL)'
echo '```'
echo
echo "Load average at the end of the run: $(cut -d' ' -f1-3 /proc/loadavg)."
echo
cat bench/profile.md
} > "$tmp/results.md"
mv "$tmp/results.md" "$out"
echo "wrote $out"

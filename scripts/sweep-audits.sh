#!/usr/bin/env bash
# The audits of a finished (or partial) sweep: `audit credit` over all
# iterations of every finished grpo-s*, gigpo-s*, broadcast-s*, skillgate-s* and
# pats-skillgate-gigpo-s* run
# (the credit of skill reads, where the run reads skills, and GiGPO's anchor
# coverage), and `audit scaffold` of every pats run: the NLL gap with
# and without the scaffold at ckpt/0 and every ITERS/4 iterations up to the
# last, on the episodes of the first and of the last iteration rolled out
# with a scaffold that had items (each with the scaffold it was rolled out
# with; a pats run's snap/0 is empty). When COMPRESS emptied the scaffold before
# the last iteration, the late audit takes the last iteration rolled out
# with a scaffold that still had items (an empty one puts no scaffold token
# in the context, so there is no gap to measure). Each audit is written
# once, under RUN/audit/, atomically; a second call prints what is there.
#
# Usage: scripts/sweep-audits.sh SWEEP ITERS
#   scripts/sweep-audits.sh runs/s11 20
set -euo pipefail
sweep=${1:?usage: $0 SWEEP ITERS}
iters=${2:?usage: $0 SWEEP ITERS}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bin=${BIN:-bin}

for run in "$sweep"/grpo-s* "$sweep"/gigpo-s* "$sweep"/broadcast-s* "$sweep"/skillgate-s* "$sweep"/pats-skillgate-gigpo-s*; do
  [ -f "$run/summary.md" ] && [ -d "$run/adv" ] || continue
  mkdir -p "$run/audit"
  if [ ! -f "$run/audit/credit.md" ]; then
    "$bin"/audit credit "$run/traj" --advantages "$run/adv" -o "$run/audit/credit.parquet" \
      --plot "$run/audit/credit.png" > "$run/audit/credit.md.tmp"
    mv "$run/audit/credit.md.tmp" "$run/audit/credit.md"
  fi
  echo "== $run: audit credit"
  cat "$run/audit/credit.md"
done

step=$(( iters / 4 > 0 ? iters / 4 : 1 ))
ckpts=""
for k in $(seq 0 "$step" "$iters"); do ckpts="$ckpts${ckpts:+,}RUN/ckpt/$k"; done
case ",$ckpts," in *",RUN/ckpt/$iters,"*) ;; *) ckpts="$ckpts,RUN/ckpt/$iters" ;; esac
# items K: the number of items of snapshot K of RUN (validate show's first
# line, "snapshot V: N items, sha256:...")
items() {
  local n
  n=$("$bin"/validate show "$1/snap/$2.parquet" | sed -n '1s/^snapshot [0-9]*: \([0-9]*\) items.*/\1/p')
  case "$n" in
    '' | *[!0-9]*) echo "$0: $1/snap/$2.parquet: validate show gave no item count" >&2; return 1 ;;
  esac
  echo "$n"
}
for run in "$sweep"/pats-s*; do
  [ -f "$run/summary.md" ] || continue
  mkdir -p "$run/audit"
  last=$(( iters - 1 ))
  while [ "$last" -gt 0 ]; do
    n=$(items "$run" "$last")
    [ "$n" = 0 ] || break
    last=$(( last - 1 ))
  done
  if [ "$last" != $(( iters - 1 )) ]; then
    echo "== $run: the scaffold is empty from iteration $(( last + 1 )) on; the late audit is on traj/$last"
  fi
  # the early audit: the first iteration rolled out with items (a pats run
  # starts from an empty scaffold, whose first items come from iteration
  # 0's cards)
  first=0
  while [ "$first" -lt "$last" ]; do
    n=$(items "$run" "$first")
    [ "$n" = 0 ] || break
    first=$(( first + 1 ))
  done
  if [ "$first" != 0 ]; then
    echo "== $run: the scaffold is empty before iteration $first; the early audit is on traj/$first"
  fi
  for k in $(echo "$first" "$last" | tr ' ' '\n' | sort -n -u); do
    out="$run/audit/scaffold-traj$k"
    if [ ! -f "$out.md" ]; then
      "$bin"/audit scaffold --policy "${ckpts//RUN/$run}" --traj "$run/traj/$k.parquet" \
        --scaffold "$run/snap/$k.parquet" -o "$out.parquet" --plot "$out.png" > "$out.md.tmp"
      mv "$out.md.tmp" "$out.md"
    fi
    echo "== $run: audit scaffold on traj/$k"
    cat "$out.md"
  done
done

#!/usr/bin/env bash
# The audits of a finished (or partial) sweep: `audit credit` over all
# iterations of every finished grpo-s*, gigpo-s*, broadcast-s*, skillgate-s*,
# pats-skillgate-gigpo-s*, pats-skillgate-s* and pats-gigpo-s* run
# (the credit of skill reads, where the run reads skills, and GiGPO's anchor
# coverage), and `audit scaffold` of every pats-s* and pats-gigpo-s* run (the scaffold loop): the NLL gap with
# and without the scaffold at ckpt/0 and every ITERS/4 iterations up to the
# last, on the episodes of the first and of the last iteration rolled out
# with a scaffold that had items (each with the scaffold it was rolled out
# with; a pats run's snap/0 is empty). When COMPRESS emptied the scaffold before
# the last iteration, the late audit takes the last iteration rolled out
# with a scaffold that still had items (an empty one puts no scaffold token
# in the context, so there is no gap to measure). A scaffold can have items
# and still put no token in an iteration's contexts (its items are all for
# task types that iteration did not draw): then audit scaffold finds no
# scaffold tokens, RUN/audit/scaffold-trajK.none says so, and the audit
# moves to the next iteration inward (the one after for the early audit,
# the one before for the late one). Each audit is written once, under
# RUN/audit/, atomically; a second call prints what is there.
#
# Usage: scripts/sweep-audits.sh SWEEP ITERS
#   scripts/sweep-audits.sh runs/s11 20
set -euo pipefail
sweep=${1:?usage: $0 SWEEP ITERS}
iters=${2:?usage: $0 SWEEP ITERS}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bin=${BIN:-bin}

for run in "$sweep"/grpo-s* "$sweep"/gigpo-s* "$sweep"/broadcast-s* "$sweep"/skillgate-s* "$sweep"/pats-skillgate-gigpo-s* \
    "$sweep"/pats-skillgate-s* "$sweep"/pats-gigpo-s*; do
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
# scaffold_audit RUN K: audit scaffold of RUN's checkpoints on traj/K with
# snap/K, once, into RUN/audit/scaffold-trajK.{md,parquet,png}, and print
# it. It returns 1, and leaves RUN/audit/scaffold-trajK.none, when no
# episode of traj/K carries scaffold tokens; any other failure ends the
# script.
scaffold_audit() {
  local run=$1 k=$2 out="$1/audit/scaffold-traj$2" err
  if [ -f "$out.none" ]; then
    echo "== $run: traj/$k: $(cat "$out.none")"
    return 1
  fi
  if [ ! -f "$out.md" ]; then
    err=$(mktemp)
    if ! "$bin"/audit scaffold --policy "${ckpts//RUN/$run}" --traj "$run/traj/$k.parquet" \
        --scaffold "$run/snap/$k.parquet" -o "$out.parquet" --plot "$out.png" > "$out.md.tmp" 2> "$err"; then
      rm -f "$out.md.tmp"
      if grep -q "no episode has scaffold tokens" "$err"; then
        echo "no episode has scaffold tokens (the scaffold's items are for task types this iteration did not draw)" > "$out.none.tmp"
        mv "$out.none.tmp" "$out.none"
        rm -f "$err"
        echo "== $run: traj/$k: $(cat "$out.none")"
        return 1
      fi
      cat "$err" >&2
      rm -f "$err"
      exit 1
    fi
    cat "$err" >&2
    rm -f "$err"
    mv "$out.md.tmp" "$out.md"
  fi
  echo "== $run: audit scaffold on traj/$k"
  cat "$out.md"
}
# (pats-s* holds pats-skillgate-gigpo-s* and pats-skillgate-s* too)
for run in "$sweep"/pats-s* "$sweep"/pats-gigpo-s*; do
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
  # the early audit from traj/$first on, the late one from traj/$last back
  early=$first
  while [ "$early" -le "$last" ] && ! scaffold_audit "$run" "$early"; do early=$(( early + 1 )); done
  late=$last
  while [ "$late" -gt "$early" ] && ! scaffold_audit "$run" "$late"; do late=$(( late - 1 )); done
  if [ "$early" -gt "$last" ]; then
    echo "== $run: no iteration's episodes carry scaffold tokens; no scaffold audit"
  fi
done

#!/usr/bin/env bash
# Unpacks the runs that scripts/sweep-archive.sh packed (ARCHIVE/RUN.tar.xz)
# into SWEEP/RUN, for every run SWEEP does not have finished (no
# summary.md): an unfinished folder of the same run is replaced; a finished
# one is left as it is. Then `make sweep-rest` with the sweep's variables
# runs only the runs still missing, and `make sweep-report` (or
# sweep-partial) makes the tables over both. A restored run has no
# weights: it can be reported and audited for credit, not resumed or
# evaluated again.
#
# Usage: scripts/sweep-restore.sh ARCHIVE SWEEP
#   scripts/sweep-restore.sh results/s32 runs/s32
set -euo pipefail
archive=${1:?usage: $0 ARCHIVE SWEEP}
sweep=${2:?usage: $0 ARCHIVE SWEEP}
[ -d "$archive" ] || { echo "$0: $archive: not a folder" >&2; exit 2; }
mkdir -p "$sweep"
restored=0 kept=0
for a in "$archive"/*.tar.xz; do
  [ -e "$a" ] || continue
  name=$(basename "$a" .tar.xz)
  if [ -f "$sweep/$name/summary.md" ]; then
    kept=$((kept + 1))
    continue
  fi
  tmp=$(mktemp -d "$sweep/.restore-XXXXXX")
  if ! xz -dc "$a" | tar -C "$tmp" -xf -; then
    rm -rf "$tmp"
    echo "$0: $a: not a readable run archive" >&2
    exit 1
  fi
  if [ ! -f "$tmp/$name/summary.md" ]; then
    rm -rf "$tmp"
    echo "$0: $a: holds no $name/summary.md (not a finished run)" >&2
    exit 1
  fi
  rm -rf "${sweep:?}/$name"
  mv "$tmp/$name" "$sweep/$name"
  rmdir "$tmp"
  restored=$((restored + 1))
done
echo "$0: $restored runs restored into $sweep, $kept finished there already"

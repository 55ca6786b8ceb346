#!/bin/bash
# Installs nvcc (Debian bookworm's nvidia-cuda-toolkit, CUDA 11.8) when it is
# missing, so that `make cuda` can compile the CUDA backend. The package is in
# Debian's non-free component and its driver dependencies (libcuda1 needs
# nvidia-support) in contrib: the components `contrib non-free
# non-free-firmware` are added to the Debian apt sources only where they
# are missing, then one `apt-get update`, then a quiet install. Needs root. No GPU is needed to
# compile. Usage: scripts/install-nvcc.sh
set -euo pipefail
log() { echo "install-nvcc: $*"; }
if command -v nvcc >/dev/null; then
  log "nvcc present: $(nvcc --version | tail -n 1)"
  exit 0
fi
[[ $(id -u) == 0 ]] || { echo "install-nvcc: nvcc is missing and I am not root to install it" >&2; exit 2; }

apt_dir=${APT_DIR:-/etc/apt} # the sources to extend (a test may point elsewhere)
# deb822 sources (bookworm's default): extend each Debian "Components:" line.
shopt -s nullglob
for f in "$apt_dir"/sources.list.d/*.sources; do
  grep -qi '^URIs:.*debian' "$f" || continue
  grep -q '^Components:' "$f" || continue
  for c in contrib non-free non-free-firmware; do
    if grep '^Components:' "$f" | grep -Evq "[[:space:]]$c([[:space:]]|\$)"; then
      sed -i -E "/^Components:/{/[[:space:]]$c([[:space:]]|\$)/!s/\$/ $c/}" "$f"
      log "added component $c to $f"
    fi
  done
done
# One-line sources: extend each Debian "deb ... main" line.
for f in "$apt_dir"/sources.list "$apt_dir"/sources.list.d/*.list; do
  [[ -f $f ]] || continue
  grep -Eq '^deb .*debian.* main' "$f" || continue
  for c in contrib non-free non-free-firmware; do
    if grep -E '^deb .*debian.* main' "$f" | grep -Evq "[[:space:]]$c([[:space:]]|\$)"; then
      sed -i -E "/^deb .*debian.* main/{/[[:space:]]$c([[:space:]]|\$)/!s/\$/ $c/}" "$f"
      log "added component $c to $f"
    fi
  done
done

# apt's messages go to a log; on failure its last lines are shown with
# addresses masked.
aptlog=$(mktemp)
trap 'rm -f "$aptlog"' EXIT
apt_run() {
  if ! "$@" >"$aptlog" 2>&1; then
    echo "install-nvcc: $* failed:" >&2
    tail -n 15 "$aptlog" | sed -E 's#[a-z]+://[^ ]+#<source>#g' >&2
    exit 1
  fi
}
log "apt-get update"
apt_run apt-get update -q
log "installing nvidia-cuda-toolkit (a few minutes)"
apt_run env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends nvidia-cuda-toolkit
log "nvcc installed: $(nvcc --version | tail -n 1)"

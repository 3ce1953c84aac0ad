#!/usr/bin/env bash
# Instructions executed, counted by valgrind's cachegrind: a deterministic measure of a
# speed change, for machines whose wall clock spreads more than the change (these VMs
# give ±15 % between consecutive `bench` runs). It does not see cache misses or branch
# mispredictions, so confirm a change it favours with `bench` timings before claiming
# nodes per second.
#
# For each binary: `bench DEPTH` minus `bench 1` (start-up: loading the net, clearing the
# table), and `perft PERFT_DEPTH`; with BARE=1 also the bare cozy-chess perft
# (examples/bare_perft.rs, built here) for the perft ratio.
#
# Usage: [DEPTH=9] [PERFT_DEPTH=5] [BARE=0] scripts/instructions.sh BIN...
set -euo pipefail
cd "$(dirname "$0")/.."
DEPTH=${DEPTH:-9}
PERFT_DEPTH=${PERFT_DEPTH:-5}
BARE=${BARE:-0}
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
(( $# > 0 )) || { echo "usage: scripts/instructions.sh BIN..." >&2; exit 1; }

# Instructions executed by a command; its standard output goes to the file $OUTPUT.
OUTPUT=$(mktemp)
trap 'rm -f "$OUTPUT"' EXIT
count() {
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$@" 2>&1 >"$OUTPUT" |
    sed -n 's/.*I *refs: *//p' | tr -d ,
}

for bin in "$@"; do
  full=$(count "$bin" bench "$DEPTH")
  nodes=$(tail -1 "$OUTPUT" | awk '{print $1}')
  startup=$(count "$bin" bench 1)
  perft=$(count "$bin" perft "$PERFT_DEPTH")
  awk -v b="$bin" -v n="$nodes" -v f="$full" -v s="$startup" -v p="$perft" -v d="$DEPTH" -v pd="$PERFT_DEPTH" 'BEGIN {
    printf "%s: bench %d %d nodes, %.4e instructions searching (%.0f per node), start-up %.3e; perft %d %.4e\n",
      b, d, n, f - s, (f - s) / n, s, pd, p }'
done
if (( BARE )); then
  cargo build --release --quiet --example bare_perft
  echo "bare cozy-chess: perft $PERFT_DEPTH $(count target/release/examples/bare_perft "$PERFT_DEPTH" | awk '{printf "%.4e", $1}')"
fi

#!/usr/bin/env bash
# Search speed against Stockfish: `rookery bench` and Stockfish's `bench` (both with
# their default settings: one thread, 16 MB hash), runs alternated so both see the same
# machine noise; prints each run and the medians. The two benches search different
# positions, so both node counts are printed too.
# Usage: scripts/bench-vs-stockfish.sh [runs=5]   (ROOKERY=path STOCKFISH=path to override)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
ROOKERY=${ROOKERY:-target/release/rookery}
STOCKFISH=${STOCKFISH:-$(command -v stockfish || echo /usr/games/stockfish)}
[[ -x $STOCKFISH ]] || { echo "stockfish not found (apt-get install stockfish)" >&2; exit 1; }
if [[ $ROOKERY == target/release/rookery ]]; then cargo build --release --quiet; fi

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

r_nps=(); s_nps=()
for i in $(seq 1 "$RUNS"); do
    r=$("$ROOKERY" bench 2>&1 | tail -1)           # "<nodes> nodes <nps> nps"
    rn=$(awk '{print $1}' <<<"$r"); rs=$(awk '{print $3}' <<<"$r")
    s=$("$STOCKFISH" bench 2>&1)
    sn=$(sed -n 's/^Nodes searched *: *//p' <<<"$s"); ss=$(sed -n 's/^Nodes\/second *: *//p' <<<"$s")
    printf 'run %d: rookery %s nodes %s nps   stockfish %s nodes %s nps\n' "$i" "$rn" "$rs" "$sn" "$ss"
    r_nps+=("$rs"); s_nps+=("$ss")
done
rm=$(printf '%s\n' "${r_nps[@]}" | median)
sm=$(printf '%s\n' "${s_nps[@]}" | median)
awk -v r="$rm" -v s="$sm" 'BEGIN {printf "median nps: rookery %d, stockfish %d, ratio %.2f\n", r, s, r / s}'

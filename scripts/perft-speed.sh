#!/usr/bin/env bash
# Perft speed: `rookery perft` against a bare cozy-chess bulk-counting perft
# (examples/bare_perft.rs) from the start position, runs alternated to share the
# machine's noise. Usage: scripts/perft-speed.sh [runs=5] [depth=6]
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
DEPTH=${2:-6}

cargo build --release --quiet --bin rookery --example bare_perft
ROOKERY=target/release/rookery
BARE=target/release/examples/bare_perft

# Seconds from a "Time: S s, ..." line; also checks both agree on the node count.
run() {
    local out
    out=$("$@")
    local nodes secs
    nodes=$(sed -n 's/^Nodes searched: //p' <<<"$out")
    secs=$(sed -n 's/^Time: \([0-9.]*\) s.*/\1/p' <<<"$out")
    echo "$nodes $secs"
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

r_times=(); b_times=(); expected=""
for i in $(seq 1 "$RUNS"); do
    read -r rn rs < <(run "$ROOKERY" perft "$DEPTH")
    read -r bn bs < <(run "$BARE" "$DEPTH")
    [[ -z $expected ]] && expected=$rn
    if [[ $rn != "$expected" || $bn != "$expected" ]]; then
        echo "node counts differ: rookery $rn, bare $bn" >&2
        exit 1
    fi
    printf 'run %d: rookery %.3f s   bare %.3f s\n' "$i" "$rs" "$bs"
    r_times+=("$rs"); b_times+=("$bs")
done
rm=$(printf '%s\n' "${r_times[@]}" | median)
bm=$(printf '%s\n' "${b_times[@]}" | median)
echo "perft $DEPTH startpos: $expected nodes"
awk -v r="$rm" -v b="$bm" -v n="$expected" 'BEGIN {
    printf "median rookery %.3f s (%.0f Mnps), bare %.3f s (%.0f Mnps), ratio rookery/bare %.3f\n",
        r, n / r / 1e6, b, n / b / 1e6, r / b }'

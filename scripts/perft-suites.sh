#!/usr/bin/env bash
# Runs the perft suites (perft/*.epd) through `rookery perft` at every listed depth up to
# MAX_DEPTH (default 6) and reports pass/fail counts and the total time. Deep runs take a
# long time (fischer.epd D6 alone is several hundred billion nodes); use MAX_DEPTH=4 or
# name a single suite for a quicker check.
#
# Usage: [MAX_DEPTH=6] scripts/perft-suites.sh [suite.epd ...]   (default: all three)
set -uo pipefail
cd "$(dirname "$0")/.."
MAX_DEPTH=${MAX_DEPTH:-6}
suites=("$@")
[[ ${#suites[@]} -eq 0 ]] && suites=(perft/standard.epd perft/cpw.epd perft/fischer.epd)

cargo build --release --quiet --bin rookery || exit 2
ROOKERY=target/release/rookery

total_pass=0; total_fail=0; start=$(date +%s.%N)
for suite in "${suites[@]}"; do
    [[ -f $suite ]] || suite="perft/$suite"
    pass=0; fail=0; suite_start=$(date +%s.%N)
    while IFS= read -r line || [[ -n $line ]]; do
        [[ -z ${line// } ]] && continue
        fen=${line%%;*}; fen=${fen% }
        rest=${line#*;}
        IFS=';' read -ra fields <<<"$rest"
        for field in "${fields[@]}"; do
            read -r d expected <<<"$field"
            depth=${d#D}
            (( depth > MAX_DEPTH )) && continue
            got=$("$ROOKERY" perft "$depth" --fen "$fen" | sed -n 's/^Nodes searched: //p')
            if [[ $got == "$expected" ]]; then
                pass=$((pass + 1))
            else
                fail=$((fail + 1))
                echo "FAIL $suite: $fen D$depth: got '${got}', expected $expected"
            fi
        done
    done <"$suite"
    secs=$(awk -v a="$suite_start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
    echo "$suite: $pass passed, $fail failed (depth <= $MAX_DEPTH, ${secs} s)"
    total_pass=$((total_pass + pass)); total_fail=$((total_fail + fail))
done
secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
echo "total: $total_pass passed, $total_fail failed in ${secs} s"
[[ $total_fail -eq 0 ]]

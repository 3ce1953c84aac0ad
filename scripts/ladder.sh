#!/usr/bin/env bash
# Strength ladder: Rookery against a list of opponents, appending one JSON line
# per match to a results file, then a maximum-likelihood rating estimate from
# the opponents whose rating is known (Stockfish UCI_Elo levels).
#
#   scripts/ladder.sh ROOKERY_BINARY [GAMES] [TC]
#       GAMES  games per opponent (default 100; rounded up to an even number)
#       TC     time control (default 10+0.1)
#
# Environment (defaults in brackets):
#   OPPONENTS    space-separated match.py specs
#                [stockfish:1350 stockfish:1600 stockfish:1900 stockfish:2200 stockfish:2500 glaurung toga2 ethereal]
#   NAME         Rookery's name in PGN/results [Rookery-<first 8 hex of the binary's sha256>]
#   CONCURRENCY  [2]
#   RESULTS      results file (appended) [results/ladder.jsonl]
#   PGNDIR       PGN directory [results/ladder-pgn]
#   EXTRA        extra match.py arguments (e.g. "--openings /path/to/UHO_4060_v4.epd", a book
#                from outside the repository; the default is openings/8moves_v3.pgn.gz)
#
# Time: at 10+0.1 a game takes up to ~2*(10+0.1*moves) s, in practice ~20-30 s;
# 100 games at concurrency 2 is roughly 20-25 minutes per opponent.
# Re-running appends; the estimate uses every line for NAME in RESULTS.
# To only re-print the estimate: scripts/match.py --estimate results/ladder.jsonl
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
if [[ $# -lt 1 || "$1" == "-h" || "$1" == "--help" ]]; then
  sed -n '2,/^set -uo/p' "$0" | grep -v '^set -uo' | sed 's/^# \{0,1\}//'
  exit $(( $# < 1 ? 2 : 0 ))
fi
BIN=$1
GAMES=${2:-100}
TC=${3:-10+0.1}
OPPONENTS=${OPPONENTS:-stockfish:1350 stockfish:1600 stockfish:1900 stockfish:2200 stockfish:2500 glaurung toga2 ethereal}
CONCURRENCY=${CONCURRENCY:-2}
RESULTS=${RESULTS:-$ROOT/results/ladder.jsonl}
PGNDIR=${PGNDIR:-$ROOT/results/ladder-pgn}
EXTRA=${EXTRA:-}

if [[ ! -x "$BIN" ]]; then
  echo "error: Rookery binary not found or not executable: $BIN" >&2
  exit 2
fi
NAME=${NAME:-Rookery-$(sha256sum "$BIN" | cut -c1-8)}
mkdir -p "$(dirname "$RESULTS")" "$PGNDIR"

echo "ladder: $NAME ($BIN), $GAMES games per opponent at $TC, concurrency $CONCURRENCY"
echo "opponents: $OPPONENTS"
echo "results -> $RESULTS, PGNs -> $PGNDIR"
failed=0
for opp in $OPPONENTS; do
  tag=$(echo "$opp" | tr -c 'A-Za-z0-9_.-' '_')
  echo
  echo "=== $NAME vs $opp ==="
  # shellcheck disable=SC2086
  python3 "$HERE/match.py" "rookery:$BIN,name=$NAME" "$opp" --tc "$TC" --games "$GAMES" -c "$CONCURRENCY" \
      --event "Rookery ladder" --pgn "$PGNDIR/$NAME-vs-$tag.pgn" --results "$RESULTS" $EXTRA
  rc=$?
  if (( rc == 130 )); then echo "interrupted"; exit 130; fi
  if (( rc != 0 )); then echo "warning: match vs $opp exited with $rc" >&2; failed=1; fi
done

echo
echo "=== rating estimate (opponents with a known rating only) ==="
python3 "$HERE/match.py" --estimate "$RESULTS" --estimate-engine "$NAME"
exit $failed

#!/usr/bin/env bash
# Reliability soak for Rookery: many games at a fast and a normal time control,
# counting illegal moves, crashes, hangs (stalls) and time losses. Exits 1 if
# any occurred (for the engine(s) under test), 2 on a setup error.
#
#   scripts/soak.sh [ROOKERY_BINARY]            # default: target/release/rookery
#
# Environment (defaults in brackets):
#   FAST_GAMES   games at FAST_TC              [200]
#   FAST_TC      fast time control             [1+0.01]
#   SLOW_GAMES   games at SLOW_TC              [20]
#   SLOW_TC      normal time control           [10+0.1]
#   OPPONENT     match.py spec of the opponent, or "self" for Rookery vs itself [self]
#   CONCURRENCY  games at the same time        [2]
#   OUT          output directory for PGNs and results.jsonl [results/soak-<UTC time>]
#   EXTRA        extra match.py arguments, e.g. "--option1 Threads=2"
#
# Adjudication is switched off (games are played to mate/draw by rule, or to
# the 400-ply cap) so that endgames and long games get exercised. Openings are
# shuffled from the default book; the seed is printed by match.py.
# In self-play both engines are Rookery and both are counted; against an
# opponent only Rookery (engine 1) is counted, the opponent's errors are shown
# but don't fail the soak.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
BIN=${1:-$ROOT/target/release/rookery}
FAST_GAMES=${FAST_GAMES:-200}
FAST_TC=${FAST_TC:-1+0.01}
SLOW_GAMES=${SLOW_GAMES:-20}
SLOW_TC=${SLOW_TC:-10+0.1}
OPPONENT=${OPPONENT:-self}
CONCURRENCY=${CONCURRENCY:-2}
OUT=${OUT:-$ROOT/results/soak-$(date -u +%Y%m%dT%H%M%SZ)}
EXTRA=${EXTRA:-}

if [[ ! -x "$BIN" ]]; then
  echo "error: Rookery binary not found or not executable: $BIN" >&2
  exit 2
fi
mkdir -p "$OUT"

if [[ "$OPPONENT" == "self" ]]; then
  E2="rookery:$BIN,name=Rookery-B"; FAIL=any
else
  E2="$OPPONENT"; FAIL=first
fi

status=0
run() {  # label games tc
  local label=$1 games=$2 tc=$3
  (( games > 0 )) || return 0
  echo "=== soak $label: $games games at $tc vs $OPPONENT (concurrency $CONCURRENCY) ==="
  # shellcheck disable=SC2086
  python3 "$HERE/match.py" "rookery:$BIN,name=Rookery" "$E2" --tc "$tc" --games "$games" \
      -c "$CONCURRENCY" --shuffle --no-adjudication --fail-on-errors "$FAIL" \
      --event "Rookery soak $label" --pgn "$OUT/soak-$label.pgn" --results "$OUT/results.jsonl" $EXTRA
  local rc=$?
  case $rc in
    0) ;;
    3) status=1 ;;
    *) echo "error: match.py exited with $rc" >&2; exit 2 ;;
  esac
}

run fast "$FAST_GAMES" "$FAST_TC"
run slow "$SLOW_GAMES" "$SLOW_TC"

echo
echo "=== soak summary ($OUT/results.jsonl) ==="
[[ -f "$OUT/results.jsonl" ]] || { echo "no games played"; exit 0; }
python3 - "$OUT/results.jsonl" <<'EOF'
import json, sys
for ln in open(sys.argv[1]):
    r = json.loads(ln)
    print("%-8s %4d games  %s %d-%d-%d" % (r["tc"], r["games"], r["engine1"], r["wins"], r["draws"], r["losses"]))
    for k in ("errors1", "errors2"):
        name = r["engine1" if k == "errors1" else "engine2"]
        e = r[k]
        print("         %-12s time forfeits %d, illegal moves %d, crashes %d, stalls %d"
              % (name, e["time forfeit"], e["illegal move"], e["crash"], e["stall"]))
EOF
if (( status )); then
  echo "SOAK FAILED: see TerminationDetails in $OUT/*.pgn"
else
  echo "SOAK OK"
fi
exit $status

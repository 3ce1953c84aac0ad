#!/usr/bin/env bash
# Self-play data: plays games into data/gen$GEN/seed$SEED.vf (appending; a rerun with the
# same settings continues the same game sequence) and records the file in
# data/manifest.tsv (generation, net, node budget, seed, games, positions, bytes, sha256).
# Start a new seed when a file nears 50 MB (about 10M positions). Ctrl-C or `kill`
# stops it cleanly (the games in progress are finished and the manifest updated).
# NETFILE=nets/X.safetensors plays with that net instead of the embedded one (recorded as X).
# ROUNDS=n with TIME=s plays n rounds of s seconds, each recorded in the manifest; COMMIT=1
# commits the file and the manifest after each round (and nothing else), so a session that
# stops keeps all but the round in progress. Creating $STOP_FILE (target/datagen.stop)
# stops the rounds after the current one.
# HARD_NODES=n caps each move's search at n nodes (default NODES: a move never costs more
# than the budget, and plays the last iteration completed within it); the manifest records
# the budget as NODES/HARD_NODES (soft/hard). Files recorded with NODES alone were made
# before this default, with datagen's own cap of 8 × NODES (HARD_NODES=40000 remakes them).
# Usage: [GEN=1] [NODES=5000] [HARD_NODES=n] [THREADS=2] [SEED=1] [TIME=seconds] [GAMES=n] [OUT=file]
#        [NETFILE=file] [ROUNDS=n COMMIT=1 STOP_FILE=file] scripts/datagen.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/common.sh
GEN=${GEN:-1}
NODES=${NODES:-5000}
HARD_NODES=${HARD_NODES:-$NODES}
THREADS=${THREADS:-2}
SEED=${SEED:-1}
TIME=${TIME:-}
GAMES=${GAMES:-}
ROUNDS=${ROUNDS:-1}
COMMIT=${COMMIT:-0}
STOP_FILE=${STOP_FILE:-target/datagen.stop}
cargo build --release --quiet
# The games are played by a copy of the binary: the code may be rebuilt while rounds run,
# and a round must not change its build (nor its embedded net) halfway through a file.
mkdir -p target/datagen
BIN=target/datagen/rookery-$$
cp target/release/rookery "$BIN"
trap 'rm -f "$BIN"' EXIT
NETFILE=${NETFILE:-}
if [[ -n $NETFILE ]]; then
  NET=$(basename "$NETFILE" .safetensors)
fi
NET=${NET:-$(embedded_net)}
# OUT=data/validation/NAME.vf makes a validation set instead (listed in the manifest,
# never trained on by scripts/generation.sh).
OUT=${OUT:-data/gen$GEN/seed$SEED.vf}
args=(--out "$OUT" --threads "$THREADS" --nodes "$NODES" --seed "$SEED")
args+=(--hard-nodes "$HARD_NODES")
BUDGET=$NODES/$HARD_NODES
[[ -n $TIME ]] && args+=(--time-limit "$TIME")
[[ -n $GAMES ]] && args+=(--games "$GAMES")
[[ -n $NETFILE ]] && args+=(--net "$NETFILE")
count() { # games and positions in the output so far
  if [[ -s $OUT ]]; then
    "$BIN" data stats "$OUT" | awk '$1 == "games" {g = $2} $1 == "positions" {p = $2} END {print g + 0, p + 0}'
  else
    echo 0 0
  fi
}
stopped=0
for ((round = 1; round <= ROUNDS; round++)); do
  if [[ -e $STOP_FILE ]]; then
    echo "$STOP_FILE exists: no more rounds" >&2
    rm -f "$STOP_FILE"
    break
  fi
  read -r games0 positions0 < <(count)
  started=$(date +%s)
  # Run in the background so that a signal to this script (Ctrl-C, `kill`, the process
  # group) reaches datagen, which finishes the games in progress and exits; the file is
  # then recorded below as after a normal end, and no further round starts.
  "$BIN" datagen "${args[@]}" &
  pid=$!
  trap 'stopped=1; kill -TERM "$pid" 2>/dev/null || true' INT TERM
  status=0
  wait "$pid" || status=$?
  while kill -0 "$pid" 2>/dev/null; do # a trapped signal ends `wait` early
    status=0
    wait "$pid" || status=$?
  done
  trap - INT TERM
  (( status == 0 )) || exit "$status"
  BIN=$BIN scripts/manifest.sh "$OUT" "$GEN" "$NET" "$BUDGET" "$SEED"
  read -r games1 positions1 < <(count)
  seconds=$(( $(date +%s) - started ))
  rate=$(( (positions1 - positions0) / (seconds > 0 ? seconds : 1) ))
  echo "round $round: +$((games1 - games0)) games, +$((positions1 - positions0)) positions, $rate kept positions/s"
  if (( COMMIT )) && (( games1 > games0 )); then
    # Only the data file and the manifest: whatever else is being edited stays out.
    git add -- "$OUT" data/manifest.tsv
    git commit -q --only -m "data: gen$GEN seed$SEED +$((games1 - games0)) games, +$((positions1 - positions0)) positions ($rate kept positions/s, $THREADS threads)" \
      -- "$OUT" data/manifest.tsv
  fi
  size=$(stat -c %s "$OUT")
  if (( size > 45 * 1024 * 1024 )); then
    echo "note: $OUT is $((size / 1024 / 1024)) MB; use SEED=$((SEED + 1)) for the next chunk" >&2
    break
  fi
  (( stopped )) && break
done

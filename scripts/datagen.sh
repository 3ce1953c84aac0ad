#!/usr/bin/env bash
# Self-play data: each round plays games into a new chunk file,
# data/gen$GEN/seed$SEED-part$K.vf (K one past the seed's last chunk), and records it in
# data/manifest.tsv (generation, net, node budget, seed, games, positions, bytes, sha256,
# starts): a committed chunk is never written again, so the repository grows by the new
# games only.
# A chunk continues the seed's game sequence after its earlier files (seed$SEED.vf, the
# single file of the rounds before chunks, then part1, part2, …: `rookery datagen
# --first-game`), so the concatenation of a seed's files is what one long run would have
# written. A chunk left on disk unrecorded (a round that was killed) is continued by the
# next round instead of starting another. Ctrl-C or `kill` stops a round cleanly (the
# games in progress are finished and the chunk recorded).
# OUT=file writes one named file instead (appending to it; FIRST_GAME=n its first game in
# the seed's sequence, default 0): the validation set, or remaking a recorded file.
# NETFILE=nets/X.safetensors plays with that net instead of the embedded one (recorded as X).
# ROUNDS=n with TIME=s plays n rounds of s seconds, one chunk each; COMMIT=1 commits each
# round's chunk and the manifest as the round ends (and nothing else), so a session that
# stops keeps all but the round in progress. GAMES=n ends a round at n games in its chunk.
# Creating $STOP_FILE (target/datagen.stop) stops the rounds after the current one.
# HARD_NODES=n caps each move's search at n nodes (default NODES: a move never costs more
# than the budget, and plays the last iteration completed within it); the manifest records
# the budget as NODES/HARD_NODES (soft/hard). Files recorded with NODES alone were made
# before this default, with datagen's own cap of 8 × NODES (HARD_NODES=40000 remakes them).
# CHESS960=F starts a share F of the games (0 to 1, default 0) from Chess960 positions,
# DOUBLE_CHESS960=D a share D of those (default 0.5) from double Chess960 ones (each side's
# back rank drawn on its own); the manifest's `starts` column records them
# (`chess960=F/double=D`, or `standard`). Keep them the same for all chunks of a seed, or
# the chunks no longer add up to what one run would write.
# Usage: [GEN=1] [NODES=5000] [HARD_NODES=n] [THREADS=2] [SEED=1] [TIME=seconds] [GAMES=n]
#        [OUT=file [FIRST_GAME=n]] [NETFILE=file] [ROUNDS=n COMMIT=1 STOP_FILE=file]
#        [CHESS960=F [DOUBLE_CHESS960=D]] scripts/datagen.sh
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
# OUT=data/validation/NAME.vf makes a validation set (listed in the manifest, never
# trained on by scripts/generation.sh).
FIXED_OUT=${OUT:-}
FIRST_GAME=${FIRST_GAME:-0}
args=(--threads "$THREADS" --nodes "$NODES" --seed "$SEED")
args+=(--hard-nodes "$HARD_NODES")
BUDGET=$NODES/$HARD_NODES
[[ -n $TIME ]] && args+=(--time-limit "$TIME")
[[ -n $GAMES ]] && args+=(--games "$GAMES")
[[ -n $NETFILE ]] && args+=(--net "$NETFILE")
CHESS960=${CHESS960:-0}
DOUBLE_CHESS960=${DOUBLE_CHESS960:-0.5}
args+=(--chess960 "$CHESS960" --double-chess960 "$DOUBLE_CHESS960")
if awk -v f="$CHESS960" 'BEGIN {exit !(f + 0 == 0)}'; then
  STARTS=standard
else
  STARTS=chess960=$CHESS960/double=$DOUBLE_CHESS960
fi
count() { # games and positions in file $1 (default: the round's output) so far
  local file=${1:-$OUT}
  if [[ -s $file ]]; then
    "$BIN" data stats "$file" | awk '$1 == "games" {g = $2} $1 == "positions" {p = $2} END {print g + 0, p + 0}'
  else
    echo 0 0
  fi
}
recorded() { # whether file $1 has a row in the manifest
  [[ -f data/manifest.tsv ]] && awk -F'\t' -v f="$1" '$1 == f {found = 1} END {exit !found}' data/manifest.tsv
}
# Sets OUT and FIRST to this round's chunk and the number of its first game in the seed's
# sequence (the games of the seed's earlier files).
next_chunk() {
  local base=data/gen$GEN/seed$SEED k=1 games positions
  FIRST=0
  if [[ -e $base.vf ]]; then
    read -r games positions < <(count "$base.vf")
    FIRST=$((FIRST + games))
  fi
  while [[ -e $base-part$k.vf ]]; do
    if [[ ! -e $base-part$((k + 1)).vf ]] && ! recorded "$base-part$k.vf"; then
      break # the last chunk, unrecorded: a killed round's, continued now
    fi
    read -r games positions < <(count "$base-part$k.vf")
    FIRST=$((FIRST + games))
    k=$((k + 1))
  done
  OUT=$base-part$k.vf
}
stopped=0
for ((round = 1; round <= ROUNDS; round++)); do
  if [[ -e $STOP_FILE ]]; then
    echo "$STOP_FILE exists: no more rounds" >&2
    rm -f "$STOP_FILE"
    break
  fi
  if [[ -n $FIXED_OUT ]]; then
    OUT=$FIXED_OUT FIRST=$FIRST_GAME
  else
    next_chunk
  fi
  read -r games0 positions0 < <(count)
  echo "round $round: $OUT (first game $((FIRST + games0)) of seed $SEED)"
  started=$(date +%s)
  # Run in the background so that a signal to this script (Ctrl-C, `kill`, the process
  # group) reaches datagen, which finishes the games in progress and exits; the file is
  # then recorded below as after a normal end, and no further round starts.
  "$BIN" datagen "${args[@]}" --out "$OUT" --first-game "$FIRST" &
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
  read -r games1 positions1 < <(count)
  if [[ -z $FIXED_OUT ]] && (( games1 == 0 )); then
    rm -f -- "$OUT" # stopped before its first game: no empty chunk
    echo "round $round: no games, no chunk"
    break
  fi
  BIN=$BIN scripts/manifest.sh "$OUT" "$GEN" "$NET" "$BUDGET" "$SEED" "$STARTS"
  seconds=$(( $(date +%s) - started ))
  rate=$(( (positions1 - positions0) / (seconds > 0 ? seconds : 1) ))
  echo "round $round: +$((games1 - games0)) games, +$((positions1 - positions0)) positions, $rate kept positions/s"
  if (( COMMIT )) && (( games1 > games0 )); then
    # Only the data file and the manifest: whatever else is being edited stays out.
    git add -- "$OUT" data/manifest.tsv
    git commit -q --only -m "data: $OUT, $((games1 - games0)) games, $((positions1 - positions0)) positions ($rate kept positions/s, $THREADS threads)" \
      -- "$OUT" data/manifest.tsv
  fi
  if [[ -n $FIXED_OUT ]] && (( $(stat -c %s "$OUT") > 45 * 1024 * 1024 )); then
    echo "note: $OUT is over 45 MB; start another file" >&2
    break
  fi
  if (( stopped )); then break; fi
done

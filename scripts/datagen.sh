#!/usr/bin/env bash
# Self-play data: plays games into data/gen$GEN/seed$SEED.vf (appending; a rerun with the
# same settings continues the same game sequence) and records the file in
# data/manifest.tsv (generation, net, node budget, seed, games, positions, bytes, sha256).
# Start a new seed when a file nears 50 MB (about 10M positions). Ctrl-C or `kill`
# stops it cleanly (the games in progress are finished and the manifest updated).
# NETFILE=nets/X.safetensors plays with that net instead of the embedded one (recorded as X).
# Usage: [GEN=1] [NODES=5000] [THREADS=2] [SEED=1] [TIME=seconds] [GAMES=n] [OUT=file]
#        [NETFILE=file] scripts/datagen.sh
set -euo pipefail
cd "$(dirname "$0")/.."
GEN=${GEN:-1}
NODES=${NODES:-5000}
THREADS=${THREADS:-2}
SEED=${SEED:-1}
TIME=${TIME:-}
GAMES=${GAMES:-}
cargo build --release --quiet
BIN=target/release/rookery
NETFILE=${NETFILE:-}
if [[ -n $NETFILE ]]; then
  NET=$(basename "$NETFILE" .safetensors)
fi
NET=${NET:-$(sed -n 's/^pub const DEFAULT_NET_NAME: &str = "\(.*\)";/\1/p' src/eval/mod.rs)}
# OUT=data/validation/NAME.vf makes a validation set instead (listed in the manifest,
# never trained on by scripts/generation.sh).
OUT=${OUT:-data/gen$GEN/seed$SEED.vf}
args=(--out "$OUT" --threads "$THREADS" --nodes "$NODES" --seed "$SEED")
[[ -n $TIME ]] && args+=(--time-limit "$TIME")
[[ -n $GAMES ]] && args+=(--games "$GAMES")
[[ -n $NETFILE ]] && args+=(--net "$NETFILE")
# Run in the background so that a signal to this script (Ctrl-C, `kill`, the process
# group) reaches datagen, which finishes the games in progress and exits; the file is
# then recorded below as after a normal end.
"$BIN" datagen "${args[@]}" &
pid=$!
trap 'kill -TERM "$pid" 2>/dev/null || true' INT TERM
status=0
wait "$pid" || status=$?
while kill -0 "$pid" 2>/dev/null; do # a trapped signal ends `wait` early
  status=0
  wait "$pid" || status=$?
done
trap - INT TERM
(( status == 0 )) || exit "$status"
scripts/manifest.sh "$OUT" "$GEN" "$NET" "$NODES" "$SEED"
size=$(stat -c %s "$OUT")
if (( size > 45 * 1024 * 1024 )); then
  echo "note: $OUT is $((size / 1024 / 1024)) MB; use SEED=$((SEED + 1)) for the next chunk" >&2
fi

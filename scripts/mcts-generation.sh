#!/usr/bin/env bash
# One generation of MCTS self-play learning (AlphaZero's loop, issue 57 item 4):
#
#   1. data   `rookery datagen --mode mcts` with the previous policy as the prior:
#             $GAMES games at $PLAYOUTS playouts a move, Dirichlet noise at the root,
#             moves sampled by visits for $TEMP_PLIES plies -> data/mcts/$NAME-seed$SEED.mcv
#             (appended to: a rerun continues a cut-off run);
#             and recorded in data/mcts/manifest.tsv;
#   2. train  `rookery train-policy --visits` on that file and the $WINDOW - 1 files before
#             it in the manifest (a replay window over the latest generations, as
#             AlphaZero's buffer of recent games), fine-tuning the previous policy
#             (--init) -> nets/$NAME.safetensors, losses in docs/nets/$NAME.csv;
#   3. match  the new policy against the previous one, both in `SearchMode mcts` at
#             $MATCH_PLAYOUTS playouts a move (scripts/match.py --nodes), each engine
#             given its net with `PolicyFile`; results appended to docs/mcts-matches.jsonl.
#
# Usage: scripts/mcts-generation.sh [--dry-run | --small] PREVIOUS_NET NAME
#   e.g. scripts/mcts-generation.sh nets/policy-sp1.safetensors policy-mcts1
#   --dry-run  prints the commands without running them;
#   --small    a few-minute run (4 games at 64 playouts, 4 match games) into /tmp, to
#              check the pipeline.
# Settings (environment): GAMES (200), PLAYOUTS (400), TEMP_PLIES (30), THREADS (2),
# SEED (1), EPOCHS (4), LR (5e-4), WINDOW (2), MATCH_GAMES (40), MATCH_PLAYOUTS (800), BIN
# (target/release/rookery). The step whose output exists is skipped, except datagen,
# which appends up to GAMES. The embedded prior is never replaced here.
set -euo pipefail
cd "$(dirname "$0")/.."

DRY=0
SMALL=0
while [[ ${1:-} == --* ]]; do
  case $1 in
    --dry-run) DRY=1 ;;
    --small) SMALL=1 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
if (( $# != 2 )); then
  sed -n '2,24p' "$0" >&2
  exit 2
fi
PREVIOUS=$1
NAME=$2
if [[ ! -f $PREVIOUS ]]; then
  echo "previous policy net '$PREVIOUS' not found" >&2
  exit 1
fi

BIN=${BIN:-target/release/rookery}
THREADS=${THREADS:-2}
SEED=${SEED:-1}
if (( SMALL )); then
  GAMES=${GAMES:-4}; PLAYOUTS=${PLAYOUTS:-64}; EPOCHS=${EPOCHS:-2}
  MATCH_GAMES=${MATCH_GAMES:-4}; MATCH_PLAYOUTS=${MATCH_PLAYOUTS:-64}
  DATA=/tmp/rookery-mcts-small/$NAME-seed$SEED.mcv
  NET=/tmp/rookery-mcts-small/$NAME.safetensors
  CSV=/tmp/rookery-mcts-small/$NAME.csv
  RESULTS=/tmp/rookery-mcts-small/matches.jsonl
else
  GAMES=${GAMES:-200}; PLAYOUTS=${PLAYOUTS:-400}; EPOCHS=${EPOCHS:-4}
  MATCH_GAMES=${MATCH_GAMES:-40}; MATCH_PLAYOUTS=${MATCH_PLAYOUTS:-800}
  DATA=data/mcts/$NAME-seed$SEED.mcv
  NET=nets/$NAME.safetensors
  CSV=docs/nets/$NAME.csv
  RESULTS=docs/mcts-matches.jsonl
fi
TEMP_PLIES=${TEMP_PLIES:-30}
LR=${LR:-5e-4}
WINDOW=${WINDOW:-2}
MANIFEST=data/mcts/manifest.tsv

run() {
  echo "+ $*"
  if (( ! DRY )); then "$@"; fi
}

if (( ! DRY )); then
  [[ -x $BIN ]] || { echo "no engine binary $BIN (cargo build --release)" >&2; exit 1; }
  mkdir -p "$(dirname "$DATA")" "$(dirname "$NET")" "$(dirname "$CSV")"
fi

# 1. Self-play with the previous policy as the prior.
run nice -n 19 "$BIN" datagen --mode mcts --policy "$PREVIOUS" --out "$DATA" \
  --games "$GAMES" --playouts "$PLAYOUTS" --temperature-plies "$TEMP_PLIES" \
  --threads "$THREADS" --seed "$SEED"

# The file's manifest row (file, policy, playouts, seed, games, positions, bytes, sha256,
# command); a rerun that appended games replaces it.
if (( ! DRY && ! SMALL )); then
  read -r games positions < <("$BIN" data stats "$DATA" | awk '$1 == "games" {g = $2} $1 == "positions" {p = $2} END {print g, p}')
  row=$(printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s' "$DATA" "$PREVIOUS" "$PLAYOUTS" "$SEED" \
    "$games" "$positions" "$(stat -c %s "$DATA")" "$(sha256sum "$DATA" | cut -d' ' -f1)" \
    "rookery datagen --mode mcts --policy $PREVIOUS --out $DATA --games $GAMES --playouts $PLAYOUTS --temperature-plies $TEMP_PLIES --threads $THREADS --seed $SEED (scripts/mcts-generation.sh, GAMES=$GAMES)")
  grep -v -P "^\Q$DATA\E\t" "$MANIFEST" > "$MANIFEST.new" || true
  echo "$row" >> "$MANIFEST.new"
  mv "$MANIFEST.new" "$MANIFEST"
fi

# 2. Fine-tune the previous policy on the visit counts of the window.
window=("$DATA")
if (( ! SMALL && WINDOW > 1 )); then
  mapfile -t earlier < <(awk -F'\t' -v new="$DATA" 'NR > 1 && $1 != new {print $1}' "$MANIFEST" | tail -n $((WINDOW - 1)))
  window=("${earlier[@]}" "$DATA")
fi
if [[ -f $NET ]]; then
  echo "$NET exists: training skipped"
else
  run nice -n 19 "$BIN" train-policy --visits "${window[@]}" --init "$PREVIOUS" --out "$NET" \
    --csv "$CSV" --sample 1 --validation-games 0.1 --max-positions 0 --epochs "$EPOCHS" \
    --lr "$LR" --batch-size 256 --curve-every 20
fi

# 3. New policy against the previous one at fixed playouts (both in MCTS mode).
run nice -n 19 python3 scripts/match.py "rookery:$BIN,name=$NAME" \
  "rookery:$BIN,name=$(basename "$PREVIOUS" .safetensors)" --games "$MATCH_GAMES" \
  --nodes "$MATCH_PLAYOUTS" --each SearchMode=mcts --each Hash=64 \
  --option1 "PolicyFile=$NET" --option2 "PolicyFile=$PREVIOUS" \
  --results "$RESULTS"

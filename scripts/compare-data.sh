#!/usr/bin/env bash
# Which of two data sets trains the better net, position for position: trains one small
# net from scratch on each (the same recipe, seed and number of positions), prints both
# validation losses, then plays the two nets against each other at a fixed node budget
# (same binary, EvalFile, 8moves_v3 shuffled, both colours, 2 games at a time; fixed nodes
# so that other load on the machine does not matter). A question about how data is made
# (a node budget, a filter, a search setting) is settled this way before a whole
# generation's data is made that way.
#
# A and B are one or more .vf files each (space-separated, read in order); N positions are
# read from each (default: all of the smaller side). The nets are written under
# target/compare-data/ (not kept; the commands remake them) and the match summary to
# docs/generations/compare-$TAG.jsonl, losses to docs/generations/compare-$TAG-loss-{a,b}.csv.
# Usage: TAG=name A="files" B="files" [N=positions] [EPOCHS=16] [GAMES=600] [NODES=10000]
#        [SEED=n] scripts/compare-data.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/common.sh
TAG=${TAG:?set TAG, a name for the comparison}
A=${A:?set A, the first data set}
B=${B:?set B, the second data set}
EPOCHS=${EPOCHS:-16}
GAMES=${GAMES:-600}
NODES=${NODES:-10000}
SEED=${SEED:-$RANDOM}
cargo build --release --quiet
BIN=target/release/rookery
read -r -a files_a <<<"$A"
read -r -a files_b <<<"$B"
positions() { # training positions in the files
  "$BIN" data stats "$@" | awk '$1 == "positions" {print $2}'
}
if [[ -z ${N:-} ]]; then
  na=$(positions "${files_a[@]}")
  nb=$(positions "${files_b[@]}")
  N=$((na < nb ? na : nb))
fi
echo "== $TAG: $N positions from each side"
DIR=target/compare-data/$TAG
mkdir -p "$DIR" docs/generations
# Nets left by an earlier run of this TAG are reused (a rerun only replays the match) if
# they were trained from the same data, count and epochs; otherwise they are retrained.
stamp="A=$A B=$B N=$N EPOCHS=$EPOCHS"
if [[ ! -e $DIR/stamp || $(cat "$DIR/stamp") != "$stamp" ]]; then
  rm -f "$DIR/a.safetensors" "$DIR/b.safetensors"
  echo "$stamp" > "$DIR/stamp"
fi
validation_args
# The recipe of the embedded net (`rookery train`'s defaults), scaled down only in data.
recipe_args
for side in a b; do
  if [[ $side == a ]]; then files=("${files_a[@]}"); else files=("${files_b[@]}"); fi
  net=$DIR/$side.safetensors
  csv=docs/generations/compare-$TAG-loss-$side.csv
  if [[ -e $net ]]; then
    echo "== $net exists, not retrained"
    continue
  fi
  rm -f "$csv"
  echo "== train $side on ${files[*]}"
  "$BIN" train --data "${files[@]}" --max-positions "$N" --out "$net" --epochs "$EPOCHS" \
    "${RECIPE_ARGS[@]}" --csv "$csv" --quiet "${VAL_ARGS[@]}"
done
for side in a b; do # the last epoch's row: epoch,train_loss,val_loss,lr,seconds
  echo "== $side: last epoch $(tail -n 1 "docs/generations/compare-$TAG-loss-$side.csv")"
done
python3 scripts/match.py \
  "rookery,name=$TAG-a,option.EvalFile=$PWD/$DIR/a.safetensors" \
  "rookery,name=$TAG-b,option.EvalFile=$PWD/$DIR/b.safetensors" \
  --nodes "$NODES" --games "$GAMES" -c 2 --shuffle --seed "$SEED" \
  --results "docs/generations/compare-$TAG.jsonl" --engine-stderr discard

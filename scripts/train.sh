#!/usr/bin/env bash
# Trains a network on the shared data set. Defaults reproduce nets/rookery-v2.safetensors
# (10 epochs); EPOCHS=6 OUT=nets/rookery-v1.safetensors reproduces the embedded default.
# Usage: [OUT=… HIDDEN=… EPOCHS=… RUN=… RESUME=1] scripts/train.sh [extra `rookery train` flags...]
# RESUME=1 continues a run cut off part-way from $RUN/checkpoints/resume.safetensors.
# Nets trained before the per-epoch shuffle (resumable training) retrain to equivalent,
# not byte-identical, nets (see docs/net.md).
set -euo pipefail
# The Stockfish-labelled data set is not in the repository (an optional input from outside
# it): ../shared/data/train by default, DATA=DIR elsewhere.
DATA=${DATA:-../shared/data/train}
[[ -d $DATA ]] || { echo "train.sh: no training data at DATA=$DATA (not part of the repository; set DATA=DIR)" >&2; exit 2; }
OUT=${OUT:-nets/rookery-v2.safetensors}
RUN=${RUN:-target/train-v2}
HIDDEN=${HIDDEN:-256}
EPOCHS=${EPOCHS:-10}
mkdir -p "$RUN"
cargo build --release
nice -n 10 target/release/rookery train \
  --data "$DATA"/sf15-n3000-part1.txt.gz "$DATA"/sf15-n3000-part2.txt.gz \
         "$DATA"/sf15-n3000-part3.txt.gz "$DATA"/sf15-n3000-part4.txt.gz \
  --out "$OUT" --epochs "$EPOCHS" --batch-size 8192 --lr 0.004 --lr-final 0.05 \
  --wdl-lambda 0.3 --scale 400 --val-fraction 0.02 --hidden "$HIDDEN" --seed 1 \
  --checkpoint-dir "$RUN/checkpoints" --csv "$RUN/loss.csv" \
  ${RESUME:+--resume "$RUN/checkpoints/resume.safetensors"} "$@"

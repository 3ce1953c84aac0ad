#!/usr/bin/env bash
# Retrains a net from random weights with its own recipe, end to end: `rookery train`'s
# defaults (the embedded net's recipe is declared there and nowhere else), on the files
# and loss weights its run read, as docs/generations/<net>-data.tsv records them, validated
# on the fixed set under data/validation/.
#
# The self-play files are in the repository (data/). The Stockfish-labelled positions
# (sf15-n3000-part*.txt.gz, 4.4M positions) are not: they are an outside input, read from
# $SHARED (default ../shared/data/train); the script stops with a message when one is
# missing. A self-play file whose position count differs from the record (the manifest's
# count) stops it too, since the run would not be the recorded one.
#
# Usage: [NET=<net>] [OUT=nets/<net>-retrained.safetensors] [RUN=target/train-<net>]
#        [SHARED=dir] [RESUME=1] scripts/train.sh [extra `rookery train` flags...]
#   NET      the net whose run to repeat (default: the embedded one)
#   RESUME=1 continues a run cut off part-way from $RUN/checkpoints/resume.safetensors
# Extra flags override the recipe (e.g. `--epochs 1 --max-positions 100000` for a quick
# check that the pipeline runs).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/common.sh
if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
  exit 0
fi
NET=${NET:-$(embedded_net)}
OUT=${OUT:-nets/$NET-retrained.safetensors}
RUN=${RUN:-target/train-$NET}
SHARED=${SHARED:-../shared/data/train}
RECORD=docs/generations/$NET-data.tsv
if [[ ! -e $RECORD ]]; then
  echo "error: $RECORD is missing: no record of what $NET was trained on" >&2
  exit 1
fi

# "file weight positions" rows of the record; Stockfish's files are looked up in $SHARED.
data=()
while IFS=$'\t' read -r file weight positions; do
  if [[ $file == */sf15-n3000-part*.txt.gz ]]; then
    file=$SHARED/$(basename "$file")
    if [[ ! -e $file ]]; then
      echo "error: $file is missing. $NET was trained on Stockfish-labelled positions that" >&2
      echo "are not in the repository; set SHARED to the folder that holds sf15-n3000-part*.txt.gz." >&2
      exit 1
    fi
  else
    now=$(awk -F'\t' -v f="$file" '$1 == f {print $7}' data/manifest.tsv)
    if [[ $now != "$positions" ]]; then
      echo "error: $file has ${now:-no} positions in data/manifest.tsv, $NET's run read $positions" >&2
      exit 1
    fi
  fi
  data+=("$file@$weight")
done < <(tail -n +2 "$RECORD")

validation_args
mkdir -p "$RUN"
cargo build --release --quiet
nice -n 10 target/release/rookery train --data "${data[@]}" --out "$OUT" "${VAL_ARGS[@]}" \
  --checkpoint-dir "$RUN/checkpoints" --csv "$RUN/loss.csv" \
  ${RESUME:+--resume "$RUN/checkpoints/resume.safetensors"} "$@"
echo "== $OUT: compare its losses ($RUN/loss.csv) with docs/nets/$NET-loss.csv"

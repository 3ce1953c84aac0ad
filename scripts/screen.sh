#!/usr/bin/env bash
# A quick screen of a candidate net before its timed gate: NAME (nets/$NAME.safetensors,
# loaded with EvalFile) against the embedded net at a fixed node budget per move, same
# binary, 8moves_v3 shuffled, both colours, 2 games at a time. Fixed nodes make it
# insensitive to other load on the machine (datagen may run beside it) and fair between
# nets of the same architecture; a net of another size needs the timed gate
# (scripts/generation.sh) to count its speed. Results go to
# docs/generations/$NAME-screen-$NODES-nodes.jsonl (one summary line per run).
#
# CAND_NODES gives the candidate its own budget (node odds): for a net of another width,
# NODES × (its bench nps / the embedded net's bench nps, `rookery bench --net FILE`
# measured on a quiet machine) plays both at about equal time while staying insensitive to
# load, a cheap stand-in for the timed gate, which still decides. Its results go to
# docs/generations/$NAME-screen-$NODES-vs-$CAND_NODES-nodes.jsonl.
# OPENINGS=chess960 plays from Chess960 start positions instead (match.py --openings), its
# results in a file ending -chess960.jsonl.
# Usage: NAME=rookery-gen6b-ft [NODES=15000] [CAND_NODES=n] [GAMES=300] [SEED=n]
#        [OPENINGS=chess960] scripts/screen.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/common.sh
NAME=${NAME:?set NAME, the candidate in nets/}
NODES=${NODES:-15000}
GAMES=${GAMES:-300}
SEED=${SEED:-$RANDOM}
CAND_NODES=${CAND_NODES:-$NODES}
OPENINGS=${OPENINGS:-}
RESULTS=docs/generations/$NAME-screen-$NODES-nodes
[[ $CAND_NODES == "$NODES" ]] || RESULTS=docs/generations/$NAME-screen-$NODES-vs-$CAND_NODES-nodes
openings=()
if [[ -n $OPENINGS ]]; then
  openings=(--openings "$OPENINGS")
  name=$(basename "$OPENINGS")
  RESULTS=$RESULTS-${name%%.*} # chess960, or a file's name without its extensions
fi
RESULTS=$RESULTS.jsonl
NET=nets/$NAME.safetensors
[[ -e $NET ]] || { echo "no $NET" >&2; exit 1; }
cargo build --release --quiet
BASE=$(embedded_net)
python3 scripts/match.py "rookery,name=$NAME,option.EvalFile=$PWD/$NET,nodes=$CAND_NODES" "rookery,name=$BASE" \
  --nodes "$NODES" --games "$GAMES" -c 2 --shuffle --seed "$SEED" "${openings[@]}" \
  --results "$RESULTS" --engine-stderr discard

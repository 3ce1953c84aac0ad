#!/usr/bin/env bash
# One generation of the self-play loop (issue: "each new net must beat the last"):
#
#   1. data   (optional) more self-play games with the embedded net, in a new chunk
#             data/gen$DATA_GEN/seed$SEED-part<K>.vf recorded in data/manifest.tsv;
#   2. train  net $NAME on all the shared Stockfish-labelled positions (part*.txt.gz, weighted
#             $SHARED_WEIGHT) plus every self-play
#             file under data/ (weighted $SELFPLAY_WEIGHT in the loss, or per generation with
#             GEN_WEIGHTS="1=0 4=2": generation 1 left out, generation 4 weighed twice),
#             resuming from its checkpoint when a previous run was cut off; the files it
#             read (with their positions then) go to docs/generations/$NAME-data.tsv and its
#             losses to docs/nets/$NAME-loss.csv, both committed with the net;
#   3. gate   the new net (EvalFile) against the embedded one, same binary, $GAMES games
#             at $TC, results appended to docs/generations/$NAME.jsonl;
#   4. record a row in docs/generations.md: data, training, losses, match, verdict, and
#             redraw docs/generations.png (scripts/plot_generations.py).
#
# Each step is skipped when its output exists, so a run cut off by the end of a session
# continues where it stopped when started again with the same settings. The verdict is
# "accepted" when the 95 % interval of the pentanomial Elo lies above 0; EMBED=1 then
# makes the net the embedded default (src/eval/mod.rs) and prints the new bench
# signature for the commit. With SPRT="ELO0 ELO1" the gate stops as soon as the SPRT
# decides (GAMES is then the most it plays); the verdict is still the 95 % interval.
# GATE_NODES=n plays the gate at n nodes per move instead of $TC (fair only between nets
# of the same size and cost per node, e.g. 15000 for two H=256 nets); GATE_SEED=s takes
# the openings in a shuffled order (seed s), so that a gate need not replay the openings
# a screen (scripts/screen.sh) already used.
#
# The net's recipe is `rookery train`'s defaults (the embedded net's); EPOCHS, HIDDEN, L1,
# BUCKETS, LR, LR_FINAL and LAMBDA override a part of it when set, SCRELU=0 and MIRROR=0
# turn those off (scripts/common.sh, recipe_args).
#
# Usage: NAME=rookery-gen2 [DATAGEN_TIME=s DATA_GEN=1 SEED=n NODES=5000 THREADS=2]
#        [EPOCHS=n HIDDEN=n BUCKETS=n SCRELU=0 MIRROR=0 SELFPLAY_WEIGHT=1 SHARED_WEIGHT=1]
#        [GEN_WEIGHTS="g=w …"] [CHESS960_WEIGHT=w]
#        [L1=16] [LR=x LR_FINAL=x LAMBDA=x INIT=nets/<net>.safetensors
#        INIT_FT=nets/<net>.safetensors MAX_STEPS=n]
#        [GAMES=400 TC=8+0.08 SPRT="0 10" GATE_NODES=n GATE_SEED=s]
#        [EMBED=1] [TRAIN_ONLY=1] scripts/generation.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/common.sh
NAME=${NAME:?set NAME, e.g. NAME=rookery-gen2}
DATAGEN_TIME=${DATAGEN_TIME:-0}
DATA_GEN=${DATA_GEN:-1}
NODES=${NODES:-5000}
THREADS=${THREADS:-2}
EPOCHS=${EPOCHS:-}
SELFPLAY_WEIGHT=${SELFPLAY_WEIGHT:-1}
SHARED_WEIGHT=${SHARED_WEIGHT:-1}
GEN_WEIGHTS=${GEN_WEIGHTS:-}
# CHESS960_WEIGHT: the weight of self-play files whose games start from Chess960 positions
# (the manifest's `starts` column is not `standard`), over their generation's; a few of them
# beside tens of millions of standard positions need more than their share to be learnt.
CHESS960_WEIGHT=${CHESS960_WEIGHT:-}
# INIT: fine-tune this net (same architecture, or a narrower feature transformer widened to
# HIDDEN) instead of starting from random weights.
INIT=${INIT:-}
# INIT_FT: start the feature transformer from this net and the head from random weights
# (a run that changes the head's shape, e.g. L1=16).
INIT_FT=${INIT_FT:-}
GAMES=${GAMES:-400}
TC=${TC:-8+0.08}
SPRT=${SPRT:-}
GATE_NODES=${GATE_NODES:-}
GATE_SEED=${GATE_SEED:-}
EMBED=${EMBED:-0}
# TRAIN_ONLY=1 stops after training (e.g. to screen the net at fixed nodes first).
TRAIN_ONLY=${TRAIN_ONLY:-0}
# Stockfish-labelled positions (sf15-n3000-part*.txt.gz): an optional input from outside
# the repository, ../shared/data/train by default; SHARED_WEIGHT=0 trains without them.
SHARED=${SHARED:-../shared/data/train}
NET=nets/$NAME.safetensors
RUN=target/$NAME
RESULTS=docs/generations/$NAME.jsonl
DATA_RECORD=docs/generations/$NAME-data.tsv
mkdir -p "$RUN" docs/generations

cargo build --release --quiet
BIN=target/release/rookery
BASE_NET=$(embedded_net)

# 1. Self-play data with the embedded net.
if (( DATAGEN_TIME > 0 )); then
  if [[ -z ${SEED:-} ]]; then
    SEED=1
    while [[ -e data/gen$DATA_GEN/seed$SEED.vf ]]; do SEED=$((SEED + 1)); done
  fi
  echo "== data: $DATAGEN_TIME s of self-play into a new chunk of data/gen$DATA_GEN, seed $SEED"
  GEN=$DATA_GEN SEED=$SEED NODES=$NODES THREADS=$THREADS TIME=$DATAGEN_TIME \
    NET=$BASE_NET scripts/datagen.sh
fi

# 2. Training.
if [[ -e $NET ]]; then
  echo "== train: $NET exists, skipped"
else
  # data/validation/ holds a fixed set that no net trains on: losses on it compare
  # across generations (without it, 2 % of the training data is held out).
  # "file generation" pairs of the training files; GEN_WEIGHTS overrides the weight of
  # whole generations (weight 0 leaves a generation out).
  mapfile -t selfplay < <(awk -F'\t' 'NR > 1 && $1 !~ /^data\/validation\// {print $1, $2, $10}' data/manifest.tsv)
  validation_args
  data=()
  if [[ $SHARED_WEIGHT != 0 ]]; then # 0 leaves Stockfish's positions out
    shopt -s nullglob
    for f in "$SHARED"/sf15-n3000-part*.txt.gz; do data+=("$f@$SHARED_WEIGHT"); done
    shopt -u nullglob
    if (( ${#data[@]} == 0 )); then
      echo "generation.sh: no sf15-n3000-part*.txt.gz in SHARED=$SHARED (not part of the repository): set SHARED=DIR, or SHARED_WEIGHT=0 to train on self-play data only" >&2
      exit 2
    fi
  fi
  declare -A gen_weight=()
  for gw in $GEN_WEIGHTS; do gen_weight[${gw%%=*}]=${gw#*=}; done
  used=0
  for fg in "${selfplay[@]}"; do
    read -r f g starts <<<"$fg"
    w=${gen_weight[$g]:-$SELFPLAY_WEIGHT}
    if [[ -n $CHESS960_WEIGHT && -n $starts && $starts != standard ]]; then w=$CHESS960_WEIGHT; fi
    [[ $w == 0 ]] && continue
    data+=("$f@$w")
    used=$((used + 1))
  done
  resume=()
  [[ -e $RUN/checkpoints/resume.safetensors ]] && resume=(--resume "$RUN/checkpoints/resume.safetensors")
  steps=()
  init=()
  # A resumed run restores its weights from the checkpoint; the starting net is only read
  # at the start.
  if (( ${#resume[@]} == 0 )); then
    [[ -n $INIT ]] && init=(--init "$INIT")
    [[ -n $INIT_FT ]] && init=(--init-ft "$INIT_FT")
  fi
  recipe_args
  [[ -n $EPOCHS ]] && RECIPE_ARGS+=(--epochs "$EPOCHS")
  [[ -n ${MAX_STEPS:-} ]] && steps=(--stop-after-steps "$MAX_STEPS")
  echo "== train: $NET from ${#data[@]} files ($used self-play, weight $SELFPLAY_WEIGHT${GEN_WEIGHTS:+, by generation $GEN_WEIGHTS}${CHESS960_WEIGHT:+, Chess960 starts $CHESS960_WEIGHT})"
  printf '%s\n' "${data[@]}" > "$RUN/data.txt"
  # What the trainer reads, with each self-play file's positions as the manifest has them
  # now (datagen may go on appending while the gate runs): the record's data column comes
  # from this file, which is committed with the net, so a gate resumed in a later session
  # or on a fresh machine records what the net was trained on.
  python3 scripts/generation_record.py --snapshot-data "$RUN/data.txt" > "$DATA_RECORD"
  rm -f "$NET.partial" # the trainer writes --out only when every epoch is done
  nice -n 10 "$BIN" train --data "${data[@]}" --out "$NET.partial" \
    "${RECIPE_ARGS[@]}" --checkpoint-dir "$RUN/checkpoints" \
    --csv "$RUN/loss.csv" "${resume[@]}" "${steps[@]}" "${init[@]}" "${VAL_ARGS[@]}"
  if [[ ! -e $NET.partial ]]; then
    echo "training stopped before the last epoch; run again to resume" >&2
    exit 0
  fi
  mv "$NET.partial" "$NET"
  cp "$RUN/loss.csv" "docs/nets/$NAME-loss.csv" # the net's card plots it; committed with the net
fi

if (( TRAIN_ONLY )); then
  echo "== TRAIN_ONLY=1: $NET trained; the same command without it runs the gate"
  exit 0
fi

# 3. Gate: the new net against the embedded one.
# Games already played, their pentanomial counts and an SPRT decision already reached,
# from the results of earlier runs (one JSON line per run).
played=0
prior=0,0,0,0,0
decided=""
if [[ -e $RESULTS ]]; then
  read -r played prior decided < <(python3 -c "import json,sys
sys.path.insert(0,'scripts')
from matchlib.stats import combine_runs
runs=[json.loads(l) for l in open(sys.argv[1]) if l.strip()]
t=combine_runs(runs)
d=runs[-1].get('sprt',{}).get('decision','')
print(t['games'], ','.join(map(str,t['penta'])), d if d.startswith('H') else '')" "$RESULTS")
fi
sprt=()
[[ -n $SPRT ]] && read -r -a sprt_bounds <<<"$SPRT" && sprt=(--sprt "${sprt_bounds[@]}")
# A resumed gate continues the same SPRT: the earlier runs' pairs count in its LLR.
if [[ -n $SPRT ]] && (( played > 0 )); then sprt+=(--sprt-prior "$prior"); fi
limit=(--tc "$TC")
[[ -n $GATE_NODES ]] && limit=(--nodes "$GATE_NODES")
order=()
[[ -n $GATE_SEED ]] && order=(--shuffle --seed "$GATE_SEED")
if (( played >= GAMES )); then
  echo "== gate: $played games already in $RESULTS, skipped"
elif [[ -n $decided ]]; then
  echo "== gate: SPRT already decided ($decided) after $played games, skipped"
else
  echo "== gate: $NAME vs $BASE_NET, $((GAMES - played)) games at ${GATE_NODES:+$GATE_NODES nodes/move}${GATE_NODES:-$TC}"
  # --start continues the opening sequence (shuffled or not) where earlier runs stopped.
  python3 scripts/match.py "rookery,name=$NAME,option.EvalFile=$PWD/$NET" \
    "rookery,name=$BASE_NET" "${limit[@]}" --games $((GAMES - played)) -c 2 \
    --start $((played / 2 + 1)) "${order[@]}" --results "$RESULTS" --pgn "$RUN/gate.pgn" \
    --engine-stderr discard "${sprt[@]}"
fi

# 4. Verdict and record. Both inputs are committed with the net (target/ is not kept between
# sessions); a generation trained before the data table existed falls back to its run's list.
data_record=$DATA_RECORD
[[ -e $data_record ]] || data_record=$RUN/data.txt
# The record's recipe: the net's shape from its file, the schedule from the overrides or
# the trainer's defaults.
net_recipe "$NET"
verdict=$(python3 scripts/generation_record.py --name "$NAME" --base "$BASE_NET" \
  --net "$NET" --results "$RESULTS" --loss "docs/nets/$NAME-loss.csv" --data-list "$data_record" \
  --selfplay-weight "$SELFPLAY_WEIGHT${GEN_WEIGHTS:+ (generation weights $GEN_WEIGHTS)}${CHESS960_WEIGHT:+, Chess960 starts $CHESS960_WEIGHT}$([[ $SHARED_WEIGHT == 1 ]] || echo ", Stockfish data $SHARED_WEIGHT")" \
  --epochs "${EPOCHS:-$(train_default "$BIN" epochs)}" \
  --training-note "${INIT:+from $(basename "$INIT" .safetensors)}${INIT_FT:+feature transformer from $(basename "$INIT_FT" .safetensors)}${L1:+, l1 $L1}${LR:+ lr $LR}${LR_FINAL:+ final lr ×$LR_FINAL}, λ ${LAMBDA:-$(train_default "$BIN" wdl-lambda)}" \
  --hidden "$NET_HIDDEN" --buckets "$NET_BUCKETS" --screlu "$NET_SCRELU" --mirror "$NET_MIRROR")
echo "== verdict: $verdict"
python3 scripts/plot_generations.py >/dev/null || echo "docs/generations.png not redrawn (matplotlib?)" >&2
if [[ $verdict == accepted && $EMBED == 1 ]]; then
  sed -i "s|^pub const DEFAULT_NET_NAME: &str = \".*\";|pub const DEFAULT_NET_NAME: \&str = \"$NAME\";|; s|include_bytes!(\"../../nets/.*\.safetensors\")|include_bytes!(\"../../$NET\")|" src/eval/mod.rs
  cargo build --release --quiet
  nodes=$("$BIN" bench 2>/dev/null | tail -1 | awk '{print $1}')
  sed -i "s|^pub const SIGNATURE: u64 = .*;|pub const SIGNATURE: u64 = $nodes;|" src/bench/mod.rs
  echo "embedded $NAME; commit with 'Bench: $nodes'"
fi

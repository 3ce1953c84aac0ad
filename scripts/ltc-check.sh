#!/usr/bin/env bash
# Issue 58 item 4: an accepted generation's gain must hold at a longer time control. NAME
# (nets/$NAME.safetensors) plays its parent PARENT (nets/$PARENT.safetensors) at $TC
# (default 40+0.4), both loaded with EvalFile into the same release build, 8moves_v3
# shuffled with SEED, both colours, 2 games at a time, Hash $HASH MB each, GAMES games in
# all (default 200). OPENINGS=chess960 plays from the Chess960 start positions instead
# (match.py --openings; results in a file ending -chess960.jsonl): for a net whose gain
# was claimed there.
#
# Resumable: each run appends its summary line to
# docs/generations/$NAME-vs-$PARENT-$TC.jsonl and plays on from the opening pair after
# the last one an earlier run reached (same shuffled order: keep SEED), so a check longer
# than a session is played in parts; stop a part with `pkill -TERM -f scripts/match.py`
# (its summary is still written). Each run ends by printing all parts together (W-D-L,
# pentanomial, Elo ± 95 %, errors), as `--combine` alone does without playing. Parts are
# counted by games, so when a stopped part finished a later game before an earlier one,
# the next part may play one opening's game a second time.
# Timed games: run it alone on the machine (no datagen, match or build beside it).
#
# Usage: NAME=rookery-gen17-960 PARENT=rookery-gen16-960 [SEED=116] [GAMES=200]
#        [TC=40+0.4] [HASH=64] [OPENINGS=chess960] scripts/ltc-check.sh [--combine]
set -euo pipefail
cd "$(dirname "$0")/.."
NAME=${NAME:?set NAME, the accepted net in nets/}
PARENT=${PARENT:?set PARENT, the net it replaced, in nets/}
SEED=${SEED:-116}
GAMES=${GAMES:-200}
TC=${TC:-40+0.4}
HASH=${HASH:-64}
OPENINGS=${OPENINGS:-}
RESULTS=docs/generations/$NAME-vs-$PARENT-$TC
openings=()
if [[ -n $OPENINGS ]]; then
  openings=(--openings "$OPENINGS")
  name=$(basename "$OPENINGS")
  RESULTS=$RESULTS-${name%%.*}
fi
RESULTS=$RESULTS.jsonl
for net in "$NAME" "$PARENT"; do
  [[ -e nets/$net.safetensors ]] || { echo "no nets/$net.safetensors" >&2; exit 1; }
done

# Games played and opening pairs used by the earlier parts, then the combined result.
tally() {
  python3 - "$RESULTS" "$1" <<'EOF'
import json, os, sys
sys.path.insert(0, "scripts")
from matchlib.stats import combine_runs
path, what = sys.argv[1], sys.argv[2]
lines = []
if os.path.exists(path):
    with open(path, encoding="utf-8") as fh:
        lines = [json.loads(l) for l in fh if l.strip()]
if what == "games":
    print(sum(l["games"] for l in lines))
elif what == "pairs":
    # A part that was stopped may end inside a pair; the next part starts after it.
    print(sum((l["games"] + 1) // 2 for l in lines))
elif not lines:
    print("no games yet in %s" % path)
else:
    t = combine_runs(lines)
    def errors(side, name):
        bad = ", ".join("%d %s" % (n, k) for k, n in sorted(t[side].items()) if n)
        return "%s %s" % (name, bad or "none")
    print("%s vs %s at %s, %d part(s): %d games, %d-%d-%d (%.1f %%), pentanomial %s, "
          "Elo %+.1f +/- %.1f (95 %%); time forfeits, illegal moves, crashes, stalls: %s; %s" % (
              lines[0]["engine1"], lines[0]["engine2"], lines[0]["tc"], len(lines), t["games"],
              t["wins"], t["draws"], t["losses"], 100 * (t["wins"] + t["draws"] / 2) / t["games"],
              t["penta"], t["stats"]["elo"], t["stats"]["err"],
              errors("errors1", lines[0]["engine1"]), errors("errors2", lines[0]["engine2"])))
EOF
}

if [[ ${1:-} == --combine ]]; then
  tally summary
  exit 0
fi
played=$(tally games)
if ((played >= GAMES)); then
  echo "$GAMES games already played ($played)"
  tally summary
  exit 0
fi
start=$(($(tally pairs) + 1))
cargo build --release --quiet
# The match runs its own copy, so that a build started by mistake cannot swap the binary
# under it.
BIN=target/ltc-check/rookery
mkdir -p target/ltc-check
cp target/release/rookery "$BIN"
python3 scripts/match.py \
  "rookery:$BIN,name=$NAME,option.EvalFile=$PWD/nets/$NAME.safetensors" \
  "rookery:$BIN,name=$PARENT,option.EvalFile=$PWD/nets/$PARENT.safetensors" \
  --tc "$TC" --each "Hash=$HASH" --games $((GAMES - played)) -c 2 \
  --shuffle --seed "$SEED" --start "$start" "${openings[@]}" \
  --results "$RESULTS" --pgn "target/ltc-check/$(basename "$RESULTS" .jsonl).pgn" \
  --engine-stderr discard || true
tally summary

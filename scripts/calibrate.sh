#!/usr/bin/env bash
# Calibration of Rookery's strength levels (UCI_LimitStrength + UCI_Elo): each level
# plays Stockfish 15.1 at the same nominal UCI_Elo (from 1350 up) and the result line is
# appended to the results file that docs/strength.md's calibration table is built from.
# Levels below 1350 (Stockfish's floor) play Rookery's own level REF_BELOW instead, which
# must be calibrated first; its measured rating is taken from the same results file.
#
#   scripts/calibrate.sh [LEVELS...]   (default: 1350 1600 1900 2200 2450 1100 800;
#                                      the levels under 1350 need 1350's result first)
#
# Environment (defaults in brackets):
#   BIN          Rookery binary [target/release/rookery, built if missing]
#   GAMES        games per level [100]
#   TC           time control [10+0.1]
#   CONCURRENCY  [2]
#   RESULTS      appended JSON lines [docs/calibration/results.jsonl]
#   REF_BELOW    Rookery level that anchors levels under 1350 [1350]
#   EXTRA        extra match.py arguments
#   COMMIT       the commit BIN was built from, recorded with each result [HEAD's]:
#                set it when BIN is a copy built before the checked-out commit
#
# Levels up to HUMAN_MAX_ELO are human levels (src/human/levels.rs): each result line also
# records the model rating, temperature and guard (margin, depth) the level played at
# (from the engine's announcement), from which scripts/calibration_table.py --fit prints
# the CALIBRATION table of src/human/levels.rs. Other settings (the UCI options `Human
# Model Rating`, `Human Temperature`, `Human Guard` and `Human Guard Depth`) are measured
# with scripts/match.py directly, the row tagged the same way (docs/strength.md shows
# the commands).
#
# Human Timing is off during calibration (it changes how long a move takes, not which
# move is chosen; off, games go at the opponent's pace). Each level takes ~10 minutes at
# 10+0.1 and concurrency 2: Rookery's limited search answers in milliseconds.
# Then: scripts/calibration_table.py prints the table (and draws docs/calibration.png).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-target/release/rookery}
GAMES=${GAMES:-100}
TC=${TC:-10+0.1}
CONCURRENCY=${CONCURRENCY:-2}
RESULTS=${RESULTS:-docs/calibration/results.jsonl}
REF_BELOW=${REF_BELOW:-1350}
EXTRA=${EXTRA:-}
COMMIT=${COMMIT:-$(git rev-parse --short HEAD)}
LEVELS=("$@")
[[ ${#LEVELS[@]} -eq 0 ]] && LEVELS=(1350 1600 1900 2200 2450 1100 800)
[[ -x $BIN ]] || cargo build --release --quiet
mkdir -p "$(dirname "$RESULTS")"
sha=$(sha256sum "$BIN" | cut -c1-8)

for level in "${LEVELS[@]}"; do
  me="rookery:$BIN,name=Rookery-$level,option.UCI_LimitStrength=true,option.UCI_Elo=$level"
  if (( level >= 1350 )); then
    opponent="stockfish:$level"
  else
    # Rookery's own anchor level, rated by its measured result against Stockfish.
    rating=$(python3 scripts/calibration_table.py --results "$RESULTS" --measured "$REF_BELOW")
    opponent="rookery:$BIN,name=Rookery-$REF_BELOW,option.UCI_LimitStrength=true,option.UCI_Elo=$REF_BELOW,rating=$rating"
  fi
  echo "== level $level vs $opponent ($GAMES games at $TC, binary $sha)"
  # shellcheck disable=SC2086
  python3 scripts/match.py "$me" "$opponent" --games "$GAMES" --tc "$TC" \
    -c "$CONCURRENCY" --option1 "Human Timing=false" --option1 "Seed=0" \
    --event "calibration $sha" --results "$RESULTS" --fail-on-errors first $EXTRA
  # The model rating of a human level or the curve setting of a node-limited one, as
  # the engine announces it (empty otherwise).
  announced=$(printf 'setoption name UCI_LimitStrength value true\nsetoption name UCI_Elo value %s\nquit\n' "$level" \
    | "$BIN" | grep 'playing at about' | tail -1)
  model_rating=$(sed -n 's/.*human model at rating \([0-9]*\).*/\1/p' <<<"$announced")
  setting=$(sed -n 's/.*level curve setting \([0-9]*\).*/\1/p' <<<"$announced")
  temperature=$(sed -n 's/.*temperature \([0-9.]*\).*/\1/p' <<<"$announced")
  guard=$(sed -n 's/.*guard \([0-9.]*\) at depth.*/\1/p' <<<"$announced")
  guard_depth=$(sed -n 's/.*guard [0-9.]* at depth \([0-9]*\).*/\1/p' <<<"$announced")
  # Tag the line with the binary and commit: the table uses each level's latest binary.
  python3 - "$RESULTS" "$sha" "$COMMIT" "$model_rating" "$temperature" "$setting" "$guard" "$guard_depth" <<'PY'
import json, sys
path, sha, commit, model_rating, temperature, setting, guard, guard_depth = sys.argv[1:]
lines = open(path).read().splitlines()
row = json.loads(lines[-1])
row.update(binary=sha, commit=commit)
if model_rating:
    row["model_rating"] = int(model_rating)
    row["temperature"] = float(temperature or 0.4)
    if guard:
        row["guard"] = float(guard)
        row["guard_depth"] = int(guard_depth)
if setting:
    row["setting"] = int(setting)
lines[-1] = json.dumps(row)
open(path, "w").write("\n".join(lines) + "\n")
PY
done
python3 scripts/calibration_table.py --results "$RESULTS"

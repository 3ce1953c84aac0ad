#!/usr/bin/env bash
# Records (or updates) one data file in data/manifest.tsv. STARTS says where its games
# start: `standard` (the default), or `chess960=F/double=D` (datagen's --chess960 F
# --double-chess960 D). A manifest from before the starts column gets it, every row
# `standard` (all games then started from the standard position).
# Usage: scripts/manifest.sh FILE GENERATION NET NODES SEED [STARTS]
set -euo pipefail
cd "$(dirname "$0")/.."
FILE=$1 GEN=$2 NET=$3 NODES=$4 SEED=$5 STARTS=${6:-standard}
BIN=${BIN:-target/release/rookery}
stats=$("$BIN" data stats "$FILE")
games=$(awk '$1 == "games" {print $2}' <<<"$stats")
positions=$(awk '$1 == "positions" {print $2}' <<<"$stats")
bytes=$(stat -c %s "$FILE")
sha=$(sha256sum "$FILE" | cut -d' ' -f1)
manifest=data/manifest.tsv
if [[ ! -f $manifest ]]; then
  printf 'file\tgeneration\tnet\tnodes\tseed\tgames\tpositions\tbytes\tsha256\tstarts\n' > "$manifest"
fi
awk -F'\t' -v OFS='\t' -v f="$FILE" '
  NR == 1 && $NF != "starts" {migrate = 1}
  NR == 1 {if (migrate) $0 = $0 OFS "starts"; print; next}
  $1 != f {if (migrate && NF == 9) $0 = $0 OFS "standard"; print}' "$manifest" > "$manifest.tmp"
printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$FILE" "$GEN" "$NET" "$NODES" "$SEED" \
  "$games" "$positions" "$bytes" "$sha" "$STARTS" >> "$manifest.tmp"
mv "$manifest.tmp" "$manifest"
echo "manifest: $FILE gen $GEN net $NET nodes $NODES seed $SEED starts $STARTS: $games games, $positions positions, $bytes bytes"

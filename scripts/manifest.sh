#!/usr/bin/env bash
# Records (or updates) one data file in data/manifest.tsv.
# Usage: scripts/manifest.sh FILE GENERATION NET NODES SEED
set -euo pipefail
cd "$(dirname "$0")/.."
FILE=$1 GEN=$2 NET=$3 NODES=$4 SEED=$5
BIN=${BIN:-target/release/rookery}
stats=$("$BIN" data stats "$FILE")
games=$(awk '$1 == "games" {print $2}' <<<"$stats")
positions=$(awk '$1 == "positions" {print $2}' <<<"$stats")
bytes=$(stat -c %s "$FILE")
sha=$(sha256sum "$FILE" | cut -d' ' -f1)
manifest=data/manifest.tsv
if [[ ! -f $manifest ]]; then
  printf 'file\tgeneration\tnet\tnodes\tseed\tgames\tpositions\tbytes\tsha256\n' > "$manifest"
fi
awk -F'\t' -v f="$FILE" '$1 != f' "$manifest" > "$manifest.tmp"
printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$FILE" "$GEN" "$NET" "$NODES" "$SEED" \
  "$games" "$positions" "$bytes" "$sha" >> "$manifest.tmp"
mv "$manifest.tmp" "$manifest"
echo "manifest: $FILE gen $GEN net $NET nodes $NODES seed $SEED: $games games, $positions positions, $bytes bytes"

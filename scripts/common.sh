# Helpers shared by the scripts that make data, train nets and play them: sourced, not
# run, by a script that has changed to the repository's root.

# The name of the net compiled into the binary (src/eval/mod.rs).
embedded_net() {
  sed -n 's/^pub const DEFAULT_NET_NAME: &str = "\(.*\)";/\1/p' src/eval/mod.rs
}

# Sets VAL_ARGS to `--val-data FILE…`, the fixed validation set (the manifest's
# data/validation/ files, which no net trains on), or to nothing when there is none.
validation_args() {
  local files
  mapfile -t files < <(awk -F'\t' 'NR > 1 && $1 ~ /^data\/validation\// {print $1}' data/manifest.tsv)
  VAL_ARGS=()
  if (( ${#files[@]} )); then VAL_ARGS=(--val-data "${files[@]}"); fi
}

# Sets RECIPE_ARGS to the trainer's flags for a net's shape and schedule, from HIDDEN,
# BUCKETS, L1 (32 when unset), PAIRWISE, SCRELU and MIRROR (0 or 1), LR, LR_FINAL and LAMBDA. Batch size,
# score scale and seed are the same for every net.
recipe_args() {
  RECIPE_ARGS=(--batch-size 8192 --lr "$LR" --lr-final "$LR_FINAL" --wdl-lambda "$LAMBDA"
    --scale 400 --hidden "$HIDDEN" --l1 "${L1:-32}" --output-buckets "$BUCKETS" --seed 1)
  if (( PAIRWISE )); then RECIPE_ARGS+=(--pairwise); fi
  if (( SCRELU )); then RECIPE_ARGS+=(--screlu); fi
  if (( MIRROR )); then RECIPE_ARGS+=(--mirror); fi
}

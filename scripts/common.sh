# Helpers shared by the scripts that make data, train nets and play them: sourced, not
# run, by a script that has changed to the repository's root.

# The name of the net compiled into the binary (src/eval/mod.rs).
embedded_net() {
  sed -n 's/^pub const DEFAULT_NET_NAME: &str = "\(.*\)";/\1/p' src/eval/mod.rs
}

# The name of the human prior compiled into the binary (src/policy/mod.rs).
embedded_prior() {
  sed -n 's/^pub const DEFAULT_PRIOR_NAME: &str = "\(.*\)";/\1/p' src/policy/mod.rs
}

# The name of the human model's combiner compiled into the binary (src/human/model.rs).
embedded_combiner() {
  sed -n 's/^pub const DEFAULT_COMBINER_NAME: &str = "\(.*\)";/\1/p' src/human/model.rs
}

# The name of the MCTS policy net compiled into the binary (src/policy/mod.rs).
embedded_policy() {
  sed -n 's/^pub const DEFAULT_POLICY_NAME: &str = "\(.*\)";/\1/p' src/policy/mod.rs
}

# Sets VAL_ARGS to `--val-data FILE…`, the fixed validation set (the manifest's
# data/validation/ files, which no net trains on), or to nothing when there is none.
validation_args() {
  local files
  mapfile -t files < <(awk -F'\t' 'NR > 1 && $1 ~ /^data\/validation\// {print $1}' data/manifest.tsv)
  VAL_ARGS=()
  if (( ${#files[@]} )); then VAL_ARGS=(--val-data "${files[@]}"); fi
}

# Sets RECIPE_ARGS to the trainer's flags for what a run changes in the embedded net's
# recipe, which is declared once, as `rookery train`'s defaults: each of HIDDEN, L1,
# BUCKETS, LR, LR_FINAL and LAMBDA that is set, and SCRELU=0 or MIRROR=0 to turn those off.
recipe_args() {
  RECIPE_ARGS=()
  if [[ -n ${HIDDEN:-} ]]; then RECIPE_ARGS+=(--hidden "$HIDDEN"); fi
  if [[ -n ${L1:-} ]]; then RECIPE_ARGS+=(--l1 "$L1"); fi
  if [[ -n ${BUCKETS:-} ]]; then RECIPE_ARGS+=(--output-buckets "$BUCKETS"); fi
  if [[ -n ${LR:-} ]]; then RECIPE_ARGS+=(--lr "$LR"); fi
  if [[ -n ${LR_FINAL:-} ]]; then RECIPE_ARGS+=(--lr-final "$LR_FINAL"); fi
  if [[ -n ${LAMBDA:-} ]]; then RECIPE_ARGS+=(--wdl-lambda "$LAMBDA"); fi
  if [[ ${SCRELU:-1} == 0 ]]; then RECIPE_ARGS+=(--no-screlu); fi
  if [[ ${MIRROR:-1} == 0 ]]; then RECIPE_ARGS+=(--no-mirror); fi
}

# The default of `rookery train`'s flag $2 (e.g. `epochs`), as binary $1's help states it.
train_default() {
  "$1" train --help | sed -n "/^ *--$2 /{n;s/.*\[default: \([^]]*\)\].*/\1/p}"
}

# Sets NET_HIDDEN, NET_L1, NET_BUCKETS, NET_SCRELU and NET_MIRROR (0 or 1) from the
# tensors in net file $1 (its safetensors header).
net_recipe() {
  read -r NET_HIDDEN NET_L1 NET_BUCKETS NET_SCRELU NET_MIRROR < <(python3 -c '
import json, struct, sys
with open(sys.argv[1], "rb") as f:
    h = json.loads(f.read(struct.unpack("<Q", f.read(8))[0]))
print(h["ft.bias"]["shape"][0], h["l1.bias"]["shape"][0], h["out.bias"]["shape"][0],
      int("screlu" in h), int("mirror" in h))' "$1")
}

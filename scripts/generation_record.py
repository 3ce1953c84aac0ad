#!/usr/bin/env python3
"""Verdict and record of one self-play generation (called by scripts/generation.sh).

Sums the gate match's result lines, decides (accepted: the 95 % interval of the
pentanomial Elo lies above 0; rejected: below 0; otherwise inconclusive), writes or
replaces the generation's row in the table of docs/generations.md and prints the verdict.
"""

import argparse
import csv
import datetime
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from matchlib.stats import combine_runs  # noqa: E402

HEADER = """# Net generations

Each row is one run of `scripts/generation.sh`: the net trained on the shared
Stockfish-labelled positions plus all self-play data so far, gated in games against
the net embedded at the time (same binary, `EvalFile`). Accepted when the 95 % interval
of the pentanomial Elo lies above 0. Match results: `docs/generations/<net>.jsonl`.

| date | net | vs | data (self-play positions, weight) | training | val loss | games | W-D-L | Elo ± 95 % | errors | verdict |
| --- | --- | --- | --- | --- | ---: | ---: | --- | --- | --- | --- |
"""


def manifest_positions(manifest="data/manifest.tsv"):
    with open(manifest) as f:
        return {row["file"]: int(row["positions"]) for row in csv.DictReader(f, delimiter="\t")}


def snapshot_data(data_list, manifest="data/manifest.tsv"):
    """The training files of `data_list` ("path@weight" lines) as a table: file, weight
    and, for self-play files, their positions in the manifest at this moment."""
    positions = manifest_positions(manifest)
    out = ["file\tweight\tpositions"]
    for line in open(data_list):
        if not line.strip():
            continue
        path, _, weight = line.strip().rpartition("@")
        count = positions.get(path) if path.endswith(".vf") else None
        if path.endswith(".vf") and count is None:
            sys.exit(f"{path} is not in {manifest}")
        out.append(f"{path}\t{weight}\t{'' if count is None else count}")
    return "\n".join(out) + "\n"


def selfplay_positions(data_list):
    """Self-play files and positions the net was trained on: from the table written when
    training started (`--snapshot-data`), or for a plain "path@weight" list (generations
    before that table) from data/manifest.tsv as it is now."""
    if not os.path.exists(data_list):
        return "?", 0
    lines = [l.rstrip("\n") for l in open(data_list) if l.strip()]
    if lines and lines[0] == "file\tweight\tpositions":
        rows = [l.split("\t") for l in lines[1:]]
        counts = [int(r[2]) for r in rows if r[0].endswith(".vf")]
        return len(counts), sum(counts)
    files = {l.strip().rsplit("@", 1)[0] for l in lines}
    files = {f for f in files if f.endswith(".vf")}
    positions = manifest_positions()
    return len(files), sum(positions.get(f, 0) for f in files)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--snapshot-data":
        sys.stdout.write(snapshot_data(sys.argv[2]))
        return
    ap = argparse.ArgumentParser()
    for name in ("name", "base", "net", "results", "loss", "data-list"):
        ap.add_argument("--" + name, required=True)
    ap.add_argument("--selfplay-weight", default="1")
    ap.add_argument("--epochs", default="?")
    ap.add_argument("--hidden", default="?")
    ap.add_argument("--buckets", default="1")
    ap.add_argument("--screlu", default="0")
    ap.add_argument("--mirror", default="0")
    ap.add_argument("--training-note", default="", help="e.g. 'from rookery-gen4 lr 0.001'")
    ap.add_argument("--out", default="docs/generations.md")
    a = ap.parse_args()

    lines = []
    if os.path.exists(a.results):
        lines = [json.loads(l) for l in open(a.results) if l.strip()]
    if not lines:  # GAMES=0: trained only, nothing to record yet
        print("untested")
        return
    total = combine_runs(lines)
    wins, draws, losses = total["wins"], total["draws"], total["losses"]
    errors = sum(sum(total[k].values()) for k in ("errors1", "errors2"))
    st = total["stats"]
    if st["lo"] > 0:
        verdict = "accepted"
    elif st["hi"] < 0:
        verdict = "rejected"
    else:
        verdict = "inconclusive"

    val = "?"
    if os.path.exists(a.loss):
        rows = [r for r in csv.reader(open(a.loss)) if r and r[0].isdigit()]
        if rows:
            val = f"{float(rows[-1][2]):.6f}"
    files, positions = selfplay_positions(a.data_list)
    tc = lines[-1]["tc"] if lines else "?"
    # The script's note may start with ", λ 0" when there is no "from NET" part.
    note = a.training_note.strip().lstrip(",").strip()
    row = (
        f"| {datetime.date.today()} | {a.name} | {a.base} | {files} files, {positions:,} positions, "
        f"weight {a.selfplay_weight} | {a.epochs} epochs, H={a.hidden}"
        f"{'' if a.buckets == '1' else f', {a.buckets} output buckets'}"
        f"{', SCReLU' if a.screlu == '1' else ''}"
        f"{', mirrored' if a.mirror == '1' else ''}"
        f"{', ' + note if note else ''} | {val} | "
        f"{wins + draws + losses} ({tc}) | {wins}-{draws}-{losses} | "
        f"{st['elo']:+.1f} ± {st['err']:.1f} | {errors} | **{verdict}** |\n"
    )
    text = open(a.out).read() if os.path.exists(a.out) else HEADER
    kept = [l for l in text.splitlines(keepends=True) if not l.startswith("| ") or f"| {a.name} |" not in l]
    # The row goes at the end of the generations table (the first table, whose header
    # starts with "| date | net |"), not after whatever sections follow it.
    start = next((i for i, l in enumerate(kept) if l.startswith("| date | net |")), None)
    if start is None:
        kept.append(row)
    else:
        end = start
        while end < len(kept) and kept[end].startswith("|"):
            end += 1
        kept.insert(end, row)
    with open(a.out, "w") as f:
        f.write("".join(kept))
    print(verdict)


if __name__ == "__main__":
    main()

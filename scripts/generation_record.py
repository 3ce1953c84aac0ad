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
from matchlib.stats import pentanomial_stats  # noqa: E402

HEADER = """# Net generations

Each row is one run of `scripts/generation.sh`: the net trained on the shared
Stockfish-labelled positions plus all self-play data so far, gated in games against
the net embedded at the time (same binary, `EvalFile`). Accepted when the 95 % interval
of the pentanomial Elo lies above 0. Match results: `docs/generations/<net>.jsonl`.

| date | net | vs | data (self-play positions, weight) | training | val loss | games | W-D-L | Elo ± 95 % | errors | verdict |
| --- | --- | --- | --- | --- | ---: | ---: | --- | --- | --- | --- |
"""


def selfplay_positions(data_list):
    """Positions of the self-play files in the list, from data/manifest.tsv."""
    files = set()
    for line in open(data_list):
        path = line.strip().rsplit("@", 1)[0]
        if path.endswith(".vf"):
            files.add(path)
    total = 0
    with open("data/manifest.tsv") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            if row["file"] in files:
                total += int(row["positions"])
    return len(files), total


def main():
    ap = argparse.ArgumentParser()
    for name in ("name", "base", "net", "results", "loss", "data-list"):
        ap.add_argument("--" + name, required=True)
    ap.add_argument("--selfplay-weight", default="1")
    ap.add_argument("--epochs", default="?")
    ap.add_argument("--hidden", default="?")
    ap.add_argument("--buckets", default="1")
    ap.add_argument("--pairwise", default="0")
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
    penta = [sum(l["penta"][k] for l in lines) for k in range(5)]
    wins, draws, losses = (sum(l[k] for l in lines) for k in ("wins", "draws", "losses"))
    errors = sum(sum(l[k].values()) for l in lines for k in ("errors1", "errors2"))
    st = pentanomial_stats(penta)
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
        f"{', pairwise' if a.pairwise == '1' else ''}"
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

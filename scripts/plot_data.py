#!/usr/bin/env python3
"""Plot of the committed self-play data: positions per net generation and the running total.

Reads data/manifest.tsv (one row per file: generation, net, node budget, starts,
positions). Each generation's bar is split by node budget — the soft budget alone (`5000`,
the iteration under way may run on to 8x) or the budget as a hard cap too (`5000/5000`,
the default since 2026-11-29) — and by the games' starts: standard openings, Chess960 only,
or a mix (`chess960=F`: a share F from Chess960 positions). The validation set is left
out (no net trains on it). The line is the running total against issue 58's target of 60M
positions. Writes docs/data.png (or --out).

Usage: scripts/plot_data.py [--manifest data/manifest.tsv] [--out FILE] [--target N]
"""

import argparse
import csv
import os
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read_manifest(path):
    """{generation: {(budget, starts): positions}} over the training files of the manifest."""
    by_gen = defaultdict(lambda: defaultdict(int))
    with open(path, newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            if row["file"].startswith("data/validation/"):
                continue
            key = (row["nodes"], row.get("starts") or "standard")
            by_gen[int(row["generation"])][key] += int(row["positions"])
    return by_gen


def kind_label(budget, starts):
    """The legend's name of a kind of file, e.g.
    `budget 5000/5000 (soft/hard cap), 30% Chess960 starts`."""
    cap = " (soft/hard cap)" if "/" in budget else " (soft only)"
    if starts == "standard":
        where = "standard openings"
    else:
        share = dict(part.split("=") for part in starts.split("/")).get("chess960", "1")
        where = "Chess960 starts" if float(share) >= 1 else f"{float(share):.0%} Chess960 starts"
    return f"budget {budget}{cap}, {where}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--manifest", default=os.path.join(ROOT, "data", "manifest.tsv"))
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "data.png"))
    ap.add_argument("--target", type=float, default=60e6, help="positions aimed at")
    args = ap.parse_args()
    by_gen = read_manifest(args.manifest)
    if not by_gen:
        sys.exit("no training files in the manifest")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    gens = sorted(by_gen)
    kinds = sorted({k for g in gens for k in by_gen[g]}, key=lambda k: ("/" in k[0], k))
    colours = ["tab:blue", "tab:green", "tab:orange", "tab:purple", "tab:brown", "tab:gray"]
    fig, ax = plt.subplots(figsize=(9, 5))
    x = range(len(gens))
    bottom = [0.0] * len(gens)
    for i, kind in enumerate(kinds):
        heights = [by_gen[g].get(kind, 0) / 1e6 for g in gens]
        label = kind_label(*kind)
        ax.bar(x, heights, bottom=bottom, color=colours[i % len(colours)], label=label)
        bottom = [b + h for b, h in zip(bottom, heights)]
    ax.set_ylim(0, max(bottom) * 1.4)  # room for the legend above the bars
    ax.set_xticks(list(x))
    ax.set_xticklabels([f"gen{g}" for g in gens])
    ax.set_ylabel("positions per generation (millions)")
    ax.set_xlabel("games played by the net of generation")
    total = ax.twinx()
    running, cumulative = 0.0, []
    for height in bottom:
        running += height
        cumulative.append(running)
    total.plot(list(x), cumulative, color="black", marker="o", label="running total")
    total.axhline(args.target / 1e6, color="tab:red", linestyle="--", label="target")
    total.set_ylabel("running total (millions)")
    total.set_ylim(0, max(args.target / 1e6, cumulative[-1]) * 1.08)
    handles = ax.get_legend_handles_labels()
    extra = total.get_legend_handles_labels()
    ax.legend(handles[0] + extra[0], handles[1] + extra[1], loc="upper left")
    ax.set_title(f"Rookery self-play data: {cumulative[-1]:.2f}M training positions")
    fig.tight_layout()
    fig.savefig(args.out, dpi=100)
    print(f"wrote {args.out}: {cumulative[-1] * 1e6:,.0f} positions in {len(gens)} generations")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Plot of the strength ladder: Rookery's rating on Stockfish's UCI_Elo scale, one point
per ladder run (10+0.1, scripts/ladder.sh), with its 95 % interval.

Reads docs/ladder/<date>-<net>.jsonl (one JSON line per match, as match.py --results
writes them); each file is one run of one build. The rating is the maximum-likelihood fit
of match.py --estimate over that file's matches against rated opponents; each
opponent's performance (its rating + the Elo of Rookery's score) is drawn as a small
mark beside the fit. Writes docs/ladder.png (or --out) and prints the table it drew.

Usage: scripts/plot_ladder.py [--dir docs/ladder] [--out docs/ladder.png]
"""

import argparse
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from matchlib.stats import elo_from_score, estimate_rating  # noqa: E402


def ladder_runs(directory):
    """(label, estimate, [(opponent rating, performance)]) per file, oldest first."""
    runs = []
    for path in glob.glob(os.path.join(directory, "*.jsonl")):
        stem = os.path.basename(path)[: -len(".jsonl")]
        date, net = stem[:10], stem[11:]
        records, perfs, started = [], [], ""
        for line in open(path):
            if not line.strip():
                continue
            r = json.loads(line)
            started = started or r.get("date", "")
            if r.get("rating2") is None or not r.get("games"):
                continue
            records.append((r["rating2"], r["points"], r["games"]))
            score = r["points"] / r["games"]
            if 0 < score < 1:
                perfs.append((r["rating2"], r["rating2"] + elo_from_score(score)))
        est = estimate_rating(records)
        if est and est["bounded"]:
            runs.append((date, started, f"{net}\n{date}", est, perfs))
    # Oldest first: by the file's date, then by when its first match ended (same-day runs).
    return [run[2:] for run in sorted(runs, key=lambda run: run[:2])]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", default="docs/ladder")
    ap.add_argument("--out", default="docs/ladder.png")
    a = ap.parse_args()
    runs = ladder_runs(a.dir)
    if not runs:
        sys.exit(f"no ladder results with rated opponents in {a.dir}")
    for label, est, perfs in runs:
        name = label.replace("\n", " ")
        per = ", ".join(f"{p:.0f} vs {int(o)}" for o, p in perfs)
        print(f"{name}: {est['rating']:.0f} ± {est['err']:.0f} ({est['games']:.0f} games; {per})")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # A column per run, wide enough that the net names under the axis do not overlap.
    fig, ax = plt.subplots(figsize=(max(7.0, 1.25 * len(runs)), 4.2))
    xs = range(len(runs))
    ax.errorbar(xs, [e["rating"] for _, e, _ in runs], yerr=[e["err"] for _, e, _ in runs],
                fmt="o", color="tab:blue", capsize=4, label="ML fit, 95 % interval")
    first = True
    for x, (_, _, perfs) in zip(xs, runs):
        for _, p in perfs:
            ax.plot(x + 0.12, p, "_", color="tab:gray", markersize=10,
                    label="performance against one level" if first else None)
            first = False
    for x, (_, e, _) in zip(xs, runs):
        ax.annotate(f"{e['rating']:.0f}", (x, e["rating"]), textcoords="offset points",
                    xytext=(-28, -4), fontsize=8)
    ax.set_xticks(list(xs), [label for label, _, _ in runs], fontsize=8)
    ax.set_xlim(-0.5, len(runs) - 0.5)
    ax.set_ylabel("rating (Stockfish 15.1 UCI_Elo scale)")
    ax.set_title("Rookery's ladder at 10+0.1 (8moves_v3, 100 games per level)")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()

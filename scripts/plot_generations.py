#!/usr/bin/env python3
"""Plot of the self-play generations: each gated net's Elo against rookery-v1.

Reads the rows of docs/generations.md (net, the net it was gated against, verdict) and
each gate's results in docs/generations/<net>.jsonl. A net's Elo against rookery-v1 is
its gate result plus its opponent's (opponents are earlier rows, rookery-v1 is 0); the
95 % intervals add in quadrature along the chain. Rejected and inconclusive nets are
drawn too, in their own colour. Writes docs/generations.png (or --out).

Usage: scripts/plot_generations.py [--table docs/generations.md] [--out FILE]
"""

import argparse
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from matchlib.stats import pentanomial_stats  # noqa: E402

ROOT = "rookery-v1"
COLOURS = {"accepted": "tab:green", "rejected": "tab:red", "inconclusive": "tab:orange"}


def rows(table):
    """(net, base, verdict) for every generation row of the table, in order."""
    out = []
    for line in open(table):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 11 or not line.startswith("| 20"):
            continue
        # The verdict is the bold word; a note may follow it ("**inconclusive** (stopped …)").
        verdict = cells[10].strip("*").split("*")[0].strip()
        out.append((cells[1], cells[2], verdict))
    return out


def gate(results):
    """Pentanomial Elo and 95 % half-width of one gate's result lines."""
    penta = [0] * 5
    for line in open(results):
        if line.strip():
            rec = json.loads(line)
            penta = [a + b for a, b in zip(penta, rec["penta"])]
    st = pentanomial_stats(penta)
    return st["elo"], st["err"], sum(penta) * 2


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", default="docs/generations.md")
    ap.add_argument("--results-dir", default="docs/generations")
    ap.add_argument("--out", default="docs/generations.png")
    a = ap.parse_args()

    chain = {ROOT: (0.0, 0.0)}
    points = []
    for net, base, verdict in rows(a.table):
        path = os.path.join(a.results_dir, f"{net}.jsonl")
        if not os.path.exists(path) or base not in chain:
            print(f"{net}: no results or unknown opponent {base}, skipped", file=sys.stderr)
            continue
        elo, err, games = gate(path)
        base_elo, base_err = chain[base]
        total, total_err = base_elo + elo, math.hypot(base_err, err)
        chain[net] = (total, total_err)
        points.append((net, total, total_err, verdict, games, elo, err))
        print(f"{net}: {elo:+.1f} ± {err:.1f} vs {base} ({games} games, {verdict}); "
              f"{total:+.1f} ± {total_err:.1f} vs {ROOT}")
    if not points:
        print("no generations with results yet", file=sys.stderr)
        return

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    ax.axhline(0, color="grey", lw=0.8)
    xs = range(1, len(points) + 1)
    for x, (net, total, err, verdict, games, elo, gerr) in zip(xs, points):
        ax.errorbar([x], [total], yerr=[err], fmt="o", capsize=4,
                    color=COLOURS.get(verdict, "tab:grey"))
        # Below the point: the next point's error bar, higher up, leaves room there.
        ax.annotate(f"{elo:+.0f}±{gerr:.0f}\n({games} g)", (x, total - err),
                    textcoords="offset points", xytext=(0, -6), fontsize=7,
                    ha="center", va="top")
    # Names without the common prefix, slanted, so that ten or more still fit.
    ax.set_xticks(list(xs), [p[0].removeprefix("rookery-") for p in points], fontsize=8,
                  rotation=30, ha="right")
    ax.set_xlim(0.5, len(points) + 0.5)
    ax.margins(y=0.15)
    ax.set_xlabel("net, in the order of docs/generations.md")
    ax.set_ylabel(f"Elo vs {ROOT} (95 % interval)")
    ax.set_title("Rookery net generations (green accepted, orange inconclusive, red rejected;\n"
                 "labels: Elo in its own gate, games)", fontsize=9)
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""How much of the expected result human players give away with one move, by rating.

Reads the human model's labelled positions (`rookery human --label` output: FEN, played
move, mover's rating, ..., and every legal move's score at depths 1, 3 and 5) and prints,
per 200-point band of the mover's rating, quantiles of the *loss* of the played move:
the expected result of the best move minus that of the played move, both from the
deepest score through Rookery's WDL model (src/search/wdl.rs VALUE, the same coefficients).
The human levels' blunder guard (src/human/guard.rs) takes its margin from this table:
a move that gives away more than the band's 95th percentile is one that players of that
rating almost never make.

    scripts/guard_margins.py [data/human/labels/combiner-train.tsv.gz]
"""

import argparse
import collections
import gzip
import math
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# src/search/wdl.rs VALUE (a, b).
WDL_A = [423.343, -359.912, -687.341, 756.334]
WDL_B = [147.117, -60.935, -281.331, 298.412]
PIECE_VALUES = {"p": 1, "n": 3, "b": 3, "r": 5, "q": 9}
QUANTILES = [0.5, 0.8, 0.9, 0.95, 0.98, 0.99]
# Scores beyond this are mates or tablebase results: such positions are left out.
DECIDED = 20000


def poly(c, x):
    return ((c[0] * x + c[1]) * x + c[2]) * x + c[3]


def material(fen):
    m = sum(PIECE_VALUES.get(ch.lower(), 0) for ch in fen.split()[0])
    return min(78, max(17, m))


def expected_score(score, mat):
    """src/search/wdl.rs WdlModel::expected_score of VALUE: win + draw / 2 for the side to move."""
    m = mat / 58.0
    a, b = poly(WDL_A, m), max(1.0, poly(WDL_B, m))
    win = 1.0 / (1.0 + math.exp(max(-50.0, min(50.0, (a - score) / b))))
    loss = 1.0 / (1.0 + math.exp(max(-50.0, min(50.0, (a + score) / b))))
    return win + (1.0 - win - loss) / 2.0


def losses_by_band(path, band_width=200):
    bands = collections.defaultdict(list)
    skipped = 0
    with gzip.open(path, "rt") as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            fen, played, rating = cols[0], cols[1], int(cols[2])
            scores = {}
            for item in cols[8].split():
                mv, values = item.split(":")
                scores[mv] = int(values.split(",")[-1])
            best = max(scores.values(), default=None)
            if played not in scores or best is None or abs(best) > DECIDED:
                skipped += 1
                continue
            mat = material(fen)
            loss = expected_score(best, mat) - expected_score(scores[played], mat)
            bands[rating // band_width * band_width].append(loss)
    return bands, skipped


def quantile(sorted_values, q):
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("labels", nargs="?",
                    default=os.path.join(ROOT, "data", "human", "labels", "combiner-train.tsv.gz"))
    args = ap.parse_args()
    bands, skipped = losses_by_band(args.labels)
    header = ["band", "moves"] + [f"q{round(q * 100)}" for q in QUANTILES]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for band in sorted(bands):
        values = sorted(bands[band])
        cells = [f"{band}–{band + 199}", str(len(values))]
        cells += [f"{quantile(values, q):.3f}" for q in QUANTILES]
        print("| " + " | ".join(cells) + " |")
    print(f"\n{skipped} positions left out (decided scores, or the played move unscored)")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Draw positions for the human model's combiner, a set number per rating band.

Reads `rookery human-data samples` lines (FEN, move, mover's rating, opponent's rating,
scale, time class, ply, game key) and prints a seeded random draw of them: for each
200-point band of the mover's rating (600 = 600-799, ...), as many positions as asked,
leaving out positions already in earlier labelled files (`--exclude`, matched on FEN,
move and game key), so a second draw adds new positions only. Its output goes to
`rookery human --label` (docs/human.md, "Training").

Example (the low-rated addition of 2026-12-06):
    rookery human-data samples --split train --min-ply 8 --exclude-bullet \
        data/human/*.rkh > /tmp/train-samples.tsv
    scripts/draw_combiner_positions.py /tmp/train-samples.tsv \
        --per-band 800:8000,1000:10000,1200:8000,1400:6000,1600:4000 --seed 57 \
        --exclude data/human/labels/combiner-train.tsv.gz > /tmp/draw.tsv
"""

import argparse
import gzip
import random
import sys


def open_text(path):
    if path == "-":
        return sys.stdin
    if path.endswith(".gz"):
        return gzip.open(path, "rt")
    return open(path)


def position_key(fields):
    return (fields[0], fields[1], fields[7])


def parse_quota(text):
    quota = {}
    for item in text.split(","):
        band, count = item.split(":")
        band = int(band)
        if band % 200:
            raise SystemExit(f"band {band} is not a multiple of 200")
        quota[band] = int(count)
    return quota


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("samples", help="`rookery human-data samples` output (- for stdin)")
    parser.add_argument("--per-band", required=True, type=parse_quota,
                        help="BAND:COUNT,... (band = lower bound of 200 points)")
    parser.add_argument("--exclude", action="append", default=[],
                        help="labelled or sample file whose positions are left out (repeatable)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    excluded = set()
    for path in args.exclude:
        with open_text(path) as lines:
            for line in lines:
                fields = line.rstrip("\n").split("\t")
                if len(fields) >= 8:
                    excluded.add(position_key(fields))

    by_band = {band: [] for band in args.per_band}
    skipped = 0
    with open_text(args.samples) as lines:
        for line in lines:
            if line.startswith("#"):
                continue
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 8:
                skipped += 1
                continue
            band = int(fields[2]) // 200 * 200
            if band in by_band and position_key(fields) not in excluded:
                by_band[band].append(line)

    rng = random.Random(args.seed)
    drawn = []
    for band, count in sorted(args.per_band.items()):
        pool = by_band[band]
        take = min(count, len(pool))
        drawn.extend(rng.sample(pool, take))
        print(f"band {band}: {take} drawn of {len(pool)} new positions", file=sys.stderr)
    rng.shuffle(drawn)
    sys.stdout.writelines(drawn)
    if skipped:
        print(f"{skipped} malformed lines skipped", file=sys.stderr)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Loss curves of the move nets (`rookery train-human`, `rookery train-policy`): validation
loss (solid) and training loss (dashed) of each CSV against the training positions seen
(step × batch size), so runs of different lengths and data sizes share one axis.

Reads CSVs with the columns step, train_loss and validation_loss (docs/nets/*.csv of the
move nets) and writes a PNG. Needs matplotlib (pip install matplotlib).

Usage: scripts/plot_losses.py [--batch-size 1024] [--out docs/human-prior-loss.png]
                              [--title T] [CSV ...]
(default CSVs: the human priors v2, v3, v4-scales and the stopped 1024 × 256 run)
"""

import argparse
import csv
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_CSVS = [f"docs/nets/human-prior-{name}.csv"
                for name in ("v2", "v3", "1024x256-stopped", "v4-scales", "v3-mirror")]


def read_curve(path):
    """(steps, training losses, validation losses) of one CSV."""
    steps, train, validation = [], [], []
    try:
        with open(path, newline="") as fh:
            for row in csv.DictReader(fh):
                steps.append(int(row["step"]))
                train.append(float(row["train_loss"]))
                validation.append(float(row["validation_loss"]))
    except (OSError, KeyError, ValueError) as e:
        raise SystemExit(f"{path}: {e!r} (want columns step, train_loss, validation_loss)")
    if not steps:
        raise SystemExit(f"{path}: no rows")
    return steps, train, validation


def main(argv):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("csvs", nargs="*", help="loss CSVs (default: the human priors)")
    p.add_argument("--batch-size", type=int, default=1024)
    p.add_argument("--out", default=os.path.join(ROOT, "docs/human-prior-loss.png"))
    p.add_argument("--title", default="Human prior: loss by training positions seen "
                                      "(validation: the same 336,534 Lichess positions)")
    args = p.parse_args(argv)
    paths = args.csvs or [os.path.join(ROOT, c) for c in DEFAULT_CSVS]
    curves = [(os.path.basename(path)[:-4], read_curve(path)) for path in paths]
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise SystemExit("matplotlib is missing: pip install matplotlib")

    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    for name, (steps, train, validation) in curves:
        seen = [s * args.batch_size / 1e6 for s in steps]
        line, = ax.plot(seen, validation, label=f"{name} (validation, end {validation[-1]:.3f})")
        ax.plot(seen, train, linestyle="--", color=line.get_color(), alpha=0.6)
    ax.set_xlabel("training positions seen (millions; dashed: training loss)", fontsize=9)
    ax.set_ylabel("cross-entropy of the move played")
    lows = [min(min(c[1][1]), min(c[1][2])) for c in curves]
    ax.set_ylim(min(lows) - 0.02, min(lows) + 0.45)
    ax.set_title(args.title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")
    for name, (steps, _, validation) in curves:
        print(f"{name}: {steps[-1]} steps, validation loss {validation[-1]:.4f} at the end, "
              f"lowest {min(validation):.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

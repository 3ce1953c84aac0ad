#!/usr/bin/env python3
"""Fits Rookery's win/draw/loss model to the results of its own self-play games.

Each training position of the data files (score from the search that played it, White's
view, in the engine's internal units; the game's result) is a sample. As Stockfish does,
the chance that White wins from a position with internal score v and material m is

    W(v, m) = 1 / (1 + exp((a(m) - v) / b(m))),   L(v, m) = W(-v, m),   D = 1 - W - L,

where a and b are cubic polynomials in m / 58 (material counted P=1 N=B=3 R=5 Q=9,
clamped to 17..78; 58 is a typical middlegame). a(58) is the internal score at which White
wins half the time: the UCI output divides by it so that `cp 100` means that.

Prints the coefficients as Rust constants for src/search/wdl.rs (`REPORTED`, the model the
engine reports with), the fit's quality (log loss against the engine's current `REPORTED`
and an old fixed model, calibration by score bucket) and draws docs/wdl.png.

  scripts/fit_wdl.py data/gen1/*.vf [--bin target/release/rookery] [--plot docs/wdl.png]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
from scipy.optimize import minimize

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VALUES = {"p": 1, "n": 3, "b": 3, "r": 5, "q": 9}


def read(paths, binary):
    scores, material, results = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i, path in enumerate(paths):
            text = os.path.join(tmp, "%d.txt" % i)
            subprocess.run([binary, "data", "to-text", path, text], check=True,
                           stdout=subprocess.DEVNULL)
            with open(text) as fh:
                for line in fh:
                    fen, score, result = (x.strip() for x in line.split("|"))
                    board = fen.split()[0].lower()
                    m = sum(VALUES.get(c, 0) for c in board)
                    scores.append(float(score))
                    material.append(m)
                    results.append(float(result))
    return np.array(scores), np.clip(np.array(material, float), 17, 78), np.array(results)


def poly(c, x):
    return ((c[0] * x + c[1]) * x + c[2]) * x + c[3]


def probabilities(params, v, m):
    a = poly(params[:4], m / 58.0)
    b = np.maximum(poly(params[4:], m / 58.0), 1.0)
    win = 1.0 / (1.0 + np.exp(np.clip((a - v) / b, -50, 50)))
    loss = 1.0 / (1.0 + np.exp(np.clip((a + v) / b, -50, 50)))
    draw = np.clip(1.0 - win - loss, 1e-9, 1.0)
    return np.clip(win, 1e-9, 1), draw, np.clip(loss, 1e-9, 1)


def engine_model():
    """The coefficients the engine reports with now, read from src/search/wdl.rs."""
    with open(os.path.join(ROOT, "src", "search", "wdl.rs"), encoding="utf-8") as fh:
        text = fh.read()
    body = re.search(r"pub const REPORTED: WdlModel = WdlModel \{(.*?)\};", text, re.S).group(1)
    rows = re.findall(r"[ab]: \[([^\]]*)\]", body)
    return np.array([float(x) for row in rows for x in row.split(",")])


def log_loss(probs, r):
    win, draw, loss = probs
    p = np.where(r == 1.0, win, np.where(r == 0.0, loss, draw))
    return -np.mean(np.log(p))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "rookery"))
    ap.add_argument("--plot", default=os.path.join(ROOT, "docs", "wdl.png"))
    args = ap.parse_args()
    v, m, r = read(args.files, args.bin)
    keep = np.abs(v) < 4000  # decided positions carry no information about the scale
    v, m, r = v[keep], m[keep], r[keep]
    print("%d positions from %s" % (len(v), ", ".join(os.path.relpath(f, ROOT) for f in args.files)))
    print("results: White %.1f %%, draw %.1f %%, Black %.1f %%" % (
        100 * np.mean(r == 1), 100 * np.mean(r == 0.5), 100 * np.mean(r == 0)))

    start = np.array([0, 0, 0, 150.0, 0, 0, 0, 80.0])
    fit = minimize(lambda p: log_loss(probabilities(p, v, m), r), start, method="Nelder-Mead",
                   options={"maxiter": 20000, "maxfev": 20000, "xatol": 1e-3, "fatol": 1e-9})
    fit = minimize(lambda p: log_loss(probabilities(p, v, m), r), fit.x, method="BFGS")
    params = fit.x
    old = log_loss(probabilities(start, v, m), r)
    new = log_loss(probabilities(params, v, m), r)
    engine = engine_model()
    a58 = poly(params[:4], 1.0)
    print("log loss per position: fitted %.4f, the engine's REPORTED model (a(58) = %.1f) "
          "%.4f, a fixed model (a=150, b=80) %.4f" % (
              new, poly(engine[:4], 1.0), log_loss(probabilities(engine, v, m), r), old))
    print("a(58) = %.1f: internal score at which White wins half the time at typical material" % a58)
    print("b(58) = %.1f" % poly(params[4:], 1.0))

    print("\ncalibration at material 45..70 (observed vs predicted, per mille):")
    print("  score bucket     n   win obs/pred   draw obs/pred   loss obs/pred")
    mid = (m >= 45) & (m <= 70)
    edges = [-800, -400, -200, -100, -50, 0, 50, 100, 200, 400, 800]
    rows = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        sel = mid & (v >= lo) & (v < hi)
        if sel.sum() < 50:
            continue
        w, d, l = (np.mean(p) for p in probabilities(params, v[sel], m[sel]))
        ow, od, ol = np.mean(r[sel] == 1), np.mean(r[sel] == 0.5), np.mean(r[sel] == 0)
        rows.append(((lo + hi) / 2, ow, w))
        print("  %5d..%-5d %6d   %4.0f / %4.0f     %4.0f / %4.0f     %4.0f / %4.0f" % (
            lo, hi, sel.sum(), 1000 * ow, 1000 * w, 1000 * od, 1000 * d, 1000 * ol, 1000 * l))

    print("\n// Generated by scripts/fit_wdl.py from %d positions of self-play." % len(v))
    print("pub const REPORTED: WdlModel = WdlModel {")
    print("    a: [%s]," % ", ".join("%.3f" % x for x in params[:4]))
    print("    b: [%s]," % ", ".join("%.3f" % x for x in params[4:]))
    print("};")
    print("pub const NORMALIZE_TO_PAWN: i32 = %d;" % round(a58))

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, ax = plt.subplots(figsize=(7, 4.5))
    xs = np.linspace(-800, 800, 200)
    for mat, style in [(30, ":"), (58, "-"), (75, "--")]:
        w, d, l = probabilities(params, xs, np.full_like(xs, mat))
        ax.plot(xs, w, "g" + style, label="win, material %d" % mat)
        ax.plot(xs, d, "b" + style, label="draw, material %d" % mat)
    # Observed win rates by bucket, all materials 45..70.
    ax.plot([x for x, _, _ in rows], [o for _, o, _ in rows], "ko", label="observed win, material 45..70")
    ax.axvline(a58, color="grey", lw=0.8)
    ax.set_xlabel("internal score (White's view)")
    ax.set_ylabel("probability")
    ax.set_title("Rookery WDL model, fitted on %d self-play positions" % len(v))
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(args.plot, dpi=100)
    print("(plot: %s)" % os.path.relpath(args.plot, ROOT), file=sys.stderr)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Plot of move matching on real games (scripts/human_match.py): accuracy by rating band,
one line per setting, with each point's 95 % Wilson interval as an error bar.

Reads the JSONL that human_match.py appends to (default docs/human/match.jsonl) and
writes docs/human-match.png (or --out). By default each setting is drawn from the latest
run that measured it, among the runs on the same sample as the last one (same seed,
positions per band and bands), so a setting run later (e.g. a new model) joins the table
of the others; runs of a candidate model (`human_match.py --model-args`, recorded as
`model_args`) are left out, since they measure nets the engine does not ship. --run N
draws line N alone (counting from 0, negative from the end). Needs matplotlib (pip
install matplotlib).

Usage: scripts/plot_human_match.py [--record docs/human/match.jsonl] [--run -1]
                                   [--out docs/human-match.png]
"""

import argparse
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STYLE = {  # setting -> (marker, line style); colours come from matplotlib's cycle
    "model": ("o", "-"), "levels": ("s", "-"), "full": ("^", "--"),
    "depth1": ("v", "--"), "sf-depth1": ("D", ":"), "sf-elo": ("P", ":"),
}


def load_runs(path):
    try:
        runs = [json.loads(line) for line in open(path) if line.strip()]
    except (OSError, json.JSONDecodeError) as e:
        raise SystemExit(f"{path}: {e}")
    if not runs:
        raise SystemExit(f"{path}: no run recorded")
    return runs


def sample_of(run):
    return (run.get("seed"), run.get("positions_per_band"), tuple(b["band"] for b in run["bands"]))


def shipped(runs):
    """The runs that measured the engine's own nets (no `--model-args`)."""
    return [r for r in runs if not r.get("model_args")]


def merged(runs):
    """The last run, with each setting it lacks taken from the latest earlier run on the
    same sample that has it."""
    last = runs[-1]
    out = {k: v for k, v in last.items() if k != "bands"}
    out["bands"] = [dict(b, results=dict(b["results"])) for b in last["bands"]]
    out["settings"] = list(last["settings"])
    for run in reversed(runs[:-1]):
        if sample_of(run) != sample_of(last):
            continue
        for setting in run["settings"]:
            if setting in out["settings"]:
                continue
            out["settings"].append(setting)
            for mine, theirs in zip(out["bands"], run["bands"]):
                if setting in theirs["results"]:
                    mine["results"][setting] = theirs["results"][setting]
    order = list(STYLE)
    out["settings"].sort(key=lambda s: order.index(s) if s in order else len(order))
    return out


def main(argv):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--record", default=os.path.join(ROOT, "docs/human/match.jsonl"))
    p.add_argument("--run", type=int, default=None,
                   help="draw line N alone (default: the latest result of each setting)")
    p.add_argument("--out", default=os.path.join(ROOT, "docs/human-match.png"))
    args = p.parse_args(argv)
    runs = load_runs(args.record)
    if args.run is None:
        own = shipped(runs)
        if not own:
            raise SystemExit(f"{args.record}: every run measured a candidate model (--model-args)")
        run = merged(own)
    else:
        try:
            run = runs[args.run]
        except IndexError:
            raise SystemExit(f"{args.record}: {len(runs)} runs, no run {args.run}")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise SystemExit("matplotlib is missing: pip install matplotlib")

    bands = [b["band"] for b in run["bands"]]
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    for i, setting in enumerate(run["settings"]):
        xs, ys, lo, hi = [], [], [], []
        for b in run["bands"]:
            r = b["results"].get(setting)
            if not r or r["accuracy"] is None:
                continue
            offset = (i - (len(run["settings"]) - 1) / 2) * 12  # keep error bars apart
            xs.append(b["band"] + offset)
            ys.append(100 * r["accuracy"])
            lo.append(100 * (r["accuracy"] - r["low"]))
            hi.append(100 * (r["high"] - r["accuracy"]))
        marker, line = STYLE.get(setting, ("o", "-"))
        capped = [f"{b['band']}: n={b['results'][setting]['n']}" for b in run["bands"]
                  if setting in b["results"] and b["results"][setting].get("n", b["n"]) != b["n"]]
        label = setting + (f" ({', '.join(capped)})" if capped else "")
        ax.errorbar(xs, ys, yerr=[lo, hi], marker=marker, linestyle=line, capsize=3,
                    label=label)
    ns = ", ".join(f"{b['band']}: {b['n']}" for b in run["bands"])
    ax.set_title(f"Move matching on Lichess validation games ({run['date'][:10]}, "
                 f"{run.get('commit', '')})", fontsize=10)
    ax.set_xlabel(f"mover's rating band (centre ±100; positions {ns})", fontsize=9)
    ax.set_ylabel("human move matched, % (95 % Wilson)")
    ax.set_xticks(bands)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")
    for setting in run["settings"]:
        cells = []
        for b in run["bands"]:
            r = b["results"].get(setting)
            # From hits and n, as human_match.py's table rounds them.
            cells.append(f"{b['band']}: {100 * r['hits'] / r['n']:.1f}" if r and r.get("n")
                         else f"{b['band']}: -")
        print(f"  {setting:<10} " + "  ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

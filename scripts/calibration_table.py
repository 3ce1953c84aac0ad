#!/usr/bin/env python3
"""Calibration table of Rookery's strength levels from scripts/calibrate.sh's results.

For each nominal level: the opponent, games, score, and the measured rating (the
opponent's rating plus the Elo difference of the pentanomial result, ± its 95 % error);
binaries are told apart by the match event's hash. Prints a Markdown table and draws
docs/calibration.png (nominal vs measured, with error bars) when matplotlib is present.

  scripts/calibration_table.py [--results docs/calibration/results.jsonl] [--plot FILE]
  scripts/calibration_table.py --measured 1350    # just that level's measured rating
  scripts/calibration_table.py --fit              # both levels' settings tables
  scripts/calibration_table.py --fit --binary fee979d3   # only that binary's rows

--fit: the human-level settings measured (rows that record the `model_rating` and
`temperature` a level played at), as the CALIBRATION table of src/human/levels.rs, and
the node-limited levels' curve settings measured against Stockfish (rows that record the
`setting`), as the CALIBRATION table of src/search/strength.rs; both interpolate
between their rows. --binary keeps only the rows of one binary (calibrate.sh's tag):
when the human model changes, its settings' old measurements no longer hold.
"""
import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from matchlib.stats import elo_from_score  # noqa: E402

ROOT = os.path.dirname(HERE)


def load(path):
    rows = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                rows.append(json.loads(line))
    return rows


def pool(matches):
    """Games, score, Elo difference and 95 % error of matches taken as one: their
    errors combine as independent estimates, by game weight."""
    games = sum(r["games"] for r in matches)
    score = sum(r["points"] for r in matches) / games
    diff = elo_from_score(score) if 0 < score < 1 else float("nan")
    err2 = sum(((r.get("err_penta") or r.get("err_tri") or 0.0) * r["games"]) ** 2
               for r in matches)
    return games, score, diff, err2 ** 0.5 / games


def levels(rows):
    """Nominal level -> aggregated record over its matches with the level's latest binary
    (rows tagged `binary` by calibrate.sh; a newer mapping supersedes older results)."""
    latest = {}
    for r in rows:
        m = re.match(r"Rookery-(\d+)$", r["engine1"])
        if m:
            latest[int(m.group(1))] = r.get("binary")
    out = {}
    for r in rows:
        m = re.match(r"Rookery-(\d+)$", r["engine1"])
        if not m or not r.get("games") or r.get("rating2") is None:
            continue
        level = int(m.group(1))
        if r.get("binary") != latest[level]:
            continue
        a = out.setdefault(level, {"opponent": r["engine2"], "rating": float(r["rating2"]),
                                   "games": 0, "points": 0.0, "w": 0, "d": 0, "l": 0,
                                   "matches": [], "tc": r["tc"], "commit": r.get("commit", "?"),
                                   "model_rating": r.get("model_rating")})
        a["games"] += r["games"]
        a["points"] += r["points"]
        a["w"] += r["wins"]
        a["d"] += r["draws"]
        a["l"] += r["losses"]
        a["matches"].append(r)
    for a in out.values():
        _, a["score"], a["diff"], a["err"] = pool(a["matches"])
        a["measured"] = a["rating"] + a["diff"]
    # A level rated against another Rookery level inherits that level's uncertainty.
    for a in out.values():
        m = re.match(r"Rookery-(\d+)$", a["opponent"])
        if m and int(m.group(1)) in out:
            a["err"] = (a["err"] ** 2 + out[int(m.group(1))]["err"] ** 2) ** 0.5
    return out


def settings_rows(rows, binary=None):
    """Human-level measurements: (measured, err, model rating, temperature, guard,
    guard depth, games, name) of every result row that records the model rating it played
    at, rated against its opponent's rating; the matches of a setting's latest binary
    pool, as in the table. `guard` is the blunder guard's margin, 1.0 (none) for rows
    that record none; its depth is 8 where a row records none (every guard before depths
    were recorded searched to depth 8), 0 without a guard."""
    latest = {}
    for r in rows:
        if binary and r.get("binary") != binary:
            continue
        if r.get("model_rating") and r.get("games") and r.get("rating2") is not None:
            guard = r.get("guard", 1.0)
            depth = r.get("guard_depth", 8) if guard < 1.0 else 0
            key = (r["model_rating"], r.get("temperature", 0.4), guard, depth)
            same_binary = key in latest and latest[key][0].get("binary") == r.get("binary")
            latest[key] = latest[key] + [r] if same_binary else [r]
    out = []
    for (rating, temperature, guard, depth), matches in latest.items():
        games, _, diff, err = pool(matches)
        out.append((matches[-1]["rating2"] + diff, err, rating, temperature, guard, depth,
                    games, matches[-1]["engine1"]))
    return sorted(out)


def curve_rows(rows):
    """Node-limited measurements against Stockfish: (measured, err, setting, games, name)
    of every row that records the level curve setting it played (the latest per setting)."""
    latest = {}
    for r in rows:
        if (r.get("setting") and r.get("games") and r.get("rating2") is not None
                and r["engine2"].startswith("Stockfish")):
            latest[r["setting"]] = r
    out = []
    for setting, r in latest.items():
        score = r["points"] / r["games"]
        diff = elo_from_score(score) if 0 < score < 1 else float("nan")
        err = r.get("err_penta") or r.get("err_tri") or float("nan")
        out.append((r["rating2"] + diff, err, setting, r["games"], r["engine1"]))
    return sorted(out)


def print_fit(rows, binary=None):
    curve = curve_rows(rows)
    for measured, err, setting, games, name in curve:
        print(f"curve setting {setting}: measured {measured:.0f} ± {err:.0f} ({games} games, {name})")
    if curve:
        print("// rows for src/search/strength.rs CALIBRATION (measured, setting);")
        print("// keep those that rise with the measured strength:")
        for measured, _, setting, _, _ in curve:
            print(f"    ({measured:.1f}, {setting:.1f}),")
        print()
    pts = settings_rows(rows, binary)
    if len(pts) < 2:
        sys.exit("need human levels measured at two or more settings")
    for measured, err, rating, temperature, guard, depth, games, name in pts:
        print(f"model rating {rating}, temperature {temperature}, guard {guard} at depth "
              f"{depth}: measured "
              f"{measured:.0f} ± {err:.0f} ({games} games, {name})")
    print("// rows for src/human/levels.rs CALIBRATION (measured, model rating, temperature,")
    print("// guard margin (NO_GUARD = 1.0), guard depth); keep those that rise with the")
    print("// measured strength:")
    for measured, _, rating, temperature, guard, depth, _, _ in pts:
        g = "NO_GUARD" if guard >= 1.0 else f"{guard}"
        print(f"    ({measured:.1f}, {rating:.1f}, {temperature}, {g}, {depth}),")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default=os.path.join(ROOT, "docs", "calibration", "results.jsonl"))
    ap.add_argument("--plot", default=os.path.join(ROOT, "docs", "calibration.png"))
    ap.add_argument("--measured", type=int, help="print only this level's measured rating")
    ap.add_argument("--fit", action="store_true", help="fit the levels' mappings")
    ap.add_argument("--binary", help="--fit: only the human-level rows of this binary")
    args = ap.parse_args()
    rows = load(args.results)
    table = levels(rows)
    if args.fit:
        print_fit(rows, args.binary)
        return
    if args.measured is not None:
        if args.measured not in table:
            sys.exit(f"level {args.measured} is not calibrated in {args.results}")
        print(round(table[args.measured]["measured"]))
        return
    print("| nominal | model rating | build | opponent | games | W-D-L | score | measured Elo (95 %) | off by |")
    print("| ---: | ---: | --- | --- | ---: | --- | ---: | --- | ---: |")
    for level in sorted(table):
        a = table[level]
        model = a.get("model_rating") or "–"
        print(f"| {level} | {model} | {a['commit']} | {a['opponent']} ({a['rating']:.0f}) | {a['games']} | "
              f"{a['w']}-{a['d']}-{a['l']} | {100 * a['score']:.1f} % | "
              f"{a['measured']:.0f} ± {a['err']:.0f} | {a['measured'] - level:+.0f} |")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(matplotlib not installed: no plot)", file=sys.stderr)
        return
    xs = sorted(table)
    fig, ax = plt.subplots(figsize=(6, 5))
    ax.errorbar(xs, [table[x]["measured"] for x in xs], yerr=[table[x]["err"] for x in xs],
                fmt="o", capsize=4, label="measured (95 %)")
    lo, hi = min(xs) - 100, max(xs) + 100
    ax.plot([lo, hi], [lo, hi], "k--", lw=1, label="nominal")
    ax.fill_between([lo, hi], [lo - 100, hi - 100], [lo + 100, hi + 100], color="grey",
                    alpha=0.15, label="±100 goal")
    ax.set_xlabel("UCI_Elo set")
    ax.set_ylabel("measured rating (Stockfish 15.1 UCI_Elo scale)")
    ax.set_title("Rookery strength levels, %s" % table[xs[0]]["tc"])
    ax.legend()
    fig.tight_layout()
    fig.savefig(args.plot, dpi=100)
    print(f"(plot: {os.path.relpath(args.plot, ROOT)})", file=sys.stderr)


if __name__ == "__main__":
    main()

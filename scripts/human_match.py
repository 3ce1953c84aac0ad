#!/usr/bin/env python3
"""Move matching on real games (issue 56, "Measures"): how often a setting picks the move
that a human of a given rating played, by rating band, Maia's protocol.

Positions: the validation split of the .rkh files (default data/human/*.rkh), read through
`rookery human-data samples` (no second decoder), Lichess scale only, ply > 10 (each
game's first ten plies skipped, counting plies from 1), no bullet or ultrabullet game, and
the mover rated within +-100 of the band's centre (inclusive). Per band, --positions positions are drawn
with --seed, stratified by game: games in a seeded order, one position from each game per
round, so no game gives a second position before every eligible game has given one.
A band with fewer eligible positions uses them all and says so; a band with none is
dropped with a message.

Settings (--settings, comma-separated; each is a column):
  model      the human model's most likely move (the prior net, Rookery's search of every
             move at depths 1, 3 and 5, and the combiner net): `rookery human --predict FILE`, whose
             input lines are `<elo>\\t<opponent elo>\\t<FEN>` and whose output lines are
             `<uci move>\\t<probability>` in the same order (skipped with a message when
             the binary has no such command); <elo> is the band centre, as the levels get
             it (--model-elo mover: the mover's own rating), <opponent elo> the game's
  prior      the prior net alone: the same with `--prior-only` (no search)
  levels     the UCI_LimitStrength + UCI_Elo = band centre levels, as a GUI plays them:
             `position fen` + `go` on a --clock (default 3+2 blitz, both sides' clocks
             full), Human Timing off, Seed --seed, a new game per position; the centre is
             clamped to the option's range (600..3000; the record keeps the Elo set)
  full       full-strength Rookery, `go nodes --nodes` (default 5000)
  depth1     Rookery `go depth 1`
  sf-depth1  Stockfish `go depth 1` (--stockfish, default /usr/games/stockfish)
  sf-elo     Stockfish UCI_LimitStrength with UCI_Elo = band centre clamped to 1350..2850,
             `go movetime --sf-movetime` (default 100 ms: a blitz clock costs seconds a move)
A missing engine or command skips its settings with a message; it is never faked.
--cap SETTING@BAND=N runs a setting on the first N of a band's positions only (still
stratified: the draw is in rounds over games); the default caps levels@2300=100, because
UCI_Elo 2100 and up plays at full strength on the clock (~6 s a move at 3+2, against
well under a second for the levels below); --cap none runs everything whole.
All engines run with Threads 1 and Hash 16.

Output: the table (accuracy % [95 % Wilson interval] per setting and band, n per band), one
JSON line appended to --record (default docs/human/match.jsonl; --no-record to skip), and
the plot (scripts/plot_human_match.py draws it from that file; --plot runs it).

  scripts/human_match.py                                   # default bands, settings, 400/band
  scripts/human_match.py --positions 40 --no-record        # a quick look
  scripts/human_match.py --settings levels,depth1 --bands 1100,1500
  scripts/human_match.py --self-test                       # statistics and sampling; no engines
"""

import argparse
import datetime
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
Z95 = 1.959963984540054
ALL_SETTINGS = ["model", "prior", "levels", "full", "depth1", "sf-depth1", "sf-elo"]
DEFAULT_SETTINGS = ALL_SETTINGS
DEFAULT_BANDS = [800, 1100, 1500, 1900, 2300]
ROOKERY_ELO_RANGE = (600, 3000)  # src/human/levels.rs HUMAN_MIN_ELO, src/search/strength.rs MAX_ELO
STOCKFISH_ELO_RANGE = (1350, 2850)  # Stockfish 15.1's UCI_Elo option


# ---------------- statistics ----------------

def wilson(k, n, z=Z95):
    """Wilson score interval of k successes in n trials, as (low, high) fractions."""
    if n <= 0:
        return (0.0, 1.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # Exact ends at k = 0 and k = n (rounding would leave 1e-16 off).
    return (0.0 if k == 0 else max(0.0, centre - half), 1.0 if k == n else min(1.0, centre + half))


def cell(k, n):
    """`acc % [lo, hi]` for the table."""
    if n == 0:
        return "-"
    lo, hi = wilson(k, n)
    return f"{100 * k / n:5.1f} [{100 * lo:4.1f}, {100 * hi:4.1f}]"


# ---------------- positions ----------------

class Sample:
    __slots__ = ("fen", "played", "elo", "opp", "scale", "time_class", "ply", "game")

    def __init__(self, fields):
        if len(fields) < 8:
            raise ValueError(f"expected 8 tab-separated fields, got {len(fields)}")
        self.fen, self.played = fields[0], fields[1]
        self.elo, self.opp = int(fields[2]), int(fields[3])
        self.scale, self.time_class = fields[4], fields[5]
        self.ply, self.game = int(fields[6]), fields[7]


def parse_samples(lines):
    """Sample lines (`rookery human-data samples`) to Samples; `#` lines are skipped."""
    out = []
    for number, line in enumerate(lines, 1):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        try:
            out.append(Sample(line.split("\t")))
        except ValueError as e:
            raise SystemExit(f"sample line {number}: {e}: {line[:120]!r}")
    return out


def eligible(sample, centre, min_ply=10):
    """Maia's filter for one band (the split and bullet filters are rookery's)."""
    return (sample.scale == "lichess" and sample.ply >= min_ply
            and sample.time_class not in ("bullet", "ultrabullet")
            and abs(sample.elo - centre) <= 100)


def stratified(samples, n, seed):
    """Up to n samples, at most one per game per round: games in a seeded order (from
    the sorted keys, so the input's order does not matter), positions within each game
    shuffled too."""
    rng = random.Random(seed)
    by_game = {}
    for s in samples:
        by_game.setdefault(s.game, []).append(s)
    games = sorted(by_game)
    rng.shuffle(games)
    queues = []
    for g in games:
        positions = sorted(by_game[g], key=lambda s: s.ply)
        rng.shuffle(positions)
        queues.append(positions)
    chosen, round_ = [], 0
    while len(chosen) < n:
        took = False
        for q in queues:
            if round_ < len(q):
                chosen.append(q[round_])
                took = True
                if len(chosen) == n:
                    break
        if not took:
            break
        round_ += 1
    return chosen


def read_positions(binary, files):
    cmd = [binary, "human-data", "samples", "--split", "validation", "--min-ply", "10",
           "--exclude-bullet", *files]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:3])} failed: {proc.stderr.strip()}")
    return parse_samples(proc.stdout.splitlines())


# ---------------- settings ----------------

class Skip(Exception):
    """A setting that cannot run here (missing engine or command)."""


def clamp(x, lo_hi):
    return max(lo_hi[0], min(lo_hi[1], x))


class UciSetting:
    """One engine process; `pick(sample, centre)` returns the UCI move it plays."""

    def __init__(self, name, command, options, limit, elo_option=None):
        import chess.engine
        self.name = name
        self.limit = limit
        self.elo_option = elo_option  # (range) when UCI_Elo follows the band
        self.elo_set = {}
        try:
            self.engine = chess.engine.SimpleEngine.popen_uci(command)
        except (FileNotFoundError, PermissionError, chess.engine.EngineError) as e:
            raise Skip(f"{command}: {e}")
        self.engine.configure({k: v for k, v in options.items()
                               if k in self.engine.options})
        self.centre = None

    def pick(self, sample, centre, game_id):
        import chess
        if self.elo_option and centre != self.centre:
            elo = clamp(centre, self.elo_option)
            self.engine.configure({"UCI_Elo": elo})
            self.elo_set[centre] = elo
            self.centre = centre
        board = chess.Board(sample.fen)
        result = self.engine.play(board, self.limit, game=game_id)
        return result.move.uci() if result.move else None

    def close(self):
        try:
            self.engine.quit()
        except Exception:  # noqa: BLE001 - a dead engine needs no quit
            pass


def make_uci_setting(name, args):
    import chess.engine
    rookery_base = {"Threads": 1, "Hash": 16}
    if name == "levels":
        minutes, inc = args.clock
        limit = chess.engine.Limit(white_clock=minutes * 60, black_clock=minutes * 60,
                                   white_inc=inc, black_inc=inc)
        options = dict(rookery_base, **{"UCI_LimitStrength": True, "Human Timing": False,
                                        "Seed": args.seed})
        return UciSetting(name, args.binary, options, limit, ROOKERY_ELO_RANGE)
    if name == "full":
        return UciSetting(name, args.binary, rookery_base, chess.engine.Limit(nodes=args.nodes))
    if name == "depth1":
        return UciSetting(name, args.binary, rookery_base, chess.engine.Limit(depth=1))
    if not os.access(args.stockfish, os.X_OK):
        raise Skip(f"no Stockfish at {args.stockfish} (scripts/install-opponents.sh installs it)")
    sf_base = {"Threads": 1, "Hash": 16}
    if name == "sf-depth1":
        return UciSetting(name, args.stockfish, sf_base, chess.engine.Limit(depth=1))
    if name == "sf-elo":
        options = dict(sf_base, UCI_LimitStrength=True)
        return UciSetting(name, args.stockfish, options,
                          chess.engine.Limit(time=args.sf_movetime / 1000), STOCKFISH_ELO_RANGE)
    raise SystemExit(f"unknown setting {name!r} (known: {', '.join(ALL_SETTINGS)})")


def model_available(binary):
    """True when the binary has `human --predict`; else the reason it is skipped."""
    proc = subprocess.run([binary, "human", "--help"], capture_output=True, text=True)
    if proc.returncode != 0 or "--predict" not in proc.stdout:
        return False
    return True


def model_picks(binary, jobs, extra_args, mover_elo=False):
    """jobs: [(centre, sample)]; returns the model's top move for each, in order."""
    with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as f:
        for centre, s in jobs:
            f.write(f"{s.elo if mover_elo else centre}\t{s.opp}\t{s.fen}\n")
        path = f.name
    try:
        cmd = [binary, "human", "--predict", path, *extra_args]
        proc = subprocess.run(cmd, capture_output=True, text=True)
    finally:
        os.unlink(path)
    if proc.returncode != 0:
        raise Skip(f"{' '.join(cmd[:3])} failed: {proc.stderr.strip()[:300]}")
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    if len(lines) != len(jobs):
        raise Skip(f"`human --predict` gave {len(lines)} lines for {len(jobs)} positions")
    return [line.split("\t")[0] for line in lines]


# ---------------- progress ----------------

class Progress:
    def __init__(self, total, label):
        self.total, self.label, self.done = total, label, 0
        self.start = time.monotonic()
        self.tty = sys.stderr.isatty()
        self.last = 0.0

    def step(self):
        self.done += 1
        now = time.monotonic()
        if self.done == self.total or now - self.last >= (0.2 if self.tty else 15):
            self.last = now
            elapsed = now - self.start
            eta = elapsed / self.done * (self.total - self.done)
            width = 30
            full = int(width * self.done / self.total)
            bar = "#" * full + "-" * (width - full)
            end = "\r" if self.tty and self.done < self.total else "\n"
            sys.stderr.write(f"{self.label:<10} [{bar}] {self.done}/{self.total} "
                             f"{elapsed:5.0f}s eta {eta:4.0f}s{end}")
            sys.stderr.flush()


# ---------------- report ----------------

def table(bands, n_by_band, results):
    """results: {setting: {band: (hits, n)}}; one row per setting, one column per band; a
    cell run on fewer positions than its band (--cap) shows its own n."""
    def text(b, hits, n):
        return cell(hits, n) + ("" if n == n_by_band[b] else f" n={n}")
    head = f"{'setting':<10}" + "".join(f" | {str(b) + ' (n=' + str(n_by_band[b]) + ')':<28}"
                                        for b in bands)
    rows = [head, "-" * len(head)]
    for setting, cells in results.items():
        rows.append(f"{setting:<10}" + "".join(f" | {text(b, *cells[b]):<28}" for b in bands))
    return "\n".join(rows)


def record(args, bands, n_by_band, results, elo_set, skipped, seconds, band_info=None):
    def commit():
        try:
            return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                                  capture_output=True, text=True).stdout.strip()
        except OSError:
            return ""
    out = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": commit(),
        "protocol": "validation split, lichess scale, ply>10 (first 10 plies skipped), no bullet, mover within "
                    "+-100 of the band centre, stratified by game",
        "files": [os.path.relpath(f, ROOT) if os.path.abspath(f).startswith(ROOT + os.sep)
                  else f for f in args.files], "positions_per_band": args.positions, "seed": args.seed,
        "clock": f"{args.clock[0]:g}+{args.clock[1]:g}", "nodes": args.nodes,
        "model_elo": getattr(args, "model_elo", "centre"),
        # Another net or combiner than the shipped ones: the plot leaves such runs out.
        "model_args": getattr(args, "model_args", ""),
        "sf_movetime_ms": args.sf_movetime,
        "caps": {f"{k[0]}@{k[1]}": v for k, v in sorted(args.caps.items())}, "skipped": skipped, "seconds": round(seconds, 1),
        "bands": [], "settings": list(results),
    }
    for b in bands:
        entry = dict({"band": b, "n": n_by_band[b]}, **(band_info or {}).get(b, {}))
        entry["results"] = {}
        for setting, cells in results.items():
            k, n = cells[b]
            lo, hi = wilson(k, n)
            entry["results"][setting] = {"hits": k, "n": n, "accuracy": k / n if n else None,
                                         "low": lo, "high": hi}
            if b in elo_set.get(setting, {}):
                entry["results"][setting]["elo_set"] = elo_set[setting][b]
        out["bands"].append(entry)
    return out


# ---------------- main ----------------

def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="*", help="human-game files (default data/human/*.rkh)")
    p.add_argument("--binary", default=os.path.join(ROOT, "target/release/rookery"),
                   help="rookery binary (default target/release/rookery)")
    p.add_argument("--stockfish", default="/usr/games/stockfish", help="Stockfish binary")
    p.add_argument("--settings", default=",".join(DEFAULT_SETTINGS),
                   help=f"comma-separated, of {', '.join(ALL_SETTINGS)} (default all)")
    p.add_argument("--bands", default=",".join(map(str, DEFAULT_BANDS)),
                   help="band centres (default 800,1100,1500,1900,2300)")
    p.add_argument("--positions", type=int, default=400, help="positions per band (400)")
    p.add_argument("--seed", type=int, default=1,
                   help="sampling seed, and the levels' Seed option (1)")
    p.add_argument("--clock", default="3+2",
                   help="the levels' clock, minutes+increment seconds (3+2)")
    p.add_argument("--nodes", type=int, default=5000, help="node count of `full` (5000)")
    p.add_argument("--sf-movetime", type=int, default=100,
                   help="milliseconds a move for sf-elo (100)")
    p.add_argument("--model-args", default="",
                   help="extra arguments for `rookery human --predict` (space-separated)")
    p.add_argument("--cap", action="append", metavar="SETTING@BAND=N",
                   help="run SETTING on the first N positions of BAND only (repeatable; "
                        "default levels@2300=100; `none` for no cap)")
    p.add_argument("--model-elo", choices=("centre", "mover"), default="centre",
                   help="the model's <elo>: the band centre (default) or the mover's rating")
    p.add_argument("--record", default=os.path.join(ROOT, "docs/human/match.jsonl"),
                   help="JSONL file the run is appended to (docs/human/match.jsonl)")
    p.add_argument("--no-record", action="store_true", help="append nothing")
    p.add_argument("--plot", action="store_true",
                   help="redraw docs/human-match.png from --record afterwards")
    p.add_argument("--self-test", action="store_true",
                   help="check the statistics and the sampling, then exit (no engines)")
    args = p.parse_args(argv)
    try:
        minutes, inc = args.clock.split("+")
        args.clock = (float(minutes), float(inc))
    except ValueError:
        p.error(f"--clock {args.clock!r}: expected minutes+increment, e.g. 3+2")
    try:
        args.bands = [int(b) for b in args.bands.split(",") if b]
    except ValueError:
        p.error(f"--bands {args.bands!r}: expected comma-separated integers")
    args.settings = [s for s in args.settings.split(",") if s]
    unknown = [s for s in args.settings if s not in ALL_SETTINGS]
    if unknown:
        p.error(f"unknown settings {unknown} (known: {', '.join(ALL_SETTINGS)})")
    args.caps = {}
    for text in args.cap if args.cap is not None else ["levels@2300=100"]:
        if text == "none":
            continue
        try:
            target, n = text.split("=")
            setting, band = target.split("@")
            args.caps[(setting, int(band))] = int(n)
        except ValueError:
            p.error(f"--cap {text!r}: expected SETTING@BAND=N, e.g. levels@2300=100")
    if args.positions < 1:
        p.error("--positions must be at least 1")
    return args


def main(argv):
    args = parse_args(argv)
    if args.self_test:
        return self_test()
    if not args.files:
        folder = os.path.join(ROOT, "data/human")
        args.files = sorted(os.path.join(folder, f) for f in os.listdir(folder)
                            if f.endswith(".rkh"))
    if not os.access(args.binary, os.X_OK):
        raise SystemExit(f"no rookery binary at {args.binary} (cargo build --release)")
    try:
        import chess.engine  # noqa: F401
    except ImportError:
        raise SystemExit("python-chess is missing: pip install chess")

    started = time.monotonic()
    samples = read_positions(args.binary, args.files)
    bands, chosen, band_info = [], {}, {}
    for centre in args.bands:
        pool = [s for s in samples if eligible(s, centre)]
        if not pool:
            print(f"band {centre}: no eligible position in the data; dropped", file=sys.stderr)
            continue
        chosen[centre] = stratified(pool, args.positions, args.seed)
        games = len({s.game for s in pool})
        drawn_games = len({s.game for s in chosen[centre]})
        band_info[centre] = {"eligible_positions": len(pool), "eligible_games": games,
                             "drawn_games": drawn_games}
        print(f"band {centre}: {len(pool)} eligible positions from {games} games; "
              f"{len(chosen[centre])} drawn from {drawn_games} games", file=sys.stderr)
        bands.append(centre)
    n_by_band = {b: len(chosen[b]) for b in bands}

    results, elo_set, skipped = {}, {}, {}
    for name in args.settings:
        jobs = [(b, s) for b in bands for s in chosen[b][:args.caps.get((name, b))]]
        try:
            if name in ("model", "prior"):
                if not model_available(args.binary):
                    raise Skip(f"{args.binary} has no `human --predict` command yet")
                extra = args.model_args.split() + (["--prior-only"] if name == "prior" else [])
                picks = model_picks(args.binary, jobs, extra, args.model_elo == "mover")
            else:
                setting = make_uci_setting(name, args)
                progress = Progress(len(jobs), name)
                picks = []
                try:
                    for i, (b, s) in enumerate(jobs):
                        picks.append(setting.pick(s, b, game_id=i))
                        progress.step()
                finally:
                    setting.close()
                elo_set[name] = setting.elo_set
        except Skip as e:
            print(f"{name}: skipped: {e}", file=sys.stderr)
            skipped[name] = str(e)
            continue
        except Exception as e:  # noqa: BLE001 - an engine that dies ends its setting only
            print(f"{name}: skipped: the engine failed: {e!r}", file=sys.stderr)
            skipped[name] = f"engine failed: {e!r}"
            continue
        cells = {b: [0, 0] for b in bands}
        for (b, s), move in zip(jobs, picks):
            cells[b][0] += move == s.played
            cells[b][1] += 1
        results[name] = {b: tuple(c) for b, c in cells.items()}

    seconds = time.monotonic() - started
    print(table(bands, n_by_band, results))
    for name, reason in skipped.items():
        print(f"skipped {name}: {reason}")
    print(f"{sum(n_by_band.values())} positions, {seconds:.0f} s")
    if not args.no_record and results:
        os.makedirs(os.path.dirname(os.path.abspath(args.record)), exist_ok=True)
        with open(args.record, "a") as f:
            f.write(json.dumps(record(args, bands, n_by_band, results, elo_set, skipped,
                                      seconds, band_info)) + "\n")
        print(f"appended to {args.record}")
        if args.plot:
            subprocess.run([sys.executable, os.path.join(HERE, "plot_human_match.py"),
                            "--record", args.record], check=True)
    return 0


# ---------------- self-test ----------------

def self_test():
    """Statistics and sampling on made-up data: runs in well under a second."""
    failures = 0

    def check(name, ok):
        nonlocal failures
        print(f"{'ok  ' if ok else 'FAIL'} {name}")
        failures += not ok

    # Wilson: a textbook value (Newcombe 1998: 81/263 -> 0.2553..0.3662), symmetric,
    # inside [0, 1], contains p, and narrows like 1/sqrt(n).
    lo, hi = wilson(81, 263)
    check("wilson 81/263 matches Newcombe's 0.2553..0.3662",
          abs(lo - 0.2553) < 5e-4 and abs(hi - 0.3662) < 5e-4)
    lo0, hi0 = wilson(0, 10)
    check("wilson 0/10 starts at 0 and is not empty", lo0 == 0.0 and 0.25 < hi0 < 0.35)
    lo1, hi1 = wilson(10, 10)
    check("wilson 10/10 mirrors 0/10", abs(hi1 - 1.0) < 1e-12 and abs((1 - lo1) - hi0) < 1e-12)
    small, big = wilson(40, 100), wilson(4000, 10000)
    ratio = (small[1] - small[0]) / (big[1] - big[0])
    check("wilson narrows like 1/sqrt(n)", 9.5 < ratio < 10.5)
    check("wilson of n=0 is the whole range", wilson(0, 0) == (0.0, 1.0))
    check("cell formats percent and interval", cell(81, 263) == " 30.8 [25.5, 36.6]")

    # Parsing and the band filter.
    line = "8/8/8/8/8/8/8/K6k w - - 0 1\ta1a2\t1150\t1190\tlichess\tblitz\t11\t00000000000000aa"
    (s,) = parse_samples(["#fen\t...", line])
    check("a sample line parses", (s.played, s.elo, s.opp, s.ply, s.game)
          == ("a1a2", 1150, 1190, 11, "00000000000000aa"))
    check("eligible inside the band", eligible(s, 1100) and eligible(s, 1250 - 100))
    check("not eligible 151 away", not eligible(s, 1301))
    s.ply = 9
    check("the tenth ply (9 played before it) is too early", not eligible(s, 1100))
    s.ply = 10
    check("the eleventh ply is in", eligible(s, 1100))
    s.ply, s.time_class = 30, "bullet"
    check("bullet is out", not eligible(s, 1100))
    s.time_class, s.scale = "blitz", "fide"
    check("other scales are out", not eligible(s, 1100))
    try:
        parse_samples(["too\tfew"])
        check("a short line is an error", False)
    except SystemExit as e:
        check("a short line is an error naming it", "line 1" in str(e))

    # Stratified sampling: one game with many positions cannot dominate.
    def fake(game, ply):
        return Sample(["f", "m", "1500", "1500", "lichess", "blitz", str(ply), game])
    pool = [fake("big", p) for p in range(11, 211)] + \
           [fake(f"g{i}", p) for i in range(50) for p in range(11, 15)]
    pick = stratified(pool, 60, seed=7)
    per_game = {}
    for x in pick:
        per_game[x.game] = per_game.get(x.game, 0) + 1
    check("60 drawn from 51 games: each game gives 1 or 2",
          len(pick) == 60 and len(per_game) == 51 and max(per_game.values()) == 2)
    check("no position twice", len({(x.game, x.ply) for x in pick}) == 60)
    check("the same seed gives the same draw",
          [(x.game, x.ply) for x in stratified(list(reversed(pool)), 60, seed=7)]
          == [(x.game, x.ply) for x in pick])
    check("another seed gives another draw",
          [(x.game, x.ply) for x in stratified(pool, 60, seed=8)]
          != [(x.game, x.ply) for x in pick])
    check("a small pool is used whole", len(stratified(pool[:5], 400, seed=1)) == 5)

    # The record and the table agree with the statistics.
    class A:
        files, positions, seed, clock, nodes, sf_movetime = ["x.rkh"], 4, 1, (3.0, 2.0), 5000, 100
        caps = {("levels", 1100): 2}
    results = {"full": {1100: (3, 4)}, "levels": {1100: (1, 2)}}
    rec = record(A, [1100], {1100: 4}, results, {}, {"model": "none"}, 1.0)
    r = rec["bands"][0]["results"]["full"]
    check("record holds hits, n, accuracy and Wilson bounds",
          (r["hits"], r["n"], r["accuracy"]) == (3, 4, 0.75)
          and (r["low"], r["high"]) == wilson(3, 4))
    check("record keeps a capped cell's own n",
          rec["bands"][0]["results"]["levels"]["n"] == 2 and rec["caps"] == {"levels@1100": 2})
    check("record survives JSON", json.loads(json.dumps(rec))["skipped"] == {"model": "none"})
    text = table([1100], {1100: 4}, results)
    check("table shows n, the cells, and a capped cell's n",
          "n=4)" in text and cell(3, 4) in text and cell(1, 2) + " n=2" in text)
    check("clamping to the engines' ranges",
          clamp(500, ROOKERY_ELO_RANGE) == 600 and clamp(800, ROOKERY_ELO_RANGE) == 800
          and clamp(1100, STOCKFISH_ELO_RANGE) == 1350
          and clamp(2300, STOCKFISH_ELO_RANGE) == 2300)

    print(f"{'all passed' if not failures else f'{failures} failed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

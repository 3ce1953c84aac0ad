#!/usr/bin/env python3
"""Engine-vs-engine match runner for Rookery (UCI), built on python-chess.

Plays ENGINE1 against ENGINE2 from an opening book (each opening twice, colours
reversed), keeps the clocks itself, detects time forfeits / illegal moves /
crashes / stalls, adjudicates, writes PGN, and reports W-D-L, Elo +- 95% error
and (optionally) a running SPRT.

Run `scripts/match.py --help` for the full description.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import random
import signal
import sys
from typing import Dict, List, Optional, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from matchlib.stats import *  # noqa: E402,F401,F403
from matchlib.stats import _mle_constrained  # noqa: E402,F401
from matchlib.engines import *  # noqa: E402,F401,F403
from matchlib.game import *  # noqa: E402,F401,F403
from matchlib.driver import Match  # noqa: E402

# --------------------------------------------------------------------------
# Rating estimate from results files
# --------------------------------------------------------------------------


def run_estimate(paths: List[str], engine: Optional[str]) -> int:
    rows = []
    for p in paths:
        with open(p, "r", encoding="utf-8") as fh:
            for ln in fh:
                ln = ln.strip()
                if ln:
                    rows.append(json.loads(ln))
    by_engine: Dict[str, List[Tuple[float, float, float, str]]] = {}
    for r in rows:
        if not r.get("games"):
            continue
        r1, r2 = r.get("rating1"), r.get("rating2")
        if r2 is not None and r1 is None:  # engine 1 unrated, opponent rated
            by_engine.setdefault(r["engine1"], []).append(
                (float(r2), float(r["points"]), float(r["games"]), r["engine2"]))
        elif r1 is not None and r2 is None:
            by_engine.setdefault(r["engine2"], []).append(
                (float(r1), float(r["games"] - r["points"]), float(r["games"]), r["engine1"]))
    if engine:
        by_engine = {k: v for k, v in by_engine.items() if k == engine}
    if not by_engine:
        print("no usable results (need matches of an unrated engine against opponents with a known rating)",
              file=sys.stderr)
        return 1
    for name, recs in by_engine.items():
        print("%s:" % name)
        agg: Dict[Tuple[str, float], List[float]] = {}
        for rating, pts, games, opp in recs:
            a = agg.setdefault((opp, rating), [0.0, 0.0])
            a[0] += pts
            a[1] += games
        for (opp, rating), (pts, games) in sorted(agg.items(), key=lambda kv: kv[0][1]):
            sc = pts / games
            print("  vs %-20s (%4.0f): %5.1f/%-4d = %5.1f%%  -> perf %s" % (
                opp, rating, pts, games, 100 * sc,
                "%.0f" % (rating + elo_from_score(sc)) if 0 < sc < 1 else ("> %.0f" % rating if sc >= 1 else "< %.0f" % rating)))
        est = estimate_rating([(r, p, n) for (o, r), (p, n) in agg.items()])
        if est:
            if est["bounded"]:
                print("  ML rating estimate: %.0f +/- %.0f (95%%, %d games)" % (est["rating"], est["err"], est["games"]))
            else:
                print("  ML rating estimate: unbounded (scored %s of the points); needs %s opponents"
                      % (("all", "stronger") if est["points"] >= est["games"] else ("none", "weaker")))
    print("(Ratings on the opponents' scale: Stockfish 15.1 UCI_Elo is documented as calibrated at 60s+0.6s "
          "and anchored to CCRL 40/4.)")
    return 0


# --------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------

HELP_EPILOG = r"""
ENGINE SPECS
  Each engine is KIND[,key=value[,key=value...]] where KIND is one of
    stockfish:ELO    /usr/games/stockfish (15.1) with UCI_LimitStrength=true,
                     UCI_Elo=ELO (1350..2850), Threads=1, Hash=16; rating=ELO
    stockfish        full-strength Stockfish, Threads=1, Hash=16
    toga2            /usr/games/toga2     (Toga II 3.0; Hash=16)
    glaurung         /usr/games/glaurung  (Glaurung 2.2; Threads=1, Hash=16)
    ethereal         /usr/games/ethereal-chess (Ethereal 12; Threads=1, Hash=16)
    rookery[:PATH]   a Rookery build (default PATH: <repo>/target/release/rookery)
    PATH or cmd=PATH any UCI binary (a command with arguments may be quoted:
                     "python3 scripts/fixtures/fake_engine.py --mode random")
  and the optional items are
    name=NAME        display name (PGN, output)
    option.X=Y       UCI option X set to Y (like cutechess-cli)
    arg=A            extra command-line argument for the engine
    rating=R         known rating of this engine (used by --estimate)
    rookery=true     treat as a Rookery build (OwnBook handling below)
    nodes=N          node limit per move for this engine alone, overriding --nodes
                     (node odds, e.g. for nets of different speeds; cutechess-cli's
                     per-engine nodes=N)
  Options can also be given with --option1/--option2 NAME=VALUE (repeatable) or
  --each NAME=VALUE (both engines). Precedence: preset < --each < spec < --optionN.
  Preset options (Threads, Hash) are only sent if the engine has that option;
  explicitly requested options must exist or the script exits with an error.

OWNBOOK
  When openings come from a file, every engine that has an 'OwnBook' UCI
  option (Rookery, Toga II, Glaurung) gets OwnBook=false unless you set it
  yourself, so all games start from the book position. With --openings none
  the engines keep their default (Rookery uses its own book).

GAMES AND OPENINGS
  Openings are read from a PGN (moves from the start position) or EPD file,
  plain or gzipped (.gz). The default is the repository's
  openings/8moves_v3.pgn.gz (fishtest's balanced book; openings/SOURCE.md).
  Other books, e.g. fishtest's UHO_4060_v4.epd, are optional inputs from
  outside the repository: download them and pass --openings FILE.
  Each opening is played twice with colours reversed (engine 1 is White in the
  odd-numbered game of each pair). --games N is rounded up to an even number;
  --rounds R means R opening pairs (= 2R games). Openings are taken in file
  order from --start, or in a --shuffle'd order (reproducible with --seed).

CLOCKS AND FORFEITS
  With --tc the script keeps the clocks: the wall time from writing 'go' to
  reading the pipe chunk that holds 'bestmove' (so OS pipe/scheduling latency
  counts against the engine, python-chess's own bookkeeping does not) is
  subtracted from the mover's clock, then the increment is added.
  A move that arrives when more time was used than was left on the clock plus
  --timemargin (default 0 ms, like cutechess-cli) is a time forfeit: loss for
  the mover ("time forfeit" in the PGN Termination tag), or a draw if the
  opponent has insufficient mating material. An engine that does not answer
  within (remaining clock + --stall-timeout) is a "stall" (loss; the process is
  killed and restarted for the next game). With --nodes/--depth only, the
  stall limit is --stall-timeout per move; with --movetime there are no time
  forfeits (the limit is a request to the engine), only stalls after
  movetime + --stall-timeout. ucinewgame/isready happen before the clock runs.
  Crashes (engine process exits) are "crash", a bestmove that is not legal (or
  'bestmove (none)'/'0000' in a position with legal moves) is "illegal move";
  both lose. A crashed engine is restarted for the next game.

ADJUDICATION (no tablebases)
  resign: if both engines' last --resign-moves reports (each side's own moves)
  all give the same side >= --resign-score cp (mate scores count as 100000),
  that side wins. draw: if the last --draw-moves plies in a row all reported
  |score| <= --draw-score cp, with the counting starting after move
  --draw-movenumber, the game is drawn. maxplies: draw after --maxplies plies
  (counting the opening moves). Set a count to 0, or use --no-adjudication
  (resign+draw) to disable. Game ends by rule (mate, stalemate, threefold
  repetition, fifty-move rule, insufficient material) are always applied.

STATISTICS
  W-D-L and score are from engine 1's point of view. Elo uses the logistic
  model Elo = -400*log10(1/score - 1). The primary 95% error bar is
  pentanomial: game pairs (same opening, both colours) are the independent
  unit, score variance estimated from the 5 pair outcomes; the interval
  score +/- 1.96*SE is mapped to Elo and half its width is printed. The
  trinomial (per-game) figure is printed too. SPRT is the generalised SPRT on
  pentanomial pair results with logistic Elo bounds elo0/elo1, computed as
  fishtest does (LLR = N * sum p_i ln(q1_i/q0_i), q0/q1 the max-likelihood
  outcome distributions with expected score s0/s1); for large N this equals
  the normal approximation N*(s1-s0)*(2*mean-s0-s1)/(2*var) used by OpenBench
  (--sprt-normal selects that one; it is unreliable for a few games). LLR
  bounds are ln(beta/(1-alpha)) and ln((1-beta)/alpha). Only completed pairs
  count. When the LLR crosses a bound no new games are started; games already
  running still finish and are counted in the final totals.

EXAMPLES
  scripts/match.py rookery stockfish:1500 --tc 10+0.1 --games 100 -c 2 --pgn sf1500.pgn
  scripts/match.py rookery:target/release/rookery rookery:/tmp/base/rookery \
      --tc 10+0.1 --sprt 0 5 --games 20000 --openings UHO_4060_v4.epd
  scripts/match.py stockfish:1350 glaurung --nodes 5000 --games 10 --option2 Hash=8
  scripts/match.py --estimate results/ladder.jsonl

EXIT STATUS
  0 ok; 2 setup error (bad arguments, missing engine binary or openings file,
  engine fails to start or lacks a requested option); 3 with --fail-on-errors
  when any counted engine had a time forfeit, illegal move, crash or stall;
  130 when interrupted.
"""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="match.py",
        description="Play a match between two UCI engines (Rookery match tooling).",
        epilog=HELP_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("engines", nargs="*", metavar="ENGINE", help="two engine specs (see ENGINE SPECS)")
    g = p.add_argument_group("games")
    g.add_argument("--games", "-n", type=int, help="number of games (rounded up to even; default 10)")
    g.add_argument("--rounds", type=int, help="number of opening pairs (2 games each); alternative to --games")
    g.add_argument("-c", "--concurrency", type=int, default=2, help="games played at the same time (default 2)")
    g.add_argument("--openings", default=DEFAULT_OPENINGS,
                   help="PGN or EPD opening file, 'none' for the start position, or 'chess960' for "
                        "the 960 Chess960 start positions (UCI_Chess960 is set by python-chess) "
                        "(default: openings/8moves_v3.pgn.gz in the repository)")
    g.add_argument("--start", type=int, default=1, help="first opening to use, 1-based (default 1)")
    g.add_argument("--shuffle", action="store_true", help="use openings in a random order")
    g.add_argument("--seed", type=int, help="seed for --shuffle (default: random, printed)")
    t = p.add_argument_group("time control (combinable; at least one required)")
    t.add_argument("--tc", help="clock: [MOVES/]SECONDS[+INC], e.g. 10+0.1 or 40/60")
    t.add_argument("--nodes", type=int, help="node limit per move")
    t.add_argument("--depth", type=int, help="depth limit per move")
    t.add_argument("--movetime", type=int, metavar="MS", help="fixed time per move in milliseconds")
    t.add_argument("--ponder", action="store_true",
                   help="engines think on the opponent's time: 'go ponder' after each move, then "
                        "'ponderhit' or 'stop' (python-chess, as lichess-bot does). Both engines "
                        "search at once, so use -c 1 on 2 cores")
    t.add_argument("--timemargin", type=int, default=0, metavar="MS",
                   help="grace before a late move is a time forfeit (default 0)")
    t.add_argument("--stall-timeout", type=float, default=10.0, metavar="S",
                   help="seconds past the time limit (or per move with nodes/depth) before an engine "
                        "that has not answered is declared stalled (default 10)")
    o = p.add_argument_group("engine options")
    o.add_argument("--option1", action="append", metavar="NAME=VALUE", help="UCI option for engine 1 (repeatable)")
    o.add_argument("--option2", action="append", metavar="NAME=VALUE", help="UCI option for engine 2 (repeatable)")
    o.add_argument("--each", action="append", metavar="NAME=VALUE", help="UCI option for both engines (repeatable)")
    o.add_argument("--keep-ownbook", action="store_true",
                   help="don't set OwnBook=false even when openings come from a file")
    o.add_argument("--engine-stderr", choices=("show", "discard"), default="show",
                   help="engines' stderr: pass through (default) or discard")
    a = p.add_argument_group("adjudication")
    a.add_argument("--resign-score", type=int, default=1000, metavar="CP", help="default 1000")
    a.add_argument("--resign-moves", type=int, default=4, metavar="K", help="moves per side; 0 disables (default 4)")
    a.add_argument("--draw-movenumber", type=int, default=40, metavar="N", help="default 40")
    a.add_argument("--draw-moves", type=int, default=8, metavar="K", help="plies; 0 disables (default 8)")
    a.add_argument("--draw-score", type=int, default=10, metavar="CP", help="default 10")
    a.add_argument("--maxplies", type=int, default=400, help="draw after this many plies; 0 disables (default 400)")
    a.add_argument("--no-adjudication", action="store_true", help="disable resign and draw adjudication")
    s = p.add_argument_group("SPRT")
    s.add_argument("--sprt", nargs=2, type=float, metavar=("ELO0", "ELO1"),
                   help="run a sequential test of H0: elo=ELO0 vs H1: elo=ELO1 (logistic Elo); "
                        "--games is the maximum (default 20000 with --sprt)")
    s.add_argument("--sprt-normal", action="store_true",
                   help="use the normal-approximation LLR (OpenBench) instead of fishtest's exact GSPRT")
    s.add_argument("--sprt-prior", type=lambda v: [int(x) for x in v.split(",")], metavar="N0,N1,N2,N3,N4",
                   help="pentanomial counts of the same test's earlier games (a run resumed after a stop): "
                        "the LLR and the decision count them with this run's pairs")
    s.add_argument("--alpha", type=float, default=0.05, help="type I error (default 0.05)")
    s.add_argument("--beta", type=float, default=0.05, help="type II error (default 0.05)")
    r = p.add_argument_group("output")
    r.add_argument("--pgn", metavar="FILE", help="append games to this PGN file")
    r.add_argument("--results", metavar="FILE", help="append a one-line JSON summary to this file (for --estimate; nothing when no game finished)")
    r.add_argument("--event", default="Rookery match", help="PGN Event tag")
    r.add_argument("--no-comments", action="store_true", help="no score/depth/time comments in the PGN")
    r.add_argument("--fail-on-errors", nargs="?", const="any", choices=("any", "first"),
                   help="exit 3 if any engine ('any') or engine 1 ('first') had a time forfeit, illegal move, "
                        "crash or stall")
    r.add_argument("--debug", action="store_true", help="log UCI traffic (python-chess debug logging)")
    e = p.add_argument_group("rating estimate (no games played)")
    e.add_argument("--estimate", nargs="+", metavar="RESULTS_FILE",
                   help="fit a max-likelihood rating from --results files (opponents need a rating, e.g. stockfish:ELO)")
    e.add_argument("--estimate-engine", metavar="NAME", help="only estimate this engine")
    return p


def record_summary(path, summ):
    """Appends the match's summary to a results file, unless no game finished (a match
    stopped at its start): a row of zero games has no score and would only be noise in
    the tables and fits that read the file. Returns whether it wrote."""
    if summ.get("games", 0) == 0:
        print("no game finished: nothing recorded in %s" % path)
        return False
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(summ, allow_nan=True) + "\n")
    return True


def main(argv: Optional[List[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.debug else logging.ERROR,
                        format="%(asctime)s %(threadName)s %(message)s")
    if args.estimate:
        try:
            return run_estimate(args.estimate, args.estimate_engine)
        except (OSError, ValueError, KeyError) as err:
            print("error: %s" % err, file=sys.stderr)
            return 2
    try:
        return run_match(args, parser)
    except SetupError as err:
        print("error: %s" % err, file=sys.stderr)
        return 2


def run_match(args, parser) -> int:
    if len(args.engines) != 2:
        raise SetupError("need exactly two engine specs (got %d); see --help" % len(args.engines))
    specs = [parse_engine_spec(s) for s in args.engines]
    if not (args.tc or args.nodes or args.depth or args.movetime or all(es.nodes for es in specs)):
        raise SetupError("give a time control: --tc, --nodes, --depth and/or --movetime "
                         "(or nodes=N in both engine specs)")
    if args.games is not None and args.rounds is not None:
        raise SetupError("give --games or --rounds, not both")
    if args.concurrency < 1:
        raise SetupError("--concurrency must be >= 1")
    if args.sprt and not (0 < args.alpha < 1 and 0 < args.beta < 1 and args.sprt[0] < args.sprt[1]):
        raise SetupError("--sprt needs ELO0 < ELO1 and 0 < alpha, beta < 1")
    if args.sprt_prior is not None and (not args.sprt or len(args.sprt_prior) != 5
                                        or min(args.sprt_prior) < 0):
        raise SetupError("--sprt-prior needs --sprt and five counts >= 0")
    if args.rounds is not None:
        total = 2 * args.rounds
    elif args.games is not None:
        total = args.games + (args.games % 2)
    else:
        total = 20000 if args.sprt else 10
    if total <= 0:
        raise SetupError("number of games must be positive")
    tc = TimeControl.parse(args.tc) if args.tc else None

    for es in specs:
        check_executable(es)
    if specs[0].name == specs[1].name:
        specs[1].name += "#2"

    use_book = bool(args.openings) and args.openings.lower() != "none"
    chess960 = args.openings.lower() == "chess960"
    if use_book and not chess960 and not os.path.isfile(args.openings):
        raise SetupError("openings file not found: %s (give --openings FILE, or 'none')" % args.openings)
    try:
        import chess  # noqa: F401
        import chess.engine  # noqa: F401
    except ImportError:
        raise SetupError("python-chess is not installed (pip install chess, or scripts/install-opponents.sh)")
    book = (Chess960Openings() if chess960 else OpeningBook(args.openings)) if use_book else None
    if args.shuffle and args.seed is None:
        args.seed = random.SystemRandom().randrange(1 << 31)

    each = parse_option_list(args.each)
    per = [parse_option_list(args.option1), parse_option_list(args.option2)]
    engine_opts: List[Dict[str, str]] = []
    for i, es in enumerate(specs):
        opts: Dict[str, str] = {}
        opts.update(each)
        opts.update(es.options)
        opts.update(per[i])
        # Rookery (and Toga II / Glaurung) have OwnBook=true by default: turn it off when
        # the openings come from a file. Sent only if the engine has the option.
        if book is not None and not args.keep_ownbook and "OwnBook" not in opts:
            es.soft_options["OwnBook"] = "false"
        engine_opts.append(opts)

    # Probe both engines once: fail fast (exit 2) if one can't start or lacks an option.
    async def probe() -> List[str]:
        names = []
        for i, es in enumerate(specs):
            h = EngineHandle(es, engine_opts[i], asyncio.subprocess.DEVNULL)
            try:
                await h.start(30.0)
                names.append(h.protocol.id.get("name", "?"))
            except SetupError:
                raise
            except Exception as err:
                raise SetupError("engine %r failed to start: %r" % (es.spec, err))
            finally:
                await h.close()
        return names

    ids = asyncio.run(probe())

    settings = Settings(
        tc=tc, nodes=args.nodes, depth=args.depth,
        movetime=(args.movetime / 1000.0) if args.movetime else None,
        timemargin=args.timemargin / 1000.0, stall_timeout=args.stall_timeout,
        resign_score=args.resign_score, resign_moves=0 if args.no_adjudication else args.resign_moves,
        draw_movenumber=args.draw_movenumber, draw_moves=0 if args.no_adjudication else args.draw_moves,
        draw_score=args.draw_score, maxplies=args.maxplies, event=args.event, comments=not args.no_comments,
        ponder=args.ponder)
    m = Match(args, specs, engine_opts, book, settings)
    m.build_tasks(total)
    print("Match: %s (%s) vs %s (%s), %d games, tc %s, concurrency %d" % (
        specs[0].name, ids[0], specs[1].name, ids[1], len(m.tasks), m.tcs, args.concurrency))
    for i, es in enumerate(specs):
        soft = {k: v for k, v in es.soft_options.items() if k not in engine_opts[i]}
        print("  engine %d: %s  options %s%s" % (i + 1, " ".join(es.cmd), engine_opts[i] or "{}",
                                                 "  if supported: %s" % soft if soft else ""))
    if args.ponder:
        print("Pondering: on (go ponder / ponderhit; the clock runs from 'go' or 'ponderhit')")
    if book:
        print("Openings: %s (%d positions, %s, start %d%s)" % (
            args.openings, len(book), book.kind.upper(), args.start,
            ", shuffled seed %d" % args.seed if args.shuffle else ""))
    else:
        print("Openings: none (standard start position)")
    if args.sprt:
        lo, hi = sprt_bounds(args.alpha, args.beta)
        print("SPRT: elo0=%g elo1=%g alpha=%g beta=%g, LLR bounds [%.2f, %.2f]"
              % (args.sprt[0], args.sprt[1], args.alpha, args.beta, lo, hi))
    sys.stdout.flush()

    def on_term(signum, frame):  # SIGTERM behaves like Ctrl-C: stop, kill engines, print the summary
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, on_term)
    m.run()
    interrupted = m.interrupted
    summ = m.summary()
    m.print_summary(summ)
    if args.results:
        record_summary(args.results, summ)
    if args.fail_on_errors:
        counted = [0] if args.fail_on_errors == "first" else [0, 1]
        bad = sum(sum(m.errors[i].values()) for i in counted)
        if bad:
            print("FAIL: %d time forfeit/illegal move/crash/stall events" % bad)
            return 3
    return 130 if interrupted else 0


if __name__ == "__main__":
    sys.exit(main())

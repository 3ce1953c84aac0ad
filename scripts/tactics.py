#!/usr/bin/env python3
"""Tactical suite runner: searches each EPD position (with a `bm` best-move field) for a
fixed time or node budget and counts how many best moves the engine finds.

    python3 scripts/tactics.py target/release/rookery ../shared/data/suites/wac.epd --movetime 500

The suites (WAC, Bratko-Kopec, ...) are not part of the repository: an optional input from
outside it (../shared/data/suites/ on the project's machines), given as EPD.
"""
import argparse
import sys

import chess
import chess.engine


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("engine")
    ap.add_argument("epd")
    ap.add_argument("--movetime", type=int, default=500, help="milliseconds per position")
    ap.add_argument("--nodes", type=int, help="node budget per position instead of time")
    ap.add_argument("--limit", type=int, help="only the first N positions")
    ap.add_argument("--option", action="append", default=[], help="NAME=VALUE UCI option")
    args = ap.parse_args()
    try:
        with open(args.epd):
            pass
    except OSError as err:
        print("tactics.py: cannot read the EPD suite %s: %s (suites are not in the repository)"
              % (args.epd, err.strerror), file=sys.stderr)
        return 2

    engine = chess.engine.SimpleEngine.popen_uci(args.engine)
    options = dict(o.split("=", 1) for o in args.option)
    if "OwnBook" in engine.options:
        options.setdefault("OwnBook", "false")
    engine.configure(options)
    limit = chess.engine.Limit(nodes=args.nodes) if args.nodes else chess.engine.Limit(time=args.movetime / 1000)
    solved = total = 0
    with open(args.epd) as f:
        for line in f:
            if not line.strip():
                continue
            board, ops = chess.Board.from_epd(line.strip())
            best = ops.get("bm")
            if not best:
                continue
            total += 1
            result = engine.play(board, limit)
            ok = result.move in best
            solved += ok
            if not ok:
                print(f"miss {ops.get('id', total)}: played {board.san(result.move)}, "
                      f"expected {' '.join(board.san(m) for m in best)}")
            if args.limit and total >= args.limit:
                break
    engine.quit()
    print(f"solved {solved}/{total}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

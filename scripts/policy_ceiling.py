#!/usr/bin/env python3
"""How often alpha-beta agrees with itself: the ceiling of a policy trained on its moves.

The self-play policy learns the move the alpha-beta search played at 5,000 nodes. Where
several moves are about equally good, which one such a search plays depends on the hash
table it inherited and on where the node budget cut its last iteration, so part of the
label is noise no net can predict from the position. This script searches sampled
positions of a self-play file several ways and reports how often the moves agree (95 %
Wilson intervals); an agreement of the search with a slightly different copy of itself
bounds what the policy's top-1 can reach.

  scripts/policy_ceiling.py [--engine target/release/rookery] [--data data/validation/x.vf]
                            [--positions 1000] [--seed 1]
"""
import argparse
import math
import os
import random
import subprocess
import sys
import tempfile

import chess
import chess.engine

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def wilson(hits, n, z=1.96):
    if n == 0:
        return (0.0, 0.0)
    p = hits / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (centre - half, centre + half)


def sample_fens(engine_path, data, count, seed):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "positions.txt")
        subprocess.run([engine_path, "data", "to-text", data, out], check=True,
                       stdout=subprocess.DEVNULL)
        with open(out) as f:
            fens = [line.split("|")[0].strip() for line in f if line.strip()]
    # Each sample carries the two positions before it in the file (usually the same
    # game's previous plies), to warm the hash table as a game would.
    picks = list(range(2, len(fens)))
    random.Random(seed).shuffle(picks)
    return [(fens[i], fens[i - 2:i]) for i in picks[:count]]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--engine", default=os.path.join(ROOT, "target/release/rookery"))
    ap.add_argument("--data", default=None,
                    help="self-play .vf file (default: the first of data/validation/)")
    ap.add_argument("--positions", type=int, default=1000)
    ap.add_argument("--nodes", type=int, default=5000, help="the labels' node budget")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    data = args.data
    if data is None:
        vdir = os.path.join(ROOT, "data/validation")
        data = os.path.join(vdir, sorted(f for f in os.listdir(vdir) if f.endswith(".vf"))[0])
    fens = sample_fens(args.engine, data, args.positions, args.seed)
    n = args.nodes
    # (name, node budget, whether the hash table keeps the reference search's entries)
    variants = [("same budget, fresh hash (determinism check)", n, False),
                ("same budget, hash warm from the two positions before it", n, True),
                ("1.6x the budget, fresh hash", n * 8 // 5, False),
                ("half the budget, fresh hash", n // 2, False)]
    hits = [0] * len(variants)
    total = 0
    engine = chess.engine.SimpleEngine.popen_uci(args.engine, stderr=subprocess.DEVNULL)
    engine.configure({"Hash": 16, "OwnBook": False})
    try:
        for k, (fen, before) in enumerate(fens):
            # Shredder castling letters (files) mark a Chess960 position.
            board = chess.Board(fen, chess960=bool(set(fen.split()[2]) - set("KQkq-")))
            if board.is_game_over() or board.legal_moves.count() < 2:
                continue
            reference = engine.play(board, chess.engine.Limit(nodes=n), game=object()).move
            for i, (_, nodes, warm) in enumerate(variants):
                game = object()
                if warm:
                    for earlier in before:
                        b = chess.Board(earlier, chess960=board.chess960)
                        if not b.is_game_over():
                            engine.play(b, chess.engine.Limit(nodes=n), game=game)
                move = engine.play(board, chess.engine.Limit(nodes=nodes), game=game).move
                hits[i] += move == reference
            total += 1
            if (k + 1) % 100 == 0:
                print("%d/%d positions" % (k + 1, len(fens)), file=sys.stderr)
    finally:
        engine.quit()
    print("%s: %d positions, reference = alpha-beta at %d nodes, fresh hash, 1 thread"
          % (os.path.relpath(data, ROOT), total, n))
    print("| compared with | agreement | 95 % interval |")
    print("|---|---|---|")
    for (name, _, _), h in zip(variants, hits):
        lo, hi = wilson(h, total)
        print("| %s | %.1f %% | [%.1f, %.1f] |" % (name, 100 * h / max(total, 1), 100 * lo, 100 * hi))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Cross-checks Rookery's Syzygy probes against python-chess's `chess.syzygy`.

Random legal positions for every material combination the tables hold (3 and 4 pieces in
tests/data/syzygy) go to `rookery tb`; its WDL, signed DTZ and recommended move must
agree with python-chess: WDL and DTZ exactly, and the move must keep python-chess's best
result. Prints the counts and the probe speed; exits non-zero on any disagreement.

Usage: scripts/check_syzygy.py [--positions 2000] [--seed 1] [--tables DIR] [--bin PATH]
"""
import argparse
import os
import random
import subprocess
import sys

import chess
import chess.syzygy

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def materials(tables):
    """Material strings like 'KQvKR' of the WDL tables present."""
    return sorted(f[:-5] for f in os.listdir(tables) if f.endswith(".rtbw"))


def random_position(material, rng):
    """A legal, non-terminal position with this material (either side to move), or None."""
    white, black = material.split("v")
    pieces = [(chess.Piece.from_symbol(c.upper()), chess.WHITE) for c in white]
    pieces += [(chess.Piece.from_symbol(c.lower()), chess.BLACK) for c in black]
    board = chess.Board(None)
    squares = rng.sample(range(64), len(pieces))
    for (piece, _), sq in zip(pieces, squares):
        if piece.piece_type == chess.PAWN and chess.square_rank(sq) in (0, 7):
            return None
        board.set_piece_at(sq, piece)
    board.turn = rng.choice([chess.WHITE, chess.BLACK])
    # Now and then a pawn that just advanced two squares, so en passant is exercised.
    if rng.random() < 0.3:
        rank = 4 if board.turn == chess.WHITE else 3  # the opponent's pawn on its 4th rank
        for sq in board.pieces(chess.PAWN, not board.turn):
            if chess.square_rank(sq) == rank:
                behind = sq + (8 if board.turn == chess.WHITE else -8)
                start = sq + (16 if board.turn == chess.WHITE else -16)
                if board.piece_at(behind) is None and board.piece_at(start) is None:
                    board.ep_square = behind
                    break
    if not board.is_valid() or board.is_game_over():
        return None
    return board


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tables", default=os.path.join(ROOT, "tests", "data", "syzygy"))
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "rookery"))
    args = ap.parse_args()

    mats = materials(args.tables) if os.path.isdir(args.tables) else []
    if not mats:
        sys.exit(f"check_syzygy: no Syzygy WDL tables (*.rtbw) in {args.tables}")
    rng = random.Random(args.seed)
    boards = []
    while len(boards) < args.positions:
        b = random_position(rng.choice(mats), rng)
        if b is not None:
            boards.append(b)
    fens = "\n".join(b.fen() for b in boards) + "\n"
    run = subprocess.run(
        [args.bin, "tb", "--path", args.tables, "--time-rounds", "20"],
        input=fens, capture_output=True, text=True, check=True,
    )
    lines = run.stdout.splitlines()
    assert len(lines) == len(boards), f"{len(lines)} answers for {len(boards)} positions"

    wdl_ok = dtz_ok = move_ok = ep = 0
    failures = []
    with chess.syzygy.open_tablebase(args.tables) as tb:
        for board, line in zip(boards, lines):
            wdl, dtz, best = line.split()
            ep += board.ep_square is not None
            want_wdl = tb.probe_wdl(board)
            want_dtz = tb.probe_dtz(board)
            if wdl != "none" and int(wdl) == want_wdl:
                wdl_ok += 1
            else:
                failures.append(f"WDL {board.fen()}: rookery {wdl}, python-chess {want_wdl}")
            if dtz != "none" and int(dtz) == want_dtz:
                dtz_ok += 1
            else:
                failures.append(f"DTZ {board.fen()}: rookery {dtz}, python-chess {want_dtz}")
            # The recommended move must keep the best result python-chess sees.
            move = chess.Move.from_uci(best) if best != "none" else None
            if move is None or move not in board.legal_moves:
                failures.append(f"move {board.fen()}: rookery {best} is not legal")
                continue
            after = board.copy()
            after.push(move)
            if after.is_checkmate():
                kept = 2
            elif after.is_stalemate() or after.is_insufficient_material():
                kept = 0
            else:
                kept = -tb.probe_wdl(after)
            if kept == want_wdl or (want_wdl == 0 and kept in (0, 1, -1)):
                move_ok += 1
            else:
                failures.append(f"move {board.fen()}: {best} leads to {kept}, best is {want_wdl}")

    n = len(boards)
    print(f"{n} positions ({len(mats)} materials, {ep} with en passant): "
          f"WDL {wdl_ok}/{n}, DTZ {dtz_ok}/{n}, best move keeps the result {move_ok}/{n}")
    speed = [l for l in run.stderr.splitlines() if "probes/s" in l]
    if speed:
        print(speed[-1])
    for f in failures[:20]:
        print("MISMATCH", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""A level-limited game end to end through python-chess's engine layer, configured the
way lichess-bot configures an engine (uci_options, clocks with increment, pondering):
Rookery at UCI_Elo 1500 with Human Timing plays a full-strength Rookery (tablebases on
for both) until the game ends or 160 plies. Every move must be legal and in time; the
limited side must really think (not answer every move at once), and lose the game or
at least not win it against full strength.

Run by .ci/run after python-chess is installed:
  python3 tests/lichess_level_game.py [path/to/rookery]
"""
import os
import sys
import time

import chess
import chess.engine

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLES = os.path.join(ROOT, "tests", "data", "syzygy")


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target", "release", "rookery")
    limited = chess.engine.SimpleEngine.popen_uci(binary)
    full = chess.engine.SimpleEngine.popen_uci(binary)
    try:
        common = {"Hash": 16, "Move Overhead": 50, "SyzygyPath": TABLES, "OwnBook": True}
        limited.configure({**common, "UCI_LimitStrength": True, "UCI_Elo": 1500,
                           "Human Timing": True})
        full.configure(common)
        board = chess.Board()
        clock = {chess.WHITE: 20.0, chess.BLACK: 20.0}
        inc = 0.2
        engines = {chess.WHITE: limited, chess.BLACK: full}
        think = []
        while not board.is_game_over(claim_draw=True) and board.ply() < 160:
            side = board.turn
            limit = chess.engine.Limit(white_clock=clock[chess.WHITE], black_clock=clock[chess.BLACK],
                                       white_inc=inc, black_inc=inc)
            start = time.monotonic()
            result = engines[side].play(board, limit, ponder=True)
            spent = time.monotonic() - start
            assert result.move is not None, f"no move at {board.fen()}"
            assert result.move in board.legal_moves, f"illegal {result.move} at {board.fen()}"
            clock[side] -= spent
            assert clock[side] > 0, f"{'limited' if side == chess.WHITE else 'full'} side lost on time"
            clock[side] += inc
            if side == chess.WHITE:
                think.append(spent)
            board.push(result.move)
        outcome = board.outcome(claim_draw=True)
        result = outcome.result() if outcome else "* (160 plies)"
        thought = sorted(think)
        median = thought[len(thought) // 2]
        print(f"level 1500 (White) vs full strength: {result} after {board.ply()} plies; "
              f"limited side's think time median {median * 1000:.0f} ms, "
              f"max {thought[-1] * 1000:.0f} ms; clocks {clock[chess.WHITE]:.1f} s / {clock[chess.BLACK]:.1f} s")
        assert median > 0.05, "the limited side answers at once: no human timing"
        assert result != "1-0", "a 1500 level beat full strength"
    finally:
        limited.quit()
        full.quit()


if __name__ == "__main__":
    main()

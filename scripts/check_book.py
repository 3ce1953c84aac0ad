#!/usr/bin/env python3
"""Cross-checks Rookery's Polyglot book against python-chess.

Reads the book with chess.polyglot.open_reader (independent key and move decoding) and,
for a sample of positions (start, 1.e4, 1.d4, some deeper named lines, castled
positions, random weighted walks through the book), compares the (move, weight) lists
with what `rookery book probe --raw` prints. Exits non-zero on any mismatch.

Usage: python3 scripts/check_book.py [BINARY | --bin BINARY] [--book book/lichess.bin]
(BINARY defaults to <repo>/target/release/rookery, the book to <repo>/book/lichess.bin.)
Needs python-chess (pip install chess).
"""

import argparse
import os
import random
import subprocess
import sys

try:
    import chess
    import chess.polyglot
except ImportError:
    sys.exit("check_book.py needs python-chess: pip install chess")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

FIXED_LINES = [
    [],
    ["e2e4"],
    ["d2d4"],
    ["c2c4"],
    ["g1f3"],
    ["e2e4", "e7e5"],
    ["e2e4", "c7c5"],
    ["e2e4", "e7e6", "d2d4", "d7d5"],
    ["e2e4", "c7c6", "d2d4", "d7d5", "e4e5"],
    ["d2d4", "g8f6", "c2c4", "e7e6", "b1c3"],
    ["d2d4", "d7d5", "c2c4", "e7e6"],
    ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6", "e1g1"],
    ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5", "e1g1"],
    ["e2e4", "c7c5", "g1f3", "d7d6", "d2d4", "c5d4", "f3d4", "g8f6", "b1c3", "a7a6"],
    ["e2e4", "d7d5", "e4e5", "f7f5"],  # en passant file counted in the key
]


def rookery_probe(binary, book, moves=None, fen=None):
    cmd = [binary, "book", "probe", "--file", book, "--raw"]
    if fen is not None:
        cmd += ["--fen", fen]
    elif moves:
        cmd += ["--moves"] + moves
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {out.stderr.strip()}")
    result = []
    for line in out.stdout.splitlines():
        if line.strip():
            uci, weight = line.split()
            result.append((uci, int(weight)))
    return sorted(result)


def rookery_probe_builtin(binary, moves):
    cmd = [binary, "book", "probe", "--raw"] + (["--moves"] + moves if moves else [])
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {out.stderr.strip()}")
    return sorted((l.split()[0], int(l.split()[1])) for l in out.stdout.splitlines() if l.strip())


def python_probe(reader, board):
    return sorted((e.move.uci(), e.weight) for e in reader.find_all(board))


def board_after(moves):
    board = chess.Board()
    for uci in moves:
        board.push_uci(uci)
    return board


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("binary", nargs="?", help="rookery binary (same as --bin)")
    ap.add_argument("--bin", default=os.path.join(ROOT, "target/release/rookery"), help="rookery binary")
    ap.add_argument("--book", default=os.path.join(ROOT, "book/lichess.bin"), help="Polyglot book to check")
    ap.add_argument("--walks", type=int, default=40, help="random walks through the book")
    ap.add_argument("--depth", type=int, default=30, help="maximum plies per walk")
    ap.add_argument("--seed", type=int, default=20261122)
    args = ap.parse_args()
    if args.binary:
        args.bin = args.binary

    rng = random.Random(args.seed)
    failures = 0
    checked = 0
    nonempty = 0
    with chess.polyglot.open_reader(args.book) as reader:
        # Whole-file sanity: entries readable and sorted by key.
        keys = [e.key for e in reader]
        if not keys:
            print("FAIL: book has no entries")
            return 1
        if keys != sorted(keys):
            print("FAIL: keys are not sorted")
            failures += 1
        if chess.polyglot.zobrist_hash(chess.Board()) != 0x463B96181691FC9C:
            print("FAIL: python-chess start key differs from the Polyglot reference")
            failures += 1

        samples = [list(line) for line in FIXED_LINES]
        for _ in range(args.walks):
            board = chess.Board()
            for _ in range(args.depth):
                entries = list(reader.find_all(board))
                if not entries:
                    break
                entry = rng.choices(entries, weights=[e.weight + 1 for e in entries])[0]
                board.push(entry.move)
                samples.append([m.uci() for m in board.move_stack])

        seen = set()
        for moves in samples:
            if tuple(moves) in seen:
                continue
            seen.add(tuple(moves))
            board = board_after(moves)
            expected = python_probe(reader, board)
            got = rookery_probe(args.bin, args.book, moves=moves)
            checked += 1
            nonempty += bool(expected)
            if got != expected:
                failures += 1
                print(f"MISMATCH after {' '.join(moves) or '(start)'}\n  python-chess: {expected}\n  rookery:      {got}")

        # A few positions given as FEN instead of moves.
        for moves in samples[:5]:
            board = board_after(moves)
            expected = python_probe(reader, board)
            got = rookery_probe(args.bin, args.book, fen=board.fen())
            checked += 1
            if got != expected:
                failures += 1
                print(f"MISMATCH for FEN {board.fen()}\n  python-chess: {expected}\n  rookery:      {got}")

        # The book embedded in the binary should be this file (else: rebuild the binary).
        for moves in samples[:3]:
            expected = python_probe(reader, board_after(moves))
            got = rookery_probe_builtin(args.bin, moves)
            checked += 1
            if got != expected:
                failures += 1
                print(f"MISMATCH (built-in book) after {' '.join(moves) or '(start)'}: the binary embeds "
                      f"a different book than {args.book}\n  file:     {expected}\n  built-in: {got}")

    print(f"checked {checked} positions ({nonempty} with book moves), {len(keys)} entries, {failures} mismatches")
    if nonempty < 10:
        print("FAIL: too few positions with book moves were compared")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

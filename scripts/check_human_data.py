#!/usr/bin/env python3
"""Independent check of `.rkh` human-game files (data/human/README.md) with python-chess:
decodes each file here (not with Rookery's reader), replays every game, and with
--source compares the games with the CSV/PGN they were converted from (every stored game
must be a game of the source with the same moves and ratings, in the source's order).

    scripts/check_human_data.py data/human/lichess-arenas.rkh \
        --source ../shared/data/human-games/lichess_arenas_2025-03.pgn.gz

Exit status 1 on any mismatch."""

import argparse
import csv
import gzip
import io
import struct
import sys

import chess
import chess.pgn

MAGIC = b"RKHUMAN\0"


def move_code(board, move):
    """Rookery's sort key: (from, to, promotion), castling as king takes rook."""
    to = move.to_square
    if board.is_castling(move):
        rank = chess.square_rank(move.from_square)
        to = chess.square(7 if chess.square_file(to) > 4 else 0, rank)
    promo = move.promotion or 0  # python-chess KNIGHT..QUEEN = 2..5, as Rookery's.
    return (move.from_square << 10) | (to << 4) | promo


def read_rkh(path):
    """Yields (white_rating, black_rating, [uci moves]) per stored game."""
    raw = gzip.open(path, "rb").read()
    if raw[:8] != MAGIC:
        raise ValueError("%s: no RKHUMAN magic" % path)
    at = 10
    while at < len(raw):
        white, black, _scale, _source, flags, _result, _base, _inc, _cls, _res, plies = \
            struct.unpack_from("<HHBBBBHHBBH", raw, at)
        at += 16
        board = chess.Board()
        moves = []
        for index in raw[at:at + plies]:
            legal = sorted(board.legal_moves, key=lambda m: move_code(board, m))
            move = legal[index]
            moves.append(move.uci())
            board.push(move)
        at += plies
        if flags & 2:
            at += 4 * plies
        yield white, black, moves


def source_games(path):
    """Yields (white_rating, black_rating, [uci moves]) for every readable source game."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", errors="replace", newline="") as f:
        if path.endswith(".csv") or path.endswith(".csv.gz"):
            for row in csv.DictReader(f):
                board = chess.Board()
                try:
                    moves = [board.push_san(s).uci() for s in row["moves"].split()]
                    yield int(row["white_rating"]), int(row["black_rating"]), moves
                except (ValueError, KeyError):
                    continue
            return
        text = io.StringIO(f.read())
    while True:
        game = chess.pgn.read_game(text)
        if game is None:
            return
        try:
            ratings = int(game.headers["WhiteElo"]), int(game.headers["BlackElo"])
        except (KeyError, ValueError):
            continue
        yield ratings[0], ratings[1], [m.uci() for m in game.mainline_moves()]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("--source", help="the CSV/PGN the file was converted from")
    args = parser.parse_args()
    stored = list(read_rkh(args.file))
    plies = sum(len(m) for _, _, m in stored)
    print("%s: %d games, %d positions decoded and replayed" % (args.file, len(stored), plies))
    if not args.source:
        return 0
    # Each stored game must appear in the source, in order (skipped records leave gaps).
    pending = iter(source_games(args.source))
    matched = 0
    for game in stored:
        for candidate in pending:
            if candidate == game:
                matched += 1
                break
        else:
            print("MISMATCH: stored game %d not found in order in %s" % (matched, args.source))
            return 1
    print("all %d games match %s (moves and ratings, in order)" % (matched, args.source))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""One game: openings, time controls, and playing a game between two engines with the
clocks kept here, adjudication, and forfeit/illegal-move/crash/stall detection."""

from __future__ import annotations

import argparse
import asyncio
import datetime as _dt
import io
import json
import logging
import math
import os
import random
import re
import shlex
import shutil
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from .engines import *  # noqa: F401,F403
from .stats import *  # noqa: F401,F403

# --------------------------------------------------------------------------
# Openings
# --------------------------------------------------------------------------


@dataclass
class Opening:
    index: int
    fen: Optional[str]  # start FEN (None = standard start position)
    moves: List  # chess.Move list played from the start position
    name: str = ""
    chess960: bool = False  # a Chess960 game: castling as king-takes-rook, UCI_Chess960 on


class Chess960Openings:
    """The 960 Chess960 start positions (`--openings chess960`), numbered as usual (518 is
    the standard position)."""

    kind = "chess960"

    def __init__(self):
        self.path = "chess960"

    def __len__(self) -> int:
        return 960

    def get(self, index: int) -> Opening:
        import chess

        board = chess.Board.from_chess960_pos(index % 960)
        return Opening(index, board.fen(shredder=True), [], "Chess960 #%d" % (index % 960), True)


class OpeningBook:
    """Lazily parsed PGN or EPD opening file, plain or gzip-compressed (`.gz`)."""

    def __init__(self, path: str):
        import gzip

        self.path = path
        compressed = path.lower().endswith(".gz")
        plain = path[:-3] if compressed else path
        self.kind = "epd" if plain.lower().endswith((".epd", ".fen")) else "pgn"
        opener = gzip.open if compressed else open
        with opener(path, "rt", encoding="utf-8", errors="replace") as fh:
            text = fh.read().replace("\r\n", "\n")
        if self.kind == "epd":
            self.items = [ln.strip() for ln in text.split("\n") if ln.strip() and not ln.startswith("#")]
        else:
            chunks = re.split(r"\n\s*\n(?=\s*\[)", text)
            self.items = [c for c in chunks if c.strip()]
        if not self.items:
            raise SetupError("no openings found in %s" % path)

    def __len__(self) -> int:
        return len(self.items)

    def get(self, index: int) -> Opening:
        import chess
        import chess.pgn

        raw = self.items[index]
        if self.kind == "epd":
            board = chess.Board()
            parts = raw.split()
            name = ""
            try:
                if len(parts) >= 6 and parts[4].isdigit() and parts[5].isdigit():
                    board.set_fen(" ".join(parts[:6]))  # a full FEN line (move counters instead of opcodes)
                else:
                    ops = board.set_epd(raw)
                    name = str(ops.get("id", "")) if ops else ""
            except ValueError as err:
                raise SetupError("bad EPD/FEN line %d in %s: %s" % (index + 1, self.path, err))
            return Opening(index, board.fen(), [], name)
        game = chess.pgn.read_game(io.StringIO(raw))
        if game is None or game.errors:
            raise SetupError("bad PGN opening #%d in %s: %s" % (index + 1, self.path,
                                                              game.errors if game else "unparsable"))
        board = game.board()
        fen = None if board.fen() == chess.STARTING_FEN else board.fen()
        moves = list(game.mainline_moves())
        name = game.headers.get("Opening", "") or game.headers.get("ECO", "")
        return Opening(index, fen, moves, name)



# --------------------------------------------------------------------------
# Time control
# --------------------------------------------------------------------------


@dataclass
class TimeControl:
    moves: int  # moves per period (0 = whole game)
    base: float  # seconds
    inc: float  # seconds

    @staticmethod
    def parse(s: str) -> "TimeControl":
        m = re.fullmatch(r"(?:(\d+)/)?(\d+(?:\.\d*)?|\.\d+)(?:\+(\d+(?:\.\d*)?|\.\d+))?", s.strip())
        if not m:
            raise SetupError("bad --tc %r (want [MOVES/]SECONDS[+INC], e.g. 10+0.1)" % s)
        tc = TimeControl(int(m.group(1) or 0), float(m.group(2)), float(m.group(3) or 0.0))
        if tc.base <= 0:
            raise SetupError("--tc base time must be positive")
        return tc

    def pgn(self) -> str:
        def num(x: float) -> str:
            return ("%g" % x)
        s = num(self.base)
        if self.inc:
            s += "+" + num(self.inc)
        if self.moves:
            s = "%d/%s" % (self.moves, s)
        return s



# --------------------------------------------------------------------------
# Game play
# --------------------------------------------------------------------------

ERROR_KINDS = ("time forfeit", "illegal move", "crash", "stall")


@dataclass
class GameTask:
    number: int  # 1-based game number
    pair: int  # 0-based pair index
    opening_id: Optional[int]  # index into the book, None = start position
    engine1_white: bool
    opening: Optional[Opening] = None  # parsed when the game is handed out


@dataclass
class GameResult:
    task: GameTask
    result: str  # "1-0", "0-1", "1/2-1/2", "*"
    termination: str  # PGN Termination tag value
    reason: str  # human readable
    white: int  # engine index (0/1) playing white
    errors: Dict[int, str] = field(default_factory=dict)  # engine index -> error kind
    pgn: str = ""
    plies: int = 0
    aborted: bool = False

    def score1(self) -> float:
        """Points for engine 1 (index 0)."""
        if self.result == "1/2-1/2":
            return 0.5
        white_won = self.result == "1-0"
        return 1.0 if white_won == (self.white == 0) else 0.0


@dataclass
class Settings:
    tc: Optional[TimeControl]
    nodes: Optional[int]
    depth: Optional[int]
    movetime: Optional[float]  # seconds
    timemargin: float  # seconds
    stall_timeout: float  # seconds
    resign_score: int
    resign_moves: int
    draw_movenumber: int
    draw_moves: int
    draw_score: int
    maxplies: int
    event: str
    comments: bool
    ponder: bool = False


def _score_cp(info) -> Optional[int]:
    """White-POV centipawns from an info dict, or None."""
    sc = info.get("score") if info else None
    if sc is None:
        return None
    return sc.white().score(mate_score=MATE_SCORE)


async def play_game(task: GameTask, engines: List[EngineHandle], specs: List[EngineSpec], st: Settings,
                    tcs: str) -> GameResult:
    import chess
    import chess.engine
    import chess.pgn

    white = 0 if task.engine1_white else 1
    by_color = {chess.WHITE: white, chess.BLACK: 1 - white}
    board = chess.Board(task.opening.fen, chess960=task.opening.chess960) if task.opening.fen else chess.Board()
    for mv in task.opening.moves:
        board.push(mv)
    opening_fen = board.fen()
    book_plies = len(board.move_stack)
    comments: List[str] = []
    result, termination, reason = "*", "unterminated", ""
    errors: Dict[int, str] = {}

    game_id = object()
    ended = False
    for i, e in enumerate(engines):
        c = chess.WHITE if i == white else chess.BLACK
        try:
            await e.new_game(game_id, max(10.0, st.stall_timeout))
        except asyncio.TimeoutError:
            errors[i] = "stall"
            e.kill()
            result, termination = ("0-1" if c == chess.WHITE else "1-0"), "stall"
            reason = "%s (%s) stalls: no readyok after ucinewgame" % ("White" if c else "Black", specs[i].name)
            ended = True
            break
        except chess.engine.EngineTerminatedError as err:
            errors[i] = "crash"
            e.kill()
            result, termination = ("0-1" if c == chess.WHITE else "1-0"), "crash"
            reason = "%s (%s) crashed before the game: %s" % ("White" if c else "Black", specs[i].name, err)
            ended = True
            break

    clock = {chess.WHITE: st.tc.base if st.tc else 0.0, chess.BLACK: st.tc.base if st.tc else 0.0}
    moves_done = {chess.WHITE: 0, chess.BLACK: 0}
    # adjudication state: recent white-POV scores reported by each colour
    recent = {chess.WHITE: [], chess.BLACK: []}
    draw_run = 0
    info_sel = chess.engine.INFO_BASIC | chess.engine.INFO_SCORE
    color_name = {chess.WHITE: "White", chess.BLACK: "Black"}

    def finish(res: str, term: str, why: str) -> None:
        nonlocal result, termination, reason
        result, termination, reason = res, term, why

    def loss_for(color) -> str:
        return "0-1" if color == chess.WHITE else "1-0"

    while not ended:
        # --- game end by rules ---
        if board.is_checkmate():
            finish(loss_for(board.turn), "normal", "%s mates" % color_name[not board.turn])
            break
        if board.is_stalemate():
            finish("1/2-1/2", "normal", "stalemate")
            break
        if board.is_insufficient_material():
            finish("1/2-1/2", "normal", "insufficient material")
            break
        if board.halfmove_clock >= 100:
            finish("1/2-1/2", "normal", "fifty-move rule")
            break
        if board.is_repetition(3):
            finish("1/2-1/2", "normal", "threefold repetition")
            break
        if st.maxplies and board.ply() >= st.maxplies:
            finish("1/2-1/2", "adjudication", "maximum game length (%d plies)" % st.maxplies)
            break

        color = board.turn
        idx = by_color[color]
        eng = engines[idx]
        limit = chess.engine.Limit()
        deadline = None  # seconds the engine may use before a time forfeit
        if st.tc:
            limit.white_clock = max(clock[chess.WHITE], 0.001)
            limit.black_clock = max(clock[chess.BLACK], 0.001)
            limit.white_inc = st.tc.inc
            limit.black_inc = st.tc.inc
            if st.tc.moves:
                limit.remaining_moves = st.tc.moves - (moves_done[color] % st.tc.moves)
            deadline = clock[color]
        nodes = eng.spec.nodes or st.nodes  # an engine's own limit (node odds) first
        if nodes:
            limit.nodes = nodes
        if st.depth:
            limit.depth = st.depth
        if st.movetime:
            limit.time = st.movetime
        if deadline is not None:
            wait = deadline + st.timemargin + st.stall_timeout
            if st.movetime:
                wait = min(wait, st.movetime + st.stall_timeout)
        elif st.movetime:
            wait = st.movetime + st.stall_timeout
        else:
            wait = st.stall_timeout

        eng.reset_timer()
        t0 = time.perf_counter()
        try:
            res = await asyncio.wait_for(eng.protocol.play(board, limit, game=game_id, info=info_sel,
                                                                ponder=st.ponder), wait)
        except asyncio.TimeoutError:
            errors[idx] = "stall"
            eng.kill()
            finish(loss_for(color), "stall", "%s (%s) stalls: no move after %.1fs" % (
                color_name[color], specs[idx].name, time.perf_counter() - t0))
            break
        except chess.engine.EngineTerminatedError as err:
            errors[idx] = "crash"
            eng.kill()
            finish(loss_for(color), "crash", "%s (%s) crashed: %s" % (color_name[color], specs[idx].name, err))
            break
        except chess.engine.EngineError as err:
            errors[idx] = "illegal move"
            finish(loss_for(color), "illegal move", "%s (%s) makes an illegal move: %s" % (
                color_name[color], specs[idx].name, err))
            break
        elapsed = eng.move_time(time.perf_counter() - t0)
        mv = res.move
        if mv is None or not board.is_legal(mv):
            errors[idx] = "illegal move"
            finish(loss_for(color), "illegal move", "%s (%s) makes an illegal move: %s" % (
                color_name[color], specs[idx].name, mv.uci() if mv else "(none)"))
            break
        if deadline is not None and elapsed > deadline + st.timemargin:
            errors[idx] = "time forfeit"
            # FIDE 6.9: draw if the opponent cannot possibly checkmate.
            if board.has_insufficient_material(not color):
                finish("1/2-1/2", "time forfeit", "%s (%s) loses on time (%.4fs > %.4fs) but %s cannot mate" % (
                    color_name[color], specs[idx].name, elapsed, deadline, color_name[not color]))
            else:
                finish(loss_for(color), "time forfeit", "%s (%s) loses on time (%.4fs > %.4fs)" % (
                    color_name[color], specs[idx].name, elapsed, deadline))
            break
        if st.tc:
            clock[color] -= elapsed
            clock[color] += st.tc.inc
            moves_done[color] += 1
            if st.tc.moves and moves_done[color] % st.tc.moves == 0:
                clock[color] += st.tc.base
        cp = _score_cp(res.info)
        if st.comments:
            parts = []
            if cp is not None:
                sc = res.info["score"].pov(color)
                if sc.is_mate():
                    parts.append("%sM%d" % ("+" if sc.mate() > 0 else "-", abs(sc.mate())))
                else:
                    parts.append("%+.2f" % (sc.score() / 100.0))
            if "depth" in res.info:
                parts.append("%s%d" % ("/" if parts else "d", res.info["depth"]))
            comments.append(("".join(parts) + " %.3fs" % elapsed).strip())
        movenum = board.fullmove_number  # move number of the ply being played
        board.push(mv)

        # --- adjudication (on the engines' own reports) ---
        if cp is None:
            recent[color] = []
        else:
            recent[color] = (recent[color] + [cp])[-max(st.resign_moves, 1):]
        if st.resign_moves > 0 and st.resign_score > 0:
            k = st.resign_moves
            rw, rb = recent[chess.WHITE], recent[chess.BLACK]
            if len(rw) >= k and len(rb) >= k:
                if all(s >= st.resign_score for s in rw + rb):
                    finish("1-0", "adjudication", "resign adjudication: both engines score White >= %d cp for %d moves"
                           % (st.resign_score, k))
                    break
                if all(s <= -st.resign_score for s in rw + rb):
                    finish("0-1", "adjudication", "resign adjudication: both engines score Black >= %d cp for %d moves"
                           % (st.resign_score, k))
                    break
        if st.draw_moves > 0 and st.draw_movenumber >= 0:
            if cp is not None and abs(cp) <= st.draw_score and movenum > st.draw_movenumber:
                draw_run += 1
            else:
                draw_run = 0
            if draw_run >= st.draw_moves:
                finish("1/2-1/2", "adjudication", "draw adjudication: |score| <= %d cp for %d plies after move %d"
                       % (st.draw_score, st.draw_moves, st.draw_movenumber))
                break

    # --- PGN ---
    game = chess.pgn.Game()
    root_board = (chess.Board(task.opening.fen, chess960=task.opening.chess960)
                  if task.opening.fen else chess.Board())
    game.setup(root_board)
    h = game.headers
    h["Event"] = st.event
    h["Site"] = "?"
    h["Date"] = _dt.date.today().strftime("%Y.%m.%d")
    h["Round"] = str(task.number)
    h["White"] = specs[white].name
    h["Black"] = specs[1 - white].name
    h["Result"] = result
    h["TimeControl"] = tcs
    h["Termination"] = termination
    h["TerminationDetails"] = reason
    h["PlyCount"] = str(len(board.move_stack))
    if task.opening.index >= 0:
        h["OpeningIndex"] = str(task.opening.index + 1)
    h["OpeningFEN"] = opening_fen
    if task.opening.name:
        h["Opening"] = task.opening.name
    node = game
    for i, mv in enumerate(board.move_stack):
        node = node.add_variation(mv)
        if i == book_plies - 1:
            node.comment = "book"
        elif i >= book_plies and st.comments and i - book_plies < len(comments):
            node.comment = comments[i - book_plies]
    if node is game:
        game.comment = reason
    else:
        node.comment = (node.comment + ", " if node.comment else "") + reason
    exporter = chess.pgn.StringExporter(headers=True, variations=False, comments=True)
    pgn = game.accept(exporter)
    return GameResult(task=task, result=result, termination=termination, reason=reason, white=white,
                      errors=errors, pgn=pgn, plies=len(board.move_stack))

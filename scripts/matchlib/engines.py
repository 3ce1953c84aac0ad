"""Engines: the specifications on the command line (presets, Rookery builds, any UCI
binary with options) and a running engine (python-chess UCI protocol) with its failure
bookkeeping."""

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


SCRIPT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_ROOT = os.path.dirname(SCRIPT_DIR)
# Fishtest's balanced 8-move book, kept gzipped in the repository (openings/SOURCE.md).
DEFAULT_OPENINGS = os.path.join(REPO_ROOT, "openings", "8moves_v3.pgn.gz")
DEFAULT_ROOKERY = os.path.join(REPO_ROOT, "target", "release", "rookery")

# Debian package binaries (see scripts/install-opponents.sh).
PRESETS = {
    "stockfish": "/usr/games/stockfish",
    "toga2": "/usr/games/toga2",
    "glaurung": "/usr/games/glaurung",
    "ethereal": "/usr/games/ethereal-chess",
}
# Options applied to presets when the engine actually has them.
PRESET_OPTIONS = {"Threads": "1", "Hash": "16"}

MATE_SCORE = 100000  # centipawn value used for mate scores in adjudication


# --------------------------------------------------------------------------
# Engine specifications
# --------------------------------------------------------------------------


class SetupError(Exception):
    pass


@dataclass
class EngineSpec:
    spec: str
    cmd: List[str]
    name: str
    options: Dict[str, str] = field(default_factory=dict)
    soft_options: Dict[str, str] = field(default_factory=dict)  # only if the engine has them
    rating: Optional[float] = None
    is_rookery: bool = False
    nodes: Optional[int] = None  # this engine's node limit per move, overriding --nodes


def parse_engine_spec(spec: str) -> EngineSpec:
    """Parse 'KIND[,key=value...]' (see --help for the syntax)."""
    parts = [p for p in spec.split(",")]
    head, extra = parts[0].strip(), parts[1:]
    soft: Dict[str, str] = {}
    opts: Dict[str, str] = {}
    rating: Optional[float] = None
    is_rookery = False
    nodes: Optional[int] = None
    if head.startswith("cmd="):
        head = head[4:]
    kind, _, arg = head.partition(":")
    if kind == "stockfish" and "/" not in head:
        cmd = [PRESETS["stockfish"]]
        soft.update(PRESET_OPTIONS)
        if arg:
            try:
                elo = int(arg)
            except ValueError:
                raise SetupError("bad Stockfish Elo in %r" % spec)
            if not 1350 <= elo <= 2850:
                raise SetupError("Stockfish 15.1 UCI_Elo must be in 1350..2850, got %d" % elo)
            opts.update({"UCI_LimitStrength": "true", "UCI_Elo": str(elo)})
            name = "Stockfish-%d" % elo
            rating = float(elo)
        else:
            name = "Stockfish"
    elif kind in ("toga2", "glaurung", "ethereal") and not arg:
        cmd = [PRESETS[kind]]
        soft.update(PRESET_OPTIONS)
        name = {"toga2": "Toga2", "glaurung": "Glaurung", "ethereal": "Ethereal"}[kind]
    elif kind == "rookery":
        path = arg or DEFAULT_ROOKERY
        cmd = [path]
        is_rookery = True
        if not arg:
            name = "Rookery"
        else:  # e.g. rookery:/tmp/base/rookery -> "Rookery(base)"; set name=... for anything clearer
            base = os.path.basename(path)
            label = os.path.basename(os.path.dirname(os.path.abspath(path))) if base == "rookery" else base
            name = "Rookery(%s)" % label
    else:
        cmd = shlex.split(head)
        if not cmd:
            raise SetupError("empty engine spec %r" % spec)
        prog = cmd[0]
        if re.fullmatch(r"(python[0-9.]*|sh|bash|env|nice|taskset)", os.path.basename(prog)) and len(cmd) > 1:
            prog = next((c for c in cmd[1:] if not c.startswith("-")), cmd[1])
        name = os.path.basename(prog)
    for item in extra:
        item = item.strip()
        if not item:
            continue
        key, eq, value = item.partition("=")
        if not eq:
            raise SetupError("bad engine spec item %r in %r (want key=value)" % (item, spec))
        if key == "name":
            name = value
        elif key.startswith("option."):
            opts[key[len("option."):]] = value
        elif key == "arg":
            cmd.append(value)
        elif key == "rating":
            rating = float(value)
        elif key == "rookery":
            is_rookery = value.lower() in ("1", "true", "yes")
        elif key == "nodes":
            try:
                nodes = int(value)
            except ValueError:
                nodes = 0
            if nodes <= 0:
                raise SetupError("bad node limit %r in %r (want a positive integer)" % (value, spec))
        else:
            raise SetupError("unknown engine spec key %r in %r" % (key, spec))
    return EngineSpec(spec=spec, cmd=cmd, name=name, options=opts, soft_options=soft, rating=rating,
                      is_rookery=is_rookery, nodes=nodes)


def check_executable(es: EngineSpec) -> None:
    exe = es.cmd[0]
    path = exe if os.path.sep in exe else shutil.which(exe)
    if not path or not os.path.isfile(path):
        raise SetupError("engine binary not found: %s (spec %r)" % (exe, es.spec))
    if not os.access(path, os.X_OK):
        raise SetupError("engine binary not executable: %s (spec %r)" % (exe, es.spec))


def parse_option_list(items: Optional[List[str]]) -> Dict[str, str]:
    out: Dict[str, str] = {}
    for it in items or []:
        k, eq, v = it.partition("=")
        if not eq or not k:
            raise SetupError("bad UCI option %r (want NAME=VALUE)" % it)
        out[k] = v
    return out



class EngineHandle:
    """One running UCI engine process (async python-chess protocol)."""

    def __init__(self, spec: EngineSpec, options: Dict[str, str], stderr):
        self.spec = spec
        self.options = options
        self.stderr = stderr
        self.transport = None
        self.protocol = None

    async def start(self, timeout: float) -> None:
        import chess.engine

        kwargs = {}
        if self.stderr is not None:
            kwargs["stderr"] = self.stderr
        self.transport, self.protocol = await asyncio.wait_for(
            chess.engine.popen_uci(self.spec.cmd, setpgrp=True, **kwargs), timeout)
        self._instrument()
        cfg = {}
        for k, v in self.spec.soft_options.items():
            if k in self.protocol.options:
                cfg[k] = v
        for k, v in self.options.items():
            if k not in self.protocol.options:
                raise SetupError("%s: engine has no UCI option %r" % (self.spec.name, k))
            cfg[k] = v
        # Parse the strings to typed values ("false" -> False): python-chess keeps the raw
        # value as the target but the parsed one as sent, and a mismatch makes it treat
        # every move as an option change, which turns 'ponderhit' into 'stop' + 'go'.
        cfg = {k: self.protocol.options[k].parse(v) for k, v in cfg.items()}
        if cfg:
            await asyncio.wait_for(self.protocol.configure(cfg), timeout)
        await asyncio.wait_for(self.protocol.ping(), timeout)

    def _instrument(self) -> None:
        """Timestamp the 'go' line we write and the pipe read that carries 'bestmove'.

        The move time charged to the clock is then the time between those two
        events (what the engine itself can observe), excluding python-chess's
        own work before 'go' and after 'bestmove' (board copies, info parsing).
        If the hooks cannot be installed (python-chess internals changed) the
        caller falls back to the wall time of the whole play() call.
        """
        p = self.protocol
        self.t_go: Optional[float] = None
        self.go_ponders = 0  # 'go ponder' lines sent, and how many ended in 'ponderhit'
        self.ponderhits = 0
        self.t_best: Optional[float] = None
        self._t_recv: Optional[float] = None
        try:
            orig_pdr, orig_lr, orig_send = p.pipe_data_received, p._line_received, p.send_line
        except AttributeError:
            return

        def pipe_data_received(fd, data):
            self._t_recv = time.perf_counter()
            orig_pdr(fd, data)

        def line_received(line):
            if line.startswith("bestmove"):
                self.t_best = self._t_recv
            orig_lr(line)

        def send_line(line):
            orig_send(line)
            # Our clock starts at 'go', or at 'ponderhit' when the engine was pondering
            # on the move the opponent played; 'go ponder' thinks on the opponent's time.
            if line.startswith("go") and "ponder" in line.split():
                self.go_ponders += 1
            elif line.startswith("go") or line == "ponderhit":
                self.t_go = time.perf_counter()
                self.ponderhits += line == "ponderhit"

        p.pipe_data_received = pipe_data_received
        p._line_received = line_received
        p.send_line = send_line

    def reset_timer(self) -> None:
        self.t_go = self.t_best = None

    def move_time(self, fallback: float) -> float:
        """Seconds from 'go' to 'bestmove' of the last play(), else fallback."""
        if self.t_go is not None and self.t_best is not None and self.t_best >= self.t_go:
            return self.t_best - self.t_go
        return fallback

    @property
    def alive(self) -> bool:
        return self.protocol is not None and not self.protocol.returncode.done()

    async def new_game(self, game_id: object, timeout: float) -> None:
        """Send ucinewgame + isready before the clock starts (not charged)."""
        p = self.protocol
        # A ping first ends a ponder search left over from the last game (python-chess
        # sends 'stop' and waits for its bestmove before starting a new command).
        await asyncio.wait_for(p.ping(), timeout)
        if hasattr(p, "_ucinewgame") and hasattr(p, "game"):
            p._ucinewgame()
            p.game = game_id
        await asyncio.wait_for(p.ping(), timeout)

    def kill(self) -> None:
        try:
            if self.transport is not None:
                self.transport.kill()
        except (ProcessLookupError, OSError):
            pass
        self.protocol = None
        self.transport = None

    async def close(self) -> None:
        if self.protocol is None:
            return
        try:
            await asyncio.wait_for(self.protocol.quit(), 2.0)
        except Exception:
            pass
        self.kill()

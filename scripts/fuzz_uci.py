#!/usr/bin/env python3
"""Protocol fuzzer: throws valid, mutated and garbage UCI lines at a Rookery binary.

Lines go out in batches of two kinds, alternating:

* chaos batches mix valid commands (every option with good and bad values, positions
  from random legal games and their FENs, `go` of every kind with tiny limits,
  `stop`/`ponderhit`/`isready` at random moments) with mutations of them (characters
  deleted, inserted, replaced, tokens swapped, duplicated or cut, numbers made huge or
  negative) and garbage (random bytes, invalid UTF-8, NULs, carriage returns, lines of up
  to 200,000 characters);
* strict batches hold only valid commands, so every `go` must end with exactly one
  `bestmove`, and that move must be legal in the position the batch set; they alternate
  between the two search modes (`SearchMode alphabeta` and `mcts`).

After every batch `isready` must get `readyok` within the deadline (else: a hang), and
the process must still be running (else: a crash, with the lines that led to it). A
panic message on stderr counts as a crash too. The engine is restarted after a failure
and the run goes on; the exit status is non-zero if anything failed.

    scripts/fuzz_uci.py target/release/rookery --lines 1000000 --seed 1
    scripts/fuzz_uci.py target/debug/rookery --lines 20000          # the CI run

Needs python-chess (`pip install chess`).
"""

from __future__ import annotations

import argparse
import json
import queue
import random
import subprocess
import sys
import threading
import time

import chess

OPTIONS = [
    # (name, good values, bad values)
    ("Hash", ["1", "4", "16", "32"], ["0", "-5", "16385", "abc", "", "99999999999999999999"]),
    ("Threads", ["1", "2", "3"], ["0", "-1", "257", "two", ""]),
    ("Move Overhead", ["0", "30", "100"], ["-1", "5001", "x"]),
    ("MultiPV", ["1", "2", "3"], ["0", "257", "many"]),
    ("Ponder", ["true", "false"], ["maybe", "1", ""]),
    ("UCI_Chess960", ["true", "false"], ["yes", "2"]),
    ("UCI_ShowWDL", ["true", "false"], ["on"]),
    ("SyzygyPath", ["<empty>", "/nonexistent/tb"], ["\x01\x02", "/" * 300]),
    ("EvalFile", ["<default>"], ["<pst>", "/nonexistent.safetensors", "README.md", "/dev/null", "."]),
    ("OwnBook", ["true", "false"], ["perhaps"]),
    ("BookFile", ["<empty>"], ["/nonexistent.bin", "README.md", "/dev/null"]),
    ("BookDepth", ["0", "8", "20"], ["-3", "401", "deep"]),
    ("BookTemperature", ["0", "75", "200"], ["-1", "0.75", "nan", "1001", "warm"]),
    ("SearchMode", ["alphabeta", "mcts", "MCTS"], ["", "minimax", "1"]),
    ("Clear Hash", [None], []),
    ("No Such Option", [], ["1"]),
]

GO_VALID = [
    "go depth 1", "go depth 2", "go depth 3", "go nodes 1", "go nodes 50", "go nodes 800",
    "go movetime 1", "go movetime 3", "go wtime 40 btime 40", "go wtime 200 btime 150 winc 5 binc 5",
    "go btime 30 wtime 30 movestogo 1", "go mate 1", "go depth 2 searchmoves {m1} {m2}",
    "go infinite", "go ponder wtime 100 btime 100", "go nodes 300 searchmoves {m1}",
]


class Failure(Exception):
    pass


class EngineProc:
    """The engine under test with a reader thread for its stdout and one for stderr."""

    def __init__(self, path: str):
        self.proc = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, bufsize=0)
        self.out: "queue.Queue[str]" = queue.Queue()
        self.err: list[str] = []
        threading.Thread(target=self._read, args=(self.proc.stdout, self.out.put), daemon=True).start()
        threading.Thread(target=self._read, args=(self.proc.stderr, self.err.append), daemon=True).start()

    @staticmethod
    def _read(stream, sink):
        for raw in iter(stream.readline, b""):
            sink(raw.decode("utf-8", "replace").rstrip("\r\n"))

    def send(self, data: bytes):
        try:
            self.proc.stdin.write(data)
        except (BrokenPipeError, OSError) as err:
            raise Failure("crash: stdin closed (%s), exit code %s" % (err, self.proc.poll()))

    def alive(self) -> bool:
        return self.proc.poll() is None

    def drain(self) -> list[str]:
        lines = []
        while True:
            try:
                lines.append(self.out.get_nowait())
            except queue.Empty:
                return lines

    def read_until(self, done, timeout: float, what: str) -> list[str]:
        """Lines up to and including the first for which `done(line)` holds; a hang or a
        crash before it is a Failure."""
        got = []
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Failure("hang: no %s within %.0f s" % (what, timeout))
            try:
                line = self.out.get(timeout=min(left, 0.5))
            except queue.Empty:
                if not self.alive():
                    raise Failure("crash: exit code %s" % self.proc.poll())
                continue
            got.append(line)
            if done(line):
                return got

    def wait_for(self, prefix: str, timeout: float) -> list[str]:
        """Lines up to and including the first starting with `prefix`."""
        return self.read_until(lambda line: line.startswith(prefix), timeout, "'%s'" % prefix)

    def sync(self, n: int, timeout: float) -> list[str]:
        """`isready` plus a unique unknown command: its error line marks the point where
        everything sent before has been handled. Returns the lines up to it, which must
        include a `readyok`."""
        token = "fuzzsync%d" % n
        self.send(("isready\n%s\n" % token).encode())
        got = self.read_until(lambda line: token in line, timeout, "answer to isready")
        if "readyok" not in got:
            raise Failure("no readyok before the sync marker")
        return got

    def close(self):
        try:
            self.proc.stdin.write(b"quit\n")
            self.proc.wait(timeout=5)
        except Exception:  # noqa: BLE001
            self.proc.kill()


class Generator:
    def __init__(self, rng: random.Random):
        self.rng = rng

    def random_game(self, chess960: bool = False):
        """A start FEN (None = startpos) and a list of legal UCI moves."""
        rng = self.rng
        if chess960:
            board = chess.Board.from_chess960_pos(rng.randrange(960))
        else:
            board = chess.Board()
        start = None if not chess960 else board.fen()
        moves = []
        for _ in range(rng.randrange(0, 60)):
            legal = list(board.legal_moves)
            if not legal:
                break
            mv = rng.choice(legal)
            moves.append(board.uci(mv, chess960=chess960))
            board.push(mv)
        return start, moves, board

    def position_line(self):
        """A valid `position` line and the board it sets, from a pool of random games
        (made once: python-chess is slow to play games out, the engine is not)."""
        if not hasattr(self, "pool"):
            self.pool = [self.new_position_line() for _ in range(3000)]
        return self.rng.choice(self.pool)

    def new_position_line(self):
        """A valid `position` line and the board it sets (chess960 flag needed to read moves)."""
        rng = self.rng
        chess960 = rng.random() < 0.1
        start, moves, board = self.random_game(chess960)
        if rng.random() < 0.4 and moves:
            # the final position as a FEN, perhaps with a few of the moves after it
            cut = rng.randrange(len(moves) + 1)
            replay = chess.Board(start, chess960=chess960) if start else chess.Board(chess960=chess960)
            for m in moves[:cut]:
                replay.push(chess.Move.from_uci(m) if not chess960 else replay.parse_uci(m))
            fen = replay.fen()
            rest = moves[cut:]
            line = "position fen " + fen + ((" moves " + " ".join(rest)) if rest else "")
        elif start:
            line = "position fen " + start + ((" moves " + " ".join(moves)) if moves else "")
        else:
            line = "position startpos" + ((" moves " + " ".join(moves)) if moves else "")
        return line, board, chess960

    def setoption_line(self, good: bool):
        name, goods, bads = self.rng.choice(OPTIONS)
        pool = goods if (good and goods) else (bads or goods)
        if not pool:
            return "setoption name %s" % name
        value = self.rng.choice(pool)
        if value is None:
            return "setoption name %s" % name
        return "setoption name %s value %s" % (name, value)

    def go_line(self, board: chess.Board | None, chess960: bool):
        template = self.rng.choice(GO_VALID)
        if "{m1}" in template:
            legal = list(board.legal_moves) if board is not None else []
            if len(legal) < 2:
                return "go depth 1"
            m1, m2 = self.rng.sample(legal, 2)
            template = template.replace("{m1}", board.uci(m1, chess960=chess960)).replace(
                "{m2}", board.uci(m2, chess960=chess960))
        return template

    def mutate(self, line: str) -> bytes:
        rng = self.rng
        data = bytearray(line.encode())
        for _ in range(rng.randrange(1, 4)):
            kind = rng.randrange(8)
            if kind == 0 and data:  # delete a character
                del data[rng.randrange(len(data))]
            elif kind == 1:  # insert a printable or odd byte
                data.insert(rng.randrange(len(data) + 1), rng.choice(b" -0123456789/abcxyzKQkq\t\x00\xff"))
            elif kind == 2 and data:  # replace a character
                data[rng.randrange(len(data))] = rng.randrange(1, 256)
            elif kind == 3:  # swap two tokens
                toks = data.split(b" ")
                if len(toks) > 2:
                    i, j = rng.randrange(len(toks)), rng.randrange(len(toks))
                    toks[i], toks[j] = toks[j], toks[i]
                    data = bytearray(b" ".join(toks))
            elif kind == 4:  # duplicate a token
                toks = data.split(b" ")
                i = rng.randrange(len(toks))
                toks.insert(i, toks[i])
                data = bytearray(b" ".join(toks))
            elif kind == 5 and data:  # cut the line short
                data = data[: rng.randrange(len(data))]
            elif kind == 6:  # make a number huge or negative
                toks = data.split(b" ")
                nums = [i for i, t in enumerate(toks) if t.isdigit()]
                if nums:
                    toks[rng.choice(nums)] = rng.choice([b"-1", b"0", b"99999999999999999999", b"4294967296",
                                                         b"-9223372036854775808", b"1e9"])
                    data = bytearray(b" ".join(toks))
            else:  # extra whitespace
                data = bytearray(b"  \t" + bytes(data) + b" \r")
        # Never let a mutation ask for a huge table or quit the engine.
        low = bytes(data).lower()
        if b"hash" in low or b"quit" in low:
            return b"isready"
        return bytes(data).replace(b"\n", b" ")

    def garbage(self) -> bytes:
        rng = self.rng
        kind = rng.randrange(5)
        if kind == 0:
            n = rng.randrange(1, 200)
            data = bytes(rng.randrange(256) for _ in range(n))
        elif kind == 1:
            data = b"\xc3\x28\xa0\xa1\xe2\x28\xa1\xf0\x28\x8c\xbc" * rng.randrange(1, 5)  # invalid UTF-8
        elif kind == 2:
            word = rng.choice([b"position ", b"go ", b"setoption name ", b"x", b"moves e2e4 "])
            data = word * rng.randrange(1000, 200_000 // max(1, len(word)))
        elif kind == 3:
            data = rng.choice([b"", b" ", b"\t\t", b"\r", b"\x00\x00", b"uci uci", b"go go go", b"position",
                               b"position fen", b"position startpos moves", b"setoption", b"setoption name",
                               b"register later", b"debug on", b"debug off", b"ucinewgame"])
        else:
            data = "".join(rng.choice("abcdefgh12345678 /-KQRBNPkqrbnp") for _ in range(rng.randrange(80))).encode()
        low = data.lower()
        if b"hash" in low or b"quit" in low:
            return b"isready"
        return data.replace(b"\n", b" ")


def check_bestmove(line: str, board: chess.Board, chess960: bool) -> str | None:
    parts = line.split()
    if len(parts) < 2 or parts[0] != "bestmove":
        return "malformed bestmove line %r" % line
    text = parts[1]
    for flag in (chess960, not chess960):
        b = board.copy()
        b.chess960 = flag
        try:
            mv = b.parse_uci(text)
        except ValueError:
            continue
        if mv in board.legal_moves or b.is_legal(mv):
            return None
    if text in ("0000", "(none)") and not any(board.legal_moves):
        return None
    return "illegal bestmove %s in %s" % (text, board.fen())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("engine", help="path to the rookery binary")
    ap.add_argument("--lines", type=int, default=100_000, help="lines to send (default 100,000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch", type=int, default=400, help="lines per batch (default 400)")
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds to wait for readyok (default 20)")
    ap.add_argument("--json", help="append a one-line JSON summary to this file")
    args = ap.parse_args()

    rng = random.Random(args.seed)
    gen = Generator(rng)
    stats = {"lines": 0, "valid": 0, "mutated": 0, "garbage": 0, "gos": 0, "strict_gos": 0,
             "bestmoves_checked": 0, "batches": 0, "readyok": 0, "failures": 0, "restarts": 0}
    failures: list[str] = []
    engine = EngineProc(args.engine)
    engine.send(b"uci\n")
    engine.wait_for("uciok", args.timeout)
    start = time.monotonic()
    last_report = start
    strict = False
    sync_no = 0
    history: list[bytes] = []  # the lines of the current batch, for failure reports

    while stats["lines"] < args.lines:
        strict = not strict
        history = []
        expected: list[tuple[chess.Board, bool]] = []  # (board, chess960) per strict go
        board, chess960 = None, False
        try:
            if strict:
                # Settle whatever the chaos batch left running, then only valid commands,
                # in each search mode in turn.
                mode = "mcts" if stats["batches"] % 4 < 2 else "alphabeta"
                engine.send(("stop\nsetoption name UCI_Chess960 value false\n"
                             "setoption name SearchMode value %s\n" % mode).encode())
                sync_no += 1
                engine.sync(sync_no, args.timeout)
            n = rng.randrange(args.batch // 2, args.batch + 1)
            for _ in range(n):
                roll = rng.random()
                if strict or roll < 0.55:
                    r = rng.random()
                    if board is None or r < 0.25:
                        text, board, chess960 = gen.position_line()
                        if strict:
                            data = ("setoption name UCI_Chess960 value %s\n" % ("true" if chess960 else "false")).encode()
                            engine.send(data)
                            history.append(data)
                            stats["lines"] += 1
                    elif r < 0.55:
                        text = gen.go_line(board, chess960)
                        stats["gos"] += 1
                        if strict:
                            stats["strict_gos"] += 1
                            expected.append((board, chess960))
                    elif r < 0.75:
                        text = rng.choice(["stop", "ponderhit", "isready", "isready", "ucinewgame", "uci", "d", "eval"])
                        if strict and text in ("ucinewgame",):
                            board = None  # back to the start position; set a new one before the next go
                            text = "isready"
                    else:
                        text = gen.setoption_line(good=True)
                        if strict and ("UCI_Chess960" in text or "EvalFile" in text or "Threads" in text):
                            text = "isready"
                    data = text.encode()
                    stats["valid"] += 1
                elif roll < 0.85:
                    base = rng.choice([gen.position_line()[0], gen.go_line(None, False), gen.setoption_line(True),
                                       "stop", "ponderhit", "isready", "uci", "ucinewgame"])
                    data = gen.mutate(base)
                    stats["mutated"] += 1
                else:
                    data = gen.garbage()
                    stats["garbage"] += 1
                engine.send(data + b"\n")
                history.append(data[:300] + (b"..." if len(data) > 300 else b""))
                stats["lines"] += 1
            if strict:
                # Ends `go infinite`, `go ponder` and `go mate` searches that are still running.
                engine.send(b"stop\n")
            sync_no += 1
            got = engine.sync(sync_no, args.timeout)
            stats["readyok"] += 1
            if strict:
                best = [l for l in got if l.startswith("bestmove")]
                if len(best) != len(expected):
                    raise Failure("%d go commands but %d bestmove lines" % (len(expected), len(best)))
                for line, (b, c960) in zip(best, expected):
                    problem = check_bestmove(line, b, c960)
                    if problem:
                        raise Failure(problem)
                    stats["bestmoves_checked"] += 1
            if any("panicked" in l for l in engine.err):
                raise Failure("panic: " + next(l for l in engine.err if "panicked" in l))
            stats["batches"] += 1
        except Failure as err:
            stats["failures"] += 1
            report = "%s (batch %d, %s)\n  last lines sent:\n%s" % (
                err, stats["batches"], "strict" if strict else "chaos",
                "\n".join("    " + repr(h) for h in history[-15:]))
            failures.append(report)
            print("FAIL " + report, flush=True)
            try:
                engine.proc.kill()
            except Exception:  # noqa: BLE001
                pass
            engine = EngineProc(args.engine)
            engine.send(b"uci\n")
            engine.wait_for("uciok", args.timeout)
            stats["restarts"] += 1
        now = time.monotonic()
        if now - last_report > 5 or stats["lines"] >= args.lines:
            rate = stats["lines"] / max(now - start, 1e-9)
            print("\r%9d/%d lines  %6.0f lines/s  %d gos (%d strict, %d bestmoves checked)  failures %d" % (
                stats["lines"], args.lines, rate, stats["gos"], stats["strict_gos"],
                stats["bestmoves_checked"], stats["failures"]), end="", flush=True)
            last_report = now
    engine.close()
    elapsed = time.monotonic() - start
    print()
    stats["seconds"] = round(elapsed, 1)
    stats["seed"] = args.seed
    print("fuzz: %(lines)d lines (%(valid)d valid, %(mutated)d mutated, %(garbage)d garbage), "
          "%(gos)d go (%(strict_gos)d strict, %(bestmoves_checked)d bestmoves checked legal), "
          "%(batches)d batches each answered readyok, failures %(failures)d, %(seconds)s s" % stats)
    if args.json:
        with open(args.json, "a") as f:
            f.write(json.dumps(stats) + "\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

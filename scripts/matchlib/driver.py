"""The match driver: hands out games to worker threads, gathers results (W-D-L,
pentanomial pairs, per-engine error counts), checks the SPRT as games finish, and prints
the summary."""

from __future__ import annotations

import datetime as _dt
import math
import random
import sys
import threading
import time
from typing import Dict, List, Optional

from .engines import *  # noqa: F401,F403
from .game import *  # noqa: F401,F403
from .stats import *  # noqa: F401,F403


class Match:
    def __init__(self, args, specs: List[EngineSpec], engine_opts: List[Dict[str, str]], book: Optional[OpeningBook],
                 settings: Settings):
        self.args = args
        self.specs = specs
        self.engine_opts = engine_opts
        self.book = book
        self.st = settings
        self.tcs = self._tc_string()
        self.lock = threading.Lock()
        self.tasks: List[GameTask] = []
        self.next_task = 0
        self.results: List[GameResult] = []
        self.pair_scores: Dict[int, List[float]] = {}
        self.penta = [0, 0, 0, 0, 0]
        self.wdl = [0, 0, 0]
        self.errors = [{k: 0 for k in ERROR_KINDS}, {k: 0 for k in ERROR_KINDS}]
        self.adjudicated = 0
        self.ponder_counts = [[0, 0], [0, 0]]  # per engine: go ponder sent, ponderhits
        self.stop = threading.Event()
        self.sprt_decision: Optional[str] = None
        self.sprt_at: Optional[int] = None
        self.pgn_fh = open(args.pgn, "a", encoding="utf-8") if args.pgn else None
        self.stderr = None
        if args.engine_stderr == "discard":
            self.stderr = asyncio.subprocess.DEVNULL
        self.worker_loops: List[Tuple[asyncio.AbstractEventLoop, asyncio.Task]] = []
        self.start_time = time.time()
        self.interrupted = False

    def _tc_string(self) -> str:
        parts = []
        if self.st.tc:
            parts.append(self.st.tc.pgn())
        if self.st.movetime:
            parts.append("%g/move" % self.st.movetime)
        if self.st.nodes:
            parts.append("nodes=%d" % self.st.nodes)
        for es in self.specs:
            if es.nodes:
                parts.append("%s:nodes=%d" % (es.name, es.nodes))
        if self.st.depth:
            parts.append("depth=%d" % self.st.depth)
        return " ".join(parts) if parts else "-"

    def build_tasks(self, total_games: int) -> None:
        pairs = total_games // 2
        if self.book is None:
            opening_ids: List[Optional[int]] = [None] * pairs
        else:
            n = len(self.book)
            start = (self.args.start - 1) % n
            if self.args.shuffle:
                order = list(range(n))
                random.Random(self.args.seed).shuffle(order)
            else:
                order = None
            opening_ids = []
            for p in range(pairs):
                k = (start + p) % n
                opening_ids.append(order[k] if order else k)
        for p, oid in enumerate(opening_ids):
            for g in range(2):
                self.tasks.append(GameTask(number=2 * p + g + 1, pair=p, opening_id=oid, engine1_white=(g == 0)))
        if self.tasks and self.book is not None:
            self.book.get(self.tasks[0].opening_id)  # fail early (exit 2) on an unparsable book

    def take_task(self) -> Optional[GameTask]:
        with self.lock:
            if self.stop.is_set() or self.next_task >= len(self.tasks):
                return None
            t = self.tasks[self.next_task]
            self.next_task += 1
            if t.opening_id is None or self.book is None:
                t.opening = Opening(-1, None, [], "")
            else:
                t.opening = self.book.get(t.opening_id)
            return t

    # ---- result bookkeeping ----
    def record(self, gr: GameResult) -> None:
        with self.lock:
            self.results.append(gr)
            s = gr.score1()
            if s == 1.0:
                self.wdl[0] += 1
            elif s == 0.5:
                self.wdl[1] += 1
            else:
                self.wdl[2] += 1
            for idx, kind in gr.errors.items():
                self.errors[idx][kind] += 1
            if gr.termination == "adjudication":
                self.adjudicated += 1
            ps = self.pair_scores.setdefault(gr.task.pair, [])
            ps.append(s)
            if len(ps) == 2:
                self.penta[int(round(2 * sum(ps)))] += 1
            if self.pgn_fh and gr.pgn:
                self.pgn_fh.write(gr.pgn + "\n\n")
                self.pgn_fh.flush()
            line = self.progress_line(gr)
            print(line, flush=True)
            if self.args.sprt and self.sprt_decision is None:
                llr = self.llr()
                lo, hi = sprt_bounds(self.args.alpha, self.args.beta)
                if llr >= hi:
                    self.sprt_decision = "H1 accepted (elo >= %g likely)" % self.args.sprt[1]
                elif llr <= lo:
                    self.sprt_decision = "H0 accepted (elo <= %g likely)" % self.args.sprt[0]
                if self.sprt_decision:
                    self.sprt_at = len(self.results)
                    print("SPRT: %s after %d games (LLR %.2f, bounds [%.2f, %.2f]); stopping"
                          % (self.sprt_decision, self.sprt_at, llr, lo, hi), flush=True)
                    self.stop.set()

    def llr(self) -> float:
        """The SPRT's LLR over this run's pairs plus --sprt-prior's (a resumed test)."""
        e0, e1 = self.args.sprt
        prior = self.args.sprt_prior or [0] * 5
        counts = [a + b for a, b in zip(self.penta, prior)]
        return llr_pentanomial(counts, e0, e1, exact=not self.args.sprt_normal)

    def progress_line(self, gr: GameResult) -> str:
        w, d, l = self.wdl
        n = w + d + l
        names = (self.specs[gr.white].name, self.specs[1 - gr.white].name)
        tri = trinomial_stats(w, d, l)
        s = "[%d/%d] game %d: %s vs %s: %s {%s}  | %s: %d-%d-%d (%.1f%%) Elo %s" % (
            n, len(self.tasks), gr.task.number, names[0], names[1], gr.result, gr.reason,
            self.specs[0].name, w, d, l, 100.0 * (w + d / 2.0) / n, fmt_elo(tri["elo"]))
        if self.args.sprt:
            lo, hi = sprt_bounds(self.args.alpha, self.args.beta)
            s += "  LLR %.2f [%.2f, %.2f]" % (self.llr(), lo, hi)
        return s

    # ---- workers ----
    async def worker(self, wid: int) -> None:
        engines: List[Optional[EngineHandle]] = [None, None]
        startup_timeout = max(30.0, self.st.stall_timeout)
        try:
            while True:
                task = self.take_task()
                if task is None:
                    break
                gr = None
                for i in range(2):
                    if engines[i] is None or not engines[i].alive:
                        if engines[i] is not None:
                            engines[i].kill()
                        engines[i] = EngineHandle(self.specs[i], self.engine_opts[i], self.stderr)
                        try:
                            await engines[i].start(startup_timeout)
                        except Exception as err:  # engine failed to (re)start: lose the game as a crash
                            engines[i].kill()
                            engines[i] = None
                            white = 0 if task.engine1_white else 1
                            res = "0-1" if i == white else "1-0"
                            gr = GameResult(task=task, result=res, termination="crash",
                                            reason="%s failed to start: %r" % (self.specs[i].name, err),
                                            white=white, errors={i: "crash"})
                            break
                if gr is None:
                    try:
                        gr = await play_game(task, engines, self.specs, self.st, self.tcs)  # type: ignore[arg-type]
                    except Exception as err:  # e.g. crash during ucinewgame/isready
                        import chess.engine
                        white = 0 if task.engine1_white else 1
                        culprit = None
                        for i in range(2):
                            if engines[i] is None or not engines[i].alive:
                                culprit = i
                        if culprit is None:
                            raise
                        kind = "crash" if isinstance(err, chess.engine.EngineTerminatedError) else "stall"
                        engines[culprit].kill()  # type: ignore[union-attr]
                        gr = GameResult(task=task, result="0-1" if culprit == white else "1-0", termination=kind,
                                        reason="%s: %s before the game (%r)" % (self.specs[culprit].name, kind, err),
                                        white=white, errors={culprit: kind})
                for i in range(2):
                    if engines[i] is not None:
                        with self.lock:
                            self.ponder_counts[i][0] += engines[i].go_ponders
                            self.ponder_counts[i][1] += engines[i].ponderhits
                        engines[i].go_ponders = engines[i].ponderhits = 0
                    if engines[i] is not None and not engines[i].alive:
                        engines[i].kill()
                        engines[i] = None
                self.record(gr)
        finally:
            for e in engines:
                if e is not None:
                    await e.close()

    def _thread_main(self, wid: int) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        task = loop.create_task(self.worker(wid))
        with self.lock:
            self.worker_loops.append((loop, task))
        try:
            loop.run_until_complete(task)
        except asyncio.CancelledError:
            pass
        except Exception as err:
            print("worker %d failed: %r" % (wid, err), file=sys.stderr, flush=True)
            self.stop.set()
        finally:
            loop.close()

    def run(self) -> None:
        # Each worker thread runs its own event loop. A thread whose engine just sent 'bestmove'
        # may have to wait for the GIL while another thread parses info lines; Python's default
        # switch interval (5 ms) would add that wait to the engine's clock. 0.5 ms keeps it small.
        sys.setswitchinterval(0.0005)
        n = min(self.args.concurrency, len(self.tasks))
        threads = [threading.Thread(target=self._thread_main, args=(i,), daemon=True) for i in range(n)]
        for t in threads:
            t.start()
        try:
            while any(t.is_alive() for t in threads):
                for t in threads:
                    t.join(0.2)
        except KeyboardInterrupt:
            print("\ninterrupted: stopping (games in progress are discarded)", file=sys.stderr, flush=True)
            self.interrupted = True
            self.stop.set()
            with self.lock:
                loops = list(self.worker_loops)
            for loop, task in loops:
                try:
                    loop.call_soon_threadsafe(task.cancel)
                except RuntimeError:
                    pass
            for t in threads:
                t.join(10)
        if self.pgn_fh:
            self.pgn_fh.close()

    # ---- summary ----
    def summary(self) -> Dict:
        w, d, l = self.wdl
        n = w + d + l
        tri = trinomial_stats(w, d, l)
        pen = pentanomial_stats(self.penta)
        out = {
            "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "engine1": self.specs[0].name, "engine2": self.specs[1].name,
            "spec1": self.specs[0].spec, "spec2": self.specs[1].spec,
            "rating1": self.specs[0].rating, "rating2": self.specs[1].rating,
            "tc": self.tcs, "openings": self.args.openings if self.book else None,
            "games": n, "wins": w, "draws": d, "losses": l,
            "points": w + d / 2.0, "score": (w + d / 2.0) / n if n else None,
            "penta": list(self.penta),
            "elo_tri": tri["elo"], "err_tri": tri["err"],
            "elo_penta": pen["elo"], "err_penta": pen["err"],
            "los": los(w, l),
            "errors1": self.errors[0], "errors2": self.errors[1],
            "adjudicated": self.adjudicated,
            "elapsed_s": round(time.time() - self.start_time, 1),
        }
        if self.st.ponder:
            out["ponder1"], out["ponder2"] = ({"go_ponder": c[0], "ponderhit": c[1]} for c in self.ponder_counts)
        if self.args.sprt:
            lo, hi = sprt_bounds(self.args.alpha, self.args.beta)
            out["sprt"] = {"elo0": self.args.sprt[0], "elo1": self.args.sprt[1], "alpha": self.args.alpha,
                           "beta": self.args.beta, "llr": self.llr(), "lower": lo, "upper": hi,
                           "decision": self.sprt_decision or "none (max games reached / stopped)",
                           "decided_after": self.sprt_at}
            if self.args.sprt_prior:
                out["sprt"]["prior_penta"] = list(self.args.sprt_prior)
        return out

    def print_summary(self, s: Dict) -> None:
        print("")
        print("=" * 72)
        print("%s vs %s   tc %s   %d games" % (s["engine1"], s["engine2"], s["tc"], s["games"]))
        if not s["games"]:
            print("no games finished")
            return
        print("Score of %s: W-D-L %d-%d-%d  [%.1f%%]  points %.1f/%d"
              % (s["engine1"], s["wins"], s["draws"], s["losses"], 100 * s["score"], s["points"], s["games"]))
        print("Elo difference (pentanomial, %d pairs): %s +/- %s"
              % (sum(s["penta"]), fmt_elo(s["elo_penta"]), "%.1f" % s["err_penta"] if not math.isnan(s["err_penta"]) else "nan"))
        print("Elo difference (trinomial, per game):  %s +/- %s"
              % (fmt_elo(s["elo_tri"]), "%.1f" % s["err_tri"] if not math.isnan(s["err_tri"]) else "nan"))
        print("Pentanomial [0, 0.5, 1, 1.5, 2]: %s   LOS %.1f%%   adjudicated %d"
              % (s["penta"], 100 * s["los"], s["adjudicated"]))
        for i, key in ((0, "errors1"), (1, "errors2")):
            e = s[key]
            print("%-24s time forfeits %d, illegal moves %d, crashes %d, stalls %d"
                  % (self.specs[i].name + ":", e["time forfeit"], e["illegal move"], e["crash"], e["stall"]))
        if self.st.ponder:
            for i in range(2):
                sent, hits = self.ponder_counts[i]
                print("%-24s go ponder %d, ponderhit %d (%.0f%%)"
                      % (self.specs[i].name + ":", sent, hits, 100.0 * hits / sent if sent else 0.0))
        if "sprt" in s:
            sp = s["sprt"]
            print("SPRT elo0=%g elo1=%g alpha=%g beta=%g: LLR %.2f [%.2f, %.2f] -> %s"
                  % (sp["elo0"], sp["elo1"], sp["alpha"], sp["beta"], sp["llr"], sp["lower"], sp["upper"],
                     sp["decision"]))

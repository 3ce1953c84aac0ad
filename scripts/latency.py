#!/usr/bin/env python3
"""Latency and load: how fast Rookery answers during a search, and whether resizing the
table and the thread pool leaks.

1. `isready` -> `readyok` while a `go infinite` search runs, and `stop` -> `bestmove`,
   SAMPLES times each, with 1 and 2 threads and a 1 GB hash (p50/p99/max in ms).
2. `setoption name Hash` and `Threads` changed between short searches CHURN times; the
   resident set size (RSS, from /proc) is sampled along the way, each time after going
   back to Hash 16 and 1 thread: it must stay flat.

    scripts/latency.py target/release/rookery [--samples 1000] [--churn 2000] [--json FILE]

Exit status 1 if p99 of either latency is 5 ms or more, or RSS grows by more than 20 %
between the first and last quarter of the churn (after warm-up).
"""

from __future__ import annotations

import argparse
import json
import queue
import subprocess
import sys
import threading
import time


class Engine:
    def __init__(self, path: str):
        self.proc = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, bufsize=0)
        self.lines: "queue.Queue[tuple[float, str]]" = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for raw in iter(self.proc.stdout.readline, b""):
            self.lines.put((time.perf_counter(), raw.decode("utf-8", "replace").strip()))

    def send(self, text: str) -> float:
        t = time.perf_counter()
        self.proc.stdin.write((text + "\n").encode())
        return t

    def wait(self, prefix: str, timeout: float = 30.0) -> float:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise RuntimeError("no '%s' within %.0f s" % (prefix, timeout))
            try:
                t, line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line.startswith(prefix):
                return t

    def rss_mb(self) -> float:
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
        return float("nan")

    def close(self):
        self.send("quit")
        self.proc.wait(timeout=10)


def percentile(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100.0 * (len(xs) - 1))))]


def latency(path: str, threads: int, samples: int, hash_mb: int) -> dict:
    e = Engine(path)
    e.send("uci")
    e.wait("uciok")
    e.send("setoption name Hash value %d" % hash_mb)
    e.send("setoption name Threads value %d" % threads)
    e.send("setoption name OwnBook value false")
    e.send("isready")
    e.wait("readyok", 120)
    e.send("position startpos moves e2e4 e7e5 g1f3")
    ready, stop = [], []
    for i in range(samples):
        e.send("go infinite")
        time.sleep(0.005 + (i % 7) * 0.002)  # let the search get going, at varied depths
        t0 = e.send("isready")
        ready.append((e.wait("readyok") - t0) * 1000)
        t0 = e.send("stop")
        stop.append((e.wait("bestmove") - t0) * 1000)
    e.close()

    def summary(xs):
        return {"p50": round(percentile(xs, 50), 3), "p99": round(percentile(xs, 99), 3),
                "max": round(max(xs), 3)}

    return {"threads": threads, "hash_mb": hash_mb, "samples": samples,
            "isready_ms": summary(ready), "stop_ms": summary(stop)}


def churn(path: str, rounds: int) -> dict:
    e = Engine(path)
    e.send("uci")
    e.wait("uciok")
    e.send("setoption name OwnBook value false")
    e.send("position startpos moves d2d4 d7d5")
    rss = []
    for i in range(rounds):
        e.send("setoption name Hash value %d" % (1 + (i * 37) % 64))
        e.send("setoption name Threads value %d" % (1 + i % 3))
        e.send("go nodes 200")
        e.wait("bestmove")
        if i % max(1, rounds // 40) == 0:
            # Sample at one fixed configuration: RSS otherwise follows the table size of
            # the moment (1-64 MB) and hides any trend.
            e.send("setoption name Hash value 16")
            e.send("setoption name Threads value 1")
            e.send("go nodes 200")
            e.wait("bestmove")
            e.send("isready")
            e.wait("readyok")
            rss.append(round(e.rss_mb(), 1))
    e.close()
    quarter = max(1, len(rss) // 4)
    early = sum(rss[1:1 + quarter]) / max(1, len(rss[1:1 + quarter]))
    late = sum(rss[-quarter:]) / quarter
    return {"rounds": rounds, "rss_mb_samples": rss, "rss_early_mb": round(early, 1),
            "rss_late_mb": round(late, 1), "growth": round(late / early - 1.0, 3) if early else None}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("engine")
    ap.add_argument("--samples", type=int, default=1000)
    ap.add_argument("--churn", type=int, default=2000)
    ap.add_argument("--hash", type=int, default=1024, help="MB for the latency runs (default 1024)")
    ap.add_argument("--json", help="append the results as one JSON line to this file")
    ap.add_argument("--churn-only", action="store_true", help="skip the latency runs")
    args = ap.parse_args()
    results = {"engine": args.engine, "latency": []}
    ok = True
    for threads in () if args.churn_only else (1, 2):
        r = latency(args.engine, threads, args.samples, args.hash)
        results["latency"].append(r)
        print("threads %d, hash %d MB, %d samples: isready->readyok p50 %.2f p99 %.2f max %.2f ms; "
              "stop->bestmove p50 %.2f p99 %.2f max %.2f ms" % (
                  threads, args.hash, args.samples, r["isready_ms"]["p50"], r["isready_ms"]["p99"],
                  r["isready_ms"]["max"], r["stop_ms"]["p50"], r["stop_ms"]["p99"], r["stop_ms"]["max"]),
              flush=True)
        ok &= r["isready_ms"]["p99"] < 5 and r["stop_ms"]["p99"] < 5
    c = churn(args.engine, args.churn)
    results["churn"] = c
    print("churn: %d rounds of Hash/Threads changes + a search; RSS %.1f MB early, %.1f MB late (%+.1f %%)" % (
        c["rounds"], c["rss_early_mb"], c["rss_late_mb"], 100 * (c["growth"] or 0)))
    print("RSS samples (MB):", " ".join(str(x) for x in c["rss_mb_samples"]))
    ok &= (c["growth"] or 0) < 0.2
    if args.json:
        with open(args.json, "a") as f:
            f.write(json.dumps(results) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

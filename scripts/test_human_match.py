#!/usr/bin/env python3
"""Quick test of scripts/human_match.py without engines or a build: its --self-test
(statistics, band filter, stratified sampling, record), then whole runs of the model
setting against scripts/fixtures/fake_rookery_human.py (a stand-in binary): the record,
the skip messages for a missing command, a short answer and a missing Stockfish, and
(with matplotlib) the plot drawn from the record. A few seconds.

    python3 scripts/test_human_match.py
"""

import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "human_match.py")
FAKE = os.path.join(HERE, "fixtures", "fake_rookery_human.py")


def run(args, env=None):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True,
                          env=dict(os.environ, **(env or {})))


def main():
    failures = 0

    def check(name, ok, detail=""):
        nonlocal failures
        print(f"{'ok  ' if ok else 'FAIL'} {name}" + ("" if ok else f"\n{detail}"))
        failures += not ok

    proc = run(["--self-test"])
    check("--self-test passes", proc.returncode == 0 and "all passed" in proc.stdout,
          proc.stdout + proc.stderr)
    try:
        import chess  # noqa: F401
    except ImportError:
        print("python-chess missing: the runs against the stand-in binary are skipped")
        return 1 if failures else 0

    with tempfile.TemporaryDirectory() as tmp:
        record = os.path.join(tmp, "match.jsonl")
        base = ["--binary", FAKE, "--bands", "800,1100,1500", "--positions", "20",
                "--record", record, "dummy.rkh"]
        proc = run(base + ["--settings", "model"])
        ok = proc.returncode == 0 and os.path.exists(record)
        check("a model run ends and records", ok, proc.stdout + proc.stderr)
        if ok:
            rec = json.loads(open(record).read().splitlines()[-1])
            bands = {b["band"]: b for b in rec["bands"]}
            check("the band with no data is dropped with a message",
                  set(bands) == {1100, 1500} and "band 800: no eligible" in proc.stderr,
                  proc.stderr)
            check("each band has its 20 positions",
                  all(b["n"] == 20 for b in bands.values()), rec)
            model = [b["results"]["model"] for b in bands.values()]
            check("the stand-in model matches every position (ply > 10)",
                  all(r["hits"] == 20 and r["accuracy"] == 1.0 for r in model), model)
            check("the table names the setting and n", "model" in proc.stdout
                  and "n=20" in proc.stdout, proc.stdout)
            check("a run of the shipped model records no model arguments",
                  rec.get("model_args") == "", rec.get("model_args"))
            sys.path.insert(0, HERE)
            import plot_human_match
            candidate = dict(rec, model_args="--net other.safetensors")
            check("the plot leaves out runs of a candidate model",
                  plot_human_match.shipped([rec, candidate, rec]) == [rec, rec])
            try:
                import matplotlib  # noqa: F401
                png = os.path.join(tmp, "plot.png")
                plot = subprocess.run([sys.executable, os.path.join(HERE, "plot_human_match.py"),
                                       "--record", record, "--out", png],
                                      capture_output=True, text=True)
                check("the plot is drawn from the record",
                      plot.returncode == 0 and os.path.getsize(png) > 1000, plot.stderr)
            except ImportError:
                print("matplotlib missing: plot not checked")

        capped = os.path.join(tmp, "capped.jsonl")
        proc = run(base[:-3] + ["--record", capped, "dummy.rkh", "--settings", "model",
                                "--cap", "model@1100=5"])
        ok = proc.returncode == 0 and os.path.exists(capped)
        check("--cap runs a setting on part of a band", ok and [
            (b["band"], b["n"], b["results"]["model"]["n"])
            for b in json.loads(open(capped).read())["bands"]] == [(1100, 20, 5), (1500, 20, 20)],
            proc.stdout + proc.stderr)
        proc = run(base + ["--settings", "model", "--no-record"],
                   env={"FAKE_ROOKERY_NO_PREDICT": "1"})
        check("a binary without `human --predict` skips the model with a message",
              proc.returncode == 0 and "model: skipped" in proc.stderr
              and "no `human --predict`" in proc.stderr, proc.stdout + proc.stderr)
        proc = run(base + ["--settings", "model", "--no-record"], env={"FAKE_ROOKERY_SHORT": "1"})
        check("a short answer from `human --predict` is a skip, not a wrong score",
              proc.returncode == 0 and "gave 39 lines for 40 positions" in proc.stderr,
              proc.stdout + proc.stderr)
        lines_before = len(open(record).read().splitlines()) if os.path.exists(record) else 0
        proc = run(base + ["--settings", "sf-depth1,sf-elo", "--stockfish", "/nonexistent"])
        lines_after = len(open(record).read().splitlines()) if os.path.exists(record) else 0
        check("a missing Stockfish is a skip message, and nothing is recorded",
              proc.returncode == 0 and "sf-depth1: skipped: no Stockfish" in proc.stderr
              and lines_after == lines_before, proc.stdout + proc.stderr)
    proc = run(["--settings", "nonsense"])
    check("an unknown setting is a usage error", proc.returncode == 2
          and "unknown settings" in proc.stderr, proc.stderr)
    proc = run(["--clock", "blitz"])
    check("a bad clock is a usage error", proc.returncode == 2 and "--clock" in proc.stderr,
          proc.stderr)
    print("all passed" if not failures else f"{failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

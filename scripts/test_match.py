#!/usr/bin/env python3
"""Quick self-test of scripts/match.py: statistics, parsing, CLI errors, and
(if python-chess is installed) two tiny matches against the misbehaving fixture
engine in scripts/fixtures/fake_engine.py to prove illegal-move and
time-forfeit detection. No real engines needed; runs in a few seconds.

    python3 scripts/test_match.py                 # everything (games skipped without python-chess)
    python3 scripts/test_match.py --no-games      # statistics/parsing only
    python3 scripts/test_match.py --require-games # everything; fails if python-chess is missing (CI)
"""

import concurrent.futures
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import match as m  # noqa: E402

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


def close(a, b, tol):
    return abs(a - b) <= tol


# ---------------- Elo / score ----------------

@test
def elo_score_roundtrip():
    assert m.elo_from_score(0.5) == 0.0
    assert close(m.elo_from_score(0.75), 190.848, 1e-3)
    assert close(m.elo_from_score(0.25), -190.848, 1e-3)
    for e in (-600, -35.5, 0, 10, 400):
        assert close(m.elo_from_score(m.score_from_elo(e)), e, 1e-9)
    assert m.elo_from_score(1.0) == math.inf and m.elo_from_score(0.0) == -math.inf
    assert close(m.score_from_elo(400), 10 / 11, 1e-12)


@test
def trinomial_error_bar():
    st = m.trinomial_stats(60, 20, 20)  # score 0.7
    assert close(st["score"], 0.7, 1e-12)
    assert close(st["elo"], m.elo_from_score(0.7), 1e-9)
    var = (60 * 0.3 ** 2 + 20 * 0.2 ** 2 + 20 * 0.7 ** 2) / 100  # = 0.16
    se = math.sqrt(var / 100)
    want = (m.elo_from_score(0.7 + m.Z95 * se) - m.elo_from_score(0.7 - m.Z95 * se)) / 2
    assert close(st["err"], want, 1e-9), (st["err"], want)
    # error bar shrinks like 1/sqrt(n)
    big = m.trinomial_stats(6000, 2000, 2000)
    assert close(st["err"] / big["err"], 10.0, 0.3)
    assert math.isnan(m.trinomial_stats(0, 0, 0)["elo"])


@test
def pentanomial_error_bar():
    # 100 pairs, symmetric outcomes: score 0.5, elo 0
    pen = [10, 20, 40, 20, 10]
    st = m.pentanomial_stats(pen)
    assert close(st["score"], 0.5, 1e-12) and close(st["elo"], 0.0, 1e-9)
    var = (10 * 0.25 + 20 * 0.0625 + 0 + 20 * 0.0625 + 10 * 0.25) / 100  # = 0.075 per pair
    se = math.sqrt(var / 100)
    want = (m.elo_from_score(0.5 + m.Z95 * se) - m.elo_from_score(0.5 - m.Z95 * se)) / 2
    assert close(st["err"], want, 1e-9)
    # identical pair results -> no usable error bar
    assert math.isnan(m.pentanomial_stats([0, 0, 5, 0, 0])["err"])
    # Correlated pairs (1-1 splits, e.g. opening decides) have smaller pair variance than
    # the trinomial view of the same games suggests.
    pen = [0, 0, 50, 10, 0]  # 50 pairs 1-1 (all WL), 10 pairs W+D
    tri = m.trinomial_stats(50 + 10, 10, 50)
    assert m.pentanomial_stats(pen)["err"] < tri["err"]


@test
def parts_of_a_match_combine():
    errs = {"time forfeit": 0, "crash": 0}
    a = {"games": 4, "wins": 2, "draws": 1, "losses": 1, "penta": [0, 0, 1, 1, 0],
         "errors1": dict(errs, crash=1), "errors2": errs}
    b = {"games": 3, "wins": 0, "draws": 2, "losses": 1, "penta": [0, 1, 0, 0, 0],
         "errors1": errs, "errors2": dict(errs, **{"time forfeit": 2})}
    t = m.combine_runs([a, b])
    assert (t["games"], t["wins"], t["draws"], t["losses"]) == (7, 2, 3, 2)
    assert t["penta"] == [0, 1, 1, 1, 0]
    assert t["errors1"] == {"time forfeit": 0, "crash": 1}
    assert t["errors2"] == {"time forfeit": 2, "crash": 0}
    assert t["stats"] == m.pentanomial_stats([0, 1, 1, 1, 0])


@test
def a_match_without_games_is_not_recorded():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "results.jsonl")
        empty = {"games": 0, "wins": 0, "draws": 0, "losses": 0, "elo_penta": float("nan")}
        assert not m.record_summary(path, empty)
        assert not os.path.exists(path)
        played = dict(empty, games=2, wins=1, losses=1, elo_penta=0.0)
        assert m.record_summary(path, played)
        assert m.record_summary(path, played)
        rows = [json.loads(line) for line in open(path)]
        assert [r["games"] for r in rows] == [2, 2]


@test
def los_values():
    assert m.los(0, 0) == 0.5
    assert m.los(10, 10) == 0.5
    assert m.los(60, 40) > 0.97 and m.los(40, 60) < 0.03


# ---------------- SPRT ----------------

@test
def sprt_bounds_values():
    lo, hi = m.sprt_bounds(0.05, 0.05)
    assert close(lo, -2.944438979, 1e-6) and close(hi, 2.944438979, 1e-6)
    lo, hi = m.sprt_bounds(0.05, 0.1)
    assert close(lo, math.log(0.1 / 0.95), 1e-12) and close(hi, math.log(0.9 / 0.05), 1e-12)


def expected_penta(elo, pairs, draw=0.4):
    """Pentanomial counts for independent games with the given Elo and draw rate."""
    s = m.score_from_elo(elo)
    w = s - draw / 2
    l_ = 1 - w - draw
    g = [l_, draw, w]  # P(0), P(0.5), P(1) for one game
    pen = [0.0] * 5
    for a in range(3):
        for b in range(3):
            pen[a + b] += g[a] * g[b] * pairs
    return pen


@test
def llr_sign_and_scale():
    assert m.llr_pentanomial([0, 0, 0, 0, 0], 0, 5) == 0.0
    assert m.llr_trinomial(0, 0, 0, 0, 5) == 0.0
    for exact in (True, False):
        # true Elo well above elo1 -> positive and growing with N; below elo0 -> negative
        assert m.llr_pentanomial(expected_penta(15, 1000), 0, 5, exact) > 0
        assert m.llr_pentanomial(expected_penta(15, 10000), 0, 5, exact) > m.llr_pentanomial(
            expected_penta(15, 1000), 0, 5, exact)
        assert m.llr_pentanomial(expected_penta(-10, 1000), 0, 5, exact) < 0
        # exactly midway between the bounds -> ~0
        assert abs(m.llr_pentanomial(expected_penta(2.5, 5000), 0, 5, exact)) < 0.05
        # large samples cross the bounds
        lo, hi = m.sprt_bounds(0.05, 0.05)
        assert m.llr_pentanomial(expected_penta(20, 20000), 0, 5, exact) > hi
        assert m.llr_pentanomial(expected_penta(-15, 20000), 0, 5, exact) < lo
        assert m.llr_trinomial(3000, 4000, 2600, 0, 5, exact) > 0


@test
def llr_exact_matches_normal_for_large_n():
    for pen in ([1000, 4000, 10000, 4500, 500], [500, 3000, 8000, 3000, 500]):
        a = m.llr_pentanomial(pen, 0, 5)
        b = m.llr_pentanomial(pen, 0, 5, exact=False)
        assert abs(a - b) <= 0.02 * max(abs(a), abs(b)) + 0.01, (pen, a, b)
    a, b = m.llr_trinomial(4000, 10000, 3600, -3, 3), m.llr_trinomial(4000, 10000, 3600, -3, 3, exact=False)
    assert abs(a - b) <= 0.02 * abs(a) + 0.01


@test
def llr_exact_is_sane_for_tiny_samples():
    # one won pair against bounds [0, 100]: evidence ln(s1/s0) ~ 0.25, not a huge number
    v = m.llr_pentanomial([0, 0, 0, 0, 1], 0, 100)
    assert 0.1 < v < 0.4, v
    # a handful of wins must not end a [0, 5] SPRT
    assert m.llr_pentanomial([0, 0, 0, 0, 10], 0, 5) < 1.0


@test
def mle_constrained_has_requested_mean():
    p = [0.1, 0.2, 0.4, 0.2, 0.1]
    for s in (0.3, 0.5, 0.55, 0.8):
        q = m._mle_constrained(m.PENTA_VALUES, p, s)
        assert close(sum(q), 1.0, 1e-9)
        assert close(sum(qi * v for qi, v in zip(q, m.PENTA_VALUES)), s, 1e-7)


# ---------------- rating estimate ----------------

@test
def estimate_rating_recovers_truth():
    true = 1800.0
    recs = [(r, 200 * m.score_from_elo(true - r), 200) for r in (1500, 1700, 1900, 2100)]
    est = m.estimate_rating(recs)
    assert est["bounded"] and close(est["rating"], true, 0.01), est
    assert 20 < est["err"] < 60, est
    # one opponent: rating = opponent + Elo difference
    est = m.estimate_rating([(1500, 75, 100)])
    assert close(est["rating"], 1500 + m.elo_from_score(0.75), 0.01)
    assert not m.estimate_rating([(1500, 10, 10)])["bounded"]
    assert m.estimate_rating([]) is None


@test
def ladder_plot_fits_the_recorded_ladders():
    # The plot's fit of each committed ladder file is match.py --estimate's, e.g. the
    # 2026-11-27 gen9-sq run that docs/strength.md gives as 2487 ± 50.
    import plot_ladder
    runs = {label.split("\n")[1] + " " + label.split("\n")[0]: est
            for label, est, _ in plot_ladder.ladder_runs(os.path.join(HERE, "..", "docs", "ladder"))}
    est = runs["2026-11-27 rookery-gen9-sq"]
    assert close(est["rating"], 2487, 1) and close(est["err"], 50, 1), est
    assert est["games"] == 200
    est = runs["2026-11-26 rookery-gen4"]
    assert close(est["rating"], 2390, 1) and close(est["err"], 52, 1), est
    # rookery-v1's two runs, transcribed from the table: the fits the docs quote.
    est = runs["2026-11-24 rookery-v1"]
    assert close(est["rating"], 2121, 1) and close(est["err"], 55, 1), est
    est = runs["2026-11-23 rookery-v1"]
    assert close(est["rating"], 2155, 1) and close(est["err"], 51, 1), est


@test
def generation_data_table_keeps_the_counts_of_training_time():
    # generation.sh records what a net was trained on when training starts; the manifest
    # growing afterwards (datagen goes on during the gate) must not change the record.
    import generation_record as g
    with tempfile.TemporaryDirectory() as d:
        manifest = os.path.join(d, "manifest.tsv")
        header = "file\tgeneration\tnet\tnodes\tseed\tgames\tpositions\tbytes\tsha256\n"
        with open(manifest, "w") as f:
            f.write(header + "data/gen1/seed1.vf\t1\tn\t5000\t1\t10\t1000\t1\tx\n"
                    "data/gen2/seed1.vf\t2\tn\t5000\t1\t20\t2500\t1\tx\n")
        data_list = os.path.join(d, "data.txt")
        with open(data_list, "w") as f:
            f.write("data/gen1/seed1.vf@1\n/shared/part1.txt.gz@1\ndata/gen2/seed1.vf@3\n")
        table = os.path.join(d, "data.tsv")
        with open(table, "w") as f:
            f.write(g.snapshot_data(data_list, manifest))
        with open(manifest, "w") as f:  # datagen appended meanwhile
            f.write(header + "data/gen1/seed1.vf\t1\tn\t5000\t1\t10\t1000\t1\tx\n"
                    "data/gen2/seed1.vf\t2\tn\t5000\t1\t90\t9000\t1\tx\n")
        assert g.selfplay_positions(table) == (2, 3500)
        assert g.selfplay_positions(os.path.join(d, "missing.tsv")) == ("?", 0)
        with open(data_list, "a") as f:
            f.write("data/gen3/seed1.vf@1\n")
        try:
            g.snapshot_data(data_list, manifest)
            raise AssertionError("a file missing from the manifest was accepted")
        except SystemExit as e:
            assert "gen3" in str(e)


# ---------------- parsing ----------------

@test
def engine_specs():
    es = m.parse_engine_spec("stockfish:1500")
    assert es.cmd == ["/usr/games/stockfish"] and es.rating == 1500
    assert es.options == {"UCI_LimitStrength": "true", "UCI_Elo": "1500"}
    assert es.soft_options == {"Threads": "1", "Hash": "16"}
    es = m.parse_engine_spec("ethereal,name=Eth,option.Hash=64")
    assert es.cmd == ["/usr/games/ethereal-chess"] and es.name == "Eth" and es.options == {"Hash": "64"}
    es = m.parse_engine_spec("rookery:/tmp/base/rookery")
    assert es.is_rookery and es.cmd == ["/tmp/base/rookery"]
    assert m.parse_engine_spec("rookery").cmd == [m.DEFAULT_ROOKERY]
    es = m.parse_engine_spec("python3 x/fake.py --mode slow,arg=--seed,arg=3,rating=1234")
    assert es.cmd == ["python3", "x/fake.py", "--mode", "slow", "--seed", "3"] and es.rating == 1234
    assert es.name == "fake.py"
    assert m.parse_engine_spec("toga2,nodes=500").nodes == 500
    assert m.parse_engine_spec("toga2").nodes is None
    for bad in ("stockfish:100", "stockfish:abc", "toga2,bogus=1", "toga2,noequals", "toga2,nodes=0",
                "toga2,nodes=x"):
        try:
            m.parse_engine_spec(bad)
        except m.SetupError:
            pass
        else:
            raise AssertionError("accepted bad spec %r" % bad)


@test
def time_controls():
    tc = m.TimeControl.parse("10+0.1")
    assert (tc.moves, tc.base, tc.inc) == (0, 10.0, 0.1) and tc.pgn() == "10+0.1"
    tc = m.TimeControl.parse("40/60")
    assert (tc.moves, tc.base, tc.inc) == (40, 60.0, 0.0) and tc.pgn() == "40/60"
    assert m.TimeControl.parse("1+0.01").inc == 0.01
    for bad in ("abc", "10+", "0+1", "-5"):
        try:
            m.TimeControl.parse(bad)
        except m.SetupError:
            pass
        else:
            raise AssertionError("accepted bad tc %r" % bad)


# ---------------- CLI ----------------

def run_cli(*args, timeout=60):
    p = subprocess.run([sys.executable, os.path.join(HERE, "match.py")] + list(args),
                       capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


@test
def cli_setup_errors_exit_nonzero():
    rc, out, _ = run_cli("--help")
    assert rc == 0 and "SPRT" in out and "time forfeit" in out
    rc, _, err = run_cli("/nonexistent/engine", "/nonexistent/engine2", "--tc", "1+0.01")
    assert rc == 2 and "not found" in err, err
    rc, _, err = run_cli(sys.executable, sys.executable, "--tc", "1+0.01", "--openings", "/nonexistent.pgn")
    assert rc == 2 and "openings file not found" in err, err
    rc, _, err = run_cli(sys.executable, sys.executable)
    assert rc == 2 and "time control" in err, err
    rc, _, err = run_cli(sys.executable)
    assert rc == 2
    rc, _, err = run_cli(sys.executable, sys.executable, "--tc", "1+0.01", "--sprt-prior", "1,2,3,4,5")
    assert rc == 2 and "--sprt-prior needs --sprt" in err, err
    rc, _, err = run_cli(sys.executable, sys.executable, "--tc", "1+0.01", "--sprt", "0", "10",
                         "--sprt-prior", "1,2,3")
    assert rc == 2 and "five counts" in err, err


@test
def estimate_cli():
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as fh:
        fh.write('{"engine1": "Rookery", "engine2": "Stockfish-1500", "rating1": null, "rating2": 1500, '
                 '"games": 100, "points": 75}\n')
        fh.write('{"engine1": "Stockfish-1900", "engine2": "Rookery", "rating1": 1900, "rating2": null, '
                 '"games": 100, "points": 75}\n')
        path = fh.name
    try:
        rc, out, _ = run_cli("--estimate", path)
        assert rc == 0 and "Rookery:" in out and "ML rating estimate: 1700" in out, out
    finally:
        os.unlink(path)


# ---------------- tiny matches against the fixture engine ----------------

FAKE = os.path.join(HERE, "fixtures", "fake_engine.py")


def fake(mode):
    return "%s %s --mode %s,name=%s" % (sys.executable, FAKE, mode, mode)


def game_test(fn):
    fn.needs_games = True
    return test(fn)


@game_test
def default_openings_are_in_the_repository():
    # The default book is committed gzipped: it must open from a clean clone and parse.
    path = m.DEFAULT_OPENINGS
    assert path.startswith(os.path.dirname(HERE)) and os.path.isfile(path), path
    book = m.OpeningBook(path)
    assert book.kind == "pgn" and len(book) == 34700, (book.kind, len(book))
    first, last = book.get(0), book.get(len(book) - 1)
    assert len(first.moves) == 16 and len(last.moves) == 16, (first, last)
    assert [mv.uci() for mv in first.moves[:2]] == ["g1f3", "d7d5"], first


@game_test
def detects_illegal_move():
    # 'illegal' answers an impossible king move, 'none' answers 'bestmove 0000'; both do it on
    # their own 3rd move, so White misbehaves first in each game: one loss each.
    with tempfile.TemporaryDirectory() as d:
        pgn = os.path.join(d, "g.pgn")
        rc, out, err = run_cli(fake("illegal"), fake("none"), "--tc", "2+0.02", "--games", "2", "--pgn", pgn,
                               "--fail-on-errors")
        assert rc == 3, (rc, out, err)
        flat = " ".join(out.split())
        assert "illegal: time forfeits 0, illegal moves 1," in flat, out
        assert "none: time forfeits 0, illegal moves 1," in flat, out
        text = open(pgn).read()
        assert text.count('[Termination "illegal move"]') == 2, text
        assert "W-D-L 1-0-1" in out


@game_test
def detects_time_forfeit():
    rc, out, err = run_cli(fake("random"), fake("slow"), "--tc", "0.3", "--games", "2", "--openings", "none")
    assert rc == 0, (rc, out, err)
    assert "slow: time forfeits 2," in " ".join(out.split()), out
    assert "loses on time" in out


@game_test
def per_engine_node_limit_overrides_nodes():
    # Node odds: engine 1 is told nodes=7 in its spec, engine 2 gets the global --nodes 3.
    with tempfile.TemporaryDirectory() as d:
        logs = [os.path.join(d, "a.log"), os.path.join(d, "b.log")]
        e1 = "%s %s --mode random --log %s,name=a,nodes=7" % (sys.executable, FAKE, logs[0])
        e2 = "%s %s --mode random --log %s,name=b" % (sys.executable, FAKE, logs[1])
        rc, out, err = run_cli(e1, e2, "--nodes", "3", "--games", "2", "--openings", "none", "--maxplies", "20")
        assert rc == 0, (rc, out, err)
        assert "a:nodes=7" in out, out
        gos = [open(f).read().splitlines() for f in logs]
        assert len(gos[0]) >= 10 and all(g == "go nodes 7" for g in gos[0]), gos[0][:3]
        assert len(gos[1]) >= 10 and all(g == "go nodes 3" for g in gos[1]), gos[1][:3]
        # With node limits in both specs no global limit is needed.
        e2 += ",nodes=5"
        rc, out, err = run_cli(e1, e2, "--games", "2", "--openings", "none", "--maxplies", "10")
        assert rc == 0, (rc, out, err)


@game_test
def resumed_sprt_counts_the_earlier_pairs():
    # The earlier pairs alone already lie past the upper bound: the first game of the resumed
    # run decides it (without them, four games could never decide a [0, 10] test).
    with tempfile.TemporaryDirectory() as d:
        results = os.path.join(d, "r.jsonl")
        rc, out, err = run_cli(fake("random"), fake("random") + "2", "--tc", "1+0.01", "--games", "4",
                               "--openings", "none", "-c", "1", "--sprt", "0", "10",
                               "--sprt-prior", "0,100,200,400,300", "--results", results)
        assert rc == 0, (rc, out, err)
        assert "H1 accepted" in out and "after 1 games" in out, out
        sprt = json.loads(open(results).read())["sprt"]
        assert sprt["prior_penta"] == [0, 100, 200, 400, 300] and sprt["llr"] > 2.94, sprt


@game_test
def detects_crash_and_stall():
    rc, out, err = run_cli(fake("crash"), fake("hang"), "--tc", "0.3", "--games", "2", "--stall-timeout", "0.5",
                           "--openings", "none", "-c", "2", "--engine-stderr", "discard")
    assert rc == 0, (rc, out, err)
    flat = " ".join(out.split())
    assert "crash: time forfeits 0, illegal moves 0, crashes 1, stalls 0" in flat, out
    assert "hang: time forfeits 0, illegal moves 0, crashes 0, stalls 1" in flat, out


def main():
    run_games = "--no-games" not in sys.argv
    try:
        import chess  # noqa: F401
    except ImportError:
        if "--require-games" in sys.argv:
            print("FAIL python-chess missing: the game tests cannot run (pip install chess)")
            return 1
        print("python-chess missing: skipping game tests")
        run_games = False
    passed = failed = skipped = 0
    todo = [fn for fn in TESTS if run_games or not getattr(fn, "needs_games", False)]
    skipped = len(TESTS) - len(todo)

    def run(fn):
        try:
            fn()
        except Exception as err:  # noqa: BLE001
            return err
        return None

    # The tests are independent; the CLI/game ones mostly wait on subprocesses, so run them in parallel.
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        for fn, err in zip(todo, pool.map(run, todo)):
            if err is None:
                passed += 1
                print("ok   %s" % fn.__name__)
            else:
                failed += 1
                print("FAIL %s: %r" % (fn.__name__, err))
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

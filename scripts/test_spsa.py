#!/usr/bin/env python3
"""Tests of scripts/spsa.py without an engine or a build: the OpenBench schedule, clamping
and rounding to the parameter ranges, the parameter-list parser, the match.py command,
the defaults patch, resuming from the state file (a run stopped after k iterations and
resumed ends with the same theta as an uninterrupted one), and convergence toward a
known optimum with --fake-games. A few seconds.

    python3 scripts/test_spsa.py
"""

import contextlib
import io
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import spsa  # noqa: E402

PARAMS_TEXT = """\
# name, type, default, min, max, c_end, r_end
RFP_MARGIN, int, 75, 30, 150, 8, 0.002
LMR_BASE_x100, int, 175, 50, 300, 10, 0.002
QS_DELTA, int, 200, 50, 400, 20, 0.002
"""

PARAMS_RS = """\
tunables! {
    /// Reverse futility pruning margin.
    RFP_MARGIN: i32 = 75, 30..=150, c_end 8, r_end 0.002;
    /// LMR base.
    LMR_BASE: f64 = 1.75, 0.5..=3.0, c_end 0.1, r_end 0.002;
    QS_DELTA: i32 = 200, 50..=400, c_end 20, r_end 0.002;
}
"""


def params():
    return spsa.parse_params(PARAMS_TEXT)


class Schedule(unittest.TestCase):
    def test_ends_at_c_end_and_r_end(self):
        s = spsa.Schedule(1000)
        self.assertAlmostEqual(s.big_a, 100.0)
        for p in params():
            self.assertAlmostEqual(s.c_k(p, 1000), p.c_end)
            self.assertAlmostEqual(s.r_k(p, 1000), p.r_end)
            self.assertAlmostEqual(s.a_k(p, 1000), p.r_end * p.c_end ** 2)

    def test_decays_as_openbench_does(self):
        s = spsa.Schedule(1000)
        p = params()[0]
        self.assertAlmostEqual(s.c_k(p, 1) / s.c_k(p, 1000), 1000 ** 0.101)
        self.assertAlmostEqual(s.a_k(p, 1) / s.a_k(p, 1000), ((100 + 1000) / (100 + 1)) ** 0.602)
        cs = [s.c_k(p, k) for k in range(1, 1001)]
        self.assertTrue(all(a > b for a, b in zip(cs, cs[1:])))

    def test_other_exponents_and_a_ratio(self):
        s = spsa.Schedule(200, alpha=0.5, gamma=0.2, a_ratio=0.05)
        p = params()[1]
        self.assertAlmostEqual(s.big_a, 10.0)
        self.assertAlmostEqual(s.c_k(p, 1), p.c_end * 200 ** 0.2)
        self.assertAlmostEqual(s.a_k(p, 1), p.r_end * p.c_end ** 2 * (210 / 11) ** 0.5)


class RangesAndRounding(unittest.TestCase):
    def test_engine_values_are_clamped_and_rounded(self):
        p = params()[0]
        self.assertEqual(spsa.engine_value(p, 80.5), 81)
        self.assertEqual(spsa.engine_value(p, 80.49), 80)
        self.assertEqual(spsa.engine_value(p, 10.0), 30)
        self.assertEqual(spsa.engine_value(p, 1e9), 150)
        neg = spsa.Param("SEE_QUIET_MARGIN", "int", -60, -150, -10, 8, 0.002)
        self.assertEqual(spsa.engine_value(neg, -60.5), -61)
        real = spsa.Param("X", "float", 0.5, 0.0, 1.0, 0.1, 0.002)
        self.assertEqual(spsa.engine_value(real, 0.537), 0.537)

    def test_perturbation_is_symmetric_and_within_range(self):
        ps = params()
        s = spsa.Schedule(100)
        theta = {"RFP_MARGIN": 148.0, "LMR_BASE_x100": 175.0, "QS_DELTA": 52.0}
        plus, minus = spsa.perturbed(ps, theta, s, 1, [1, -1, -1])
        self.assertEqual(plus["RFP_MARGIN"], 150)  # 148 + c_1 clamped
        self.assertEqual(minus["RFP_MARGIN"], round(148 - s.c_k(ps[0], 1)))
        self.assertEqual(plus["QS_DELTA"], 50)
        self.assertEqual(plus["LMR_BASE_x100"] + minus["LMR_BASE_x100"], 350)
        self.assertTrue(all(isinstance(v, int) for v in plus.values()))

    def test_update_moves_along_the_signs_and_clamps(self):
        ps = params()
        s = spsa.Schedule(100)
        theta = {p.name: p.default for p in ps}
        after = spsa.update(ps, theta, s, 5, [1, -1, 1], 3)
        step = s.a_k(ps[0], 5) / s.c_k(ps[0], 5) * 3
        self.assertAlmostEqual(after["RFP_MARGIN"], 75 + step)
        self.assertLess(after["LMR_BASE_x100"], 175)
        self.assertEqual(spsa.update(ps, theta, s, 1, [1, 1, 1], 10 ** 6)["QS_DELTA"], 400)
        self.assertEqual(spsa.update(ps, theta, s, 1, [1, 1, 1], 0), theta)


class Parsing(unittest.TestCase):
    def test_reads_openbench_lines(self):
        ps = params()
        self.assertEqual([p.name for p in ps], ["RFP_MARGIN", "LMR_BASE_x100", "QS_DELTA"])
        self.assertEqual((ps[1].default, ps[1].min, ps[1].max, ps[1].c_end), (175, 50, 300, 10))

    def test_bad_lists_are_clear_errors(self):
        for text, message in [("RFP, int, 1, 2\n", "is not"), ("A, int, x, 0, 2, 1, 0.002\n", "not a number"),
                              ("A, int, 5, 0, 2, 1, 0.002\n", "min <= default"), ("\n# none\n", "no parameters"),
                              ("A, int, 1, 0, 2, 1, 0.002\nA, int, 1, 0, 2, 1, 0.002\n", "twice")]:
            with self.assertRaises(spsa.SpsaError) as cm:
                spsa.parse_params(text)
            self.assertIn(message, str(cm.exception))

    def test_match_command_sets_each_side_and_the_limit(self):
        args = spsa.build_parser().parse_args(["--engine", "/x/rookery", "--nodes", "2000", "--pairs", "3"])
        cmd = spsa.match_command(args, {"RFP_MARGIN": 80}, {"RFP_MARGIN": 70}, 1, 4, "/tmp/r.jsonl")
        self.assertIn("rookery:/x/rookery,name=theta+", cmd)
        self.assertEqual(cmd[cmd.index("--option1") + 1], "RFP_MARGIN=80")
        self.assertEqual(cmd[cmd.index("--option2") + 1], "RFP_MARGIN=70")
        self.assertEqual(cmd[cmd.index("--nodes") + 1], "2000")
        self.assertEqual(cmd[cmd.index("--rounds") + 1], "3")
        self.assertNotIn("--tc", cmd)
        self.assertTrue(cmd[cmd.index("--openings") + 1].endswith("8moves_v3.pgn.gz"))
        timed = spsa.build_parser().parse_args(["--engine", "/x/rookery"])
        cmd = spsa.match_command(timed, {}, {}, 1, 4, "/tmp/r.jsonl")
        self.assertEqual(cmd[cmd.index("--tc") + 1], "8+0.08")

    def test_patch_rewrites_declared_defaults(self):
        ps = params()
        theta = {"RFP_MARGIN": 81.6, "LMR_BASE_x100": 160.2, "QS_DELTA": 200.0}
        patched = spsa.patch_defaults(ps, theta, PARAMS_RS)
        self.assertIn("RFP_MARGIN: i32 = 82, 30..=150", patched)
        self.assertIn("LMR_BASE: f64 = 1.6, 0.5..=3.0", patched)
        self.assertIn("QS_DELTA: i32 = 200, 50..=400", patched)
        theta["LMR_BASE_x100"] = 200.0
        self.assertIn("LMR_BASE: f64 = 2.0, ", spsa.patch_defaults(ps, theta, PARAMS_RS))


class Runs(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.params_file = os.path.join(self.tmp.name, "params.txt")
        with open(self.params_file, "w") as fh:
            fh.write(PARAMS_TEXT)

    def tearDown(self):
        self.tmp.cleanup()

    def run_quietly(self, argv):
        with contextlib.redirect_stdout(io.StringIO()):
            return spsa.run(argv)

    def fake(self, state, *extra):
        return ["--fake-games", "--params-file", self.params_file, "--state", state, "--quiet",
                "--params-rs", os.path.join(self.tmp.name, "none.rs"), *extra]

    def test_resume_ends_where_an_uninterrupted_run_does(self):
        common = ["--iterations", "60", "--pairs", "4", "--seed", "7"]
        whole = self.run_quietly(self.fake(os.path.join(self.tmp.name, "whole.json"), *common))
        split = os.path.join(self.tmp.name, "split.json")
        first = self.run_quietly(self.fake(split, *common, "--stop-after", "25"))
        self.assertEqual(first["done"], 25)
        with open(split) as fh:
            self.assertEqual(json.load(fh)["done"], 25)
        # The resumed run goes through the command line, as a user restarting it would.
        proc = subprocess.run([sys.executable, os.path.join(HERE, "spsa.py"), *self.fake(split, *common)],
                              capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(split) as fh:
            resumed = json.load(fh)
        self.assertEqual(resumed["done"], 60)
        self.assertEqual(resumed["theta"], whole["theta"])
        self.assertEqual(resumed["wdl"], whole["wdl"])
        self.assertIn("Tuned values after 60 iterations", proc.stdout)

    def test_resume_with_other_settings_is_refused(self):
        state = os.path.join(self.tmp.name, "s.json")
        self.run_quietly(self.fake(state, "--iterations", "10", "--stop-after", "3"))
        with self.assertRaises(spsa.SpsaError) as cm:
            self.run_quietly(self.fake(state, "--iterations", "20"))
        self.assertIn("iterations", str(cm.exception))
        restarted = self.run_quietly(self.fake(state, "--iterations", "20", "--restart", "--stop-after", "2"))
        self.assertEqual(restarted["done"], 2)

    def test_fake_games_converge_to_the_optimum(self):
        optimum = {"RFP_MARGIN": 100.0, "LMR_BASE_x100": 140.0, "QS_DELTA": 290.0}
        state = self.run_quietly(self.fake(os.path.join(self.tmp.name, "c.json"), "--iterations", "600",
                                   "--pairs", "8", "--fake-elo", "10", "--fake-optimum",
                                   ",".join("%s=%g" % kv for kv in optimum.items())))
        for p in params():
            start = abs(p.default - optimum[p.name])
            end = abs(state["theta"][p.name] - optimum[p.name])
            # Within 3 c_end of the optimum, having started 2.5-5 c_end away.
            self.assertLess(end, 3 * p.c_end, p.name)
            self.assertLess(end, start / 2, p.name)
        self.assertTrue(math.isfinite(sum(state["theta"].values())))

    def test_unknown_names_are_errors(self):
        with self.assertRaises(spsa.SpsaError):
            self.run_quietly(self.fake(os.path.join(self.tmp.name, "u.json"), "--only", "NOPE"))
        with self.assertRaises(spsa.SpsaError):
            self.run_quietly(self.fake(os.path.join(self.tmp.name, "u.json"), "--fake-optimum", "NOPE=1"))
        proc = subprocess.run([sys.executable, os.path.join(HERE, "spsa.py"), "--engine",
                               os.path.join(self.tmp.name, "missing")], capture_output=True, text=True)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("error: cannot run", proc.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=1)

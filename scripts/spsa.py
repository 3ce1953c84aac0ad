#!/usr/bin/env python3
"""Local SPSA tuning of Rookery's search parameters, for users without OpenBench.

Each iteration k perturbs every parameter by +-c_k (a random sign per parameter), plays
game pairs of theta+ against theta- with scripts/match.py (one opening, both colours per
pair), and moves theta along the signs by a_k / c_k * (wins - losses) of theta+. The
schedule is OpenBench's (and fishtest's):

    c_k = c / k^gamma,  a_k = a / (A + k)^alpha,  gamma 0.101, alpha 0.602, A = 10 % of N
    c   = c_end * N^gamma             (so that c_N = c_end)
    a   = r_end * c_end^2 * (A + N)^alpha   (so that a_N / c_N^2 = r_end)

with N the number of iterations and c_end, r_end per parameter from the engine's
`rookery tune-params` (OpenBench's SPSA input: `NAME, int, default, min, max, c_end,
r_end`). Integer parameters are sent rounded; theta stays real and within [min, max].

The state (theta, iterations done, settings) is written to a JSON file after every
iteration; running the same command again resumes where it stopped, and with the same
seed a resumed --fake-games run ends exactly where an uninterrupted one does. At the end
the tuned values are printed with a patch of src/search/params.rs's defaults.

Examples:
    cargo build --release --features tune --target-dir target/tune
    scripts/spsa.py --engine target/tune/release/rookery --iterations 2000 --pairs 8 \\
        --tc 8+0.08 --concurrency 2 --state spsa-state.json
    scripts/spsa.py --engine target/tune/release/rookery --nodes 20000 --only RFP_MARGIN,FP_BASE
    scripts/spsa.py --fake-games --params-file params.txt --iterations 500   # the optimiser alone

docs/tuning.md explains the whole procedure (and tuning on OpenBench instead).
"""

from __future__ import annotations

import argparse
import difflib
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from typing import Dict, List, Optional, Sequence, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
MATCH = os.path.join(HERE, "match.py")
PARAMS_RS = os.path.join(REPO, "src", "search", "params.rs")
DEFAULT_OPENINGS = os.path.join(REPO, "openings", "8moves_v3.pgn.gz")
STATE_VERSION = 1


class SpsaError(Exception):
    """A bad argument, parameter list or state file: reported without a traceback."""


@dataclass
class Param:
    name: str
    kind: str  # "int" or "float"
    default: float
    min: float
    max: float
    c_end: float
    r_end: float


def parse_params(text: str) -> List[Param]:
    """OpenBench's SPSA input: `NAME, int|float, default, min, max, c_end, r_end` a line."""
    params = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = [f.strip() for f in line.split(",")]
        if len(fields) != 7 or fields[1] not in ("int", "float"):
            raise SpsaError("parameter line %d is not 'NAME, int|float, default, min, max, "
                            "c_end, r_end': %r" % (number, line))
        try:
            default, lo, hi, c_end, r_end = (float(f) for f in fields[2:])
        except ValueError:
            raise SpsaError("parameter line %d has a field that is not a number: %r" % (number, line))
        if not (lo <= default <= hi and lo < hi and c_end > 0 and r_end > 0):
            raise SpsaError("parameter line %d needs min <= default <= max, min < max and "
                            "c_end, r_end > 0: %r" % (number, line))
        params.append(Param(fields[0], fields[1], default, lo, hi, c_end, r_end))
    if not params:
        raise SpsaError("no parameters to tune")
    names = [p.name for p in params]
    if len(set(names)) != len(names):
        raise SpsaError("a parameter is listed twice")
    return params


def engine_params(engine: str) -> List[Param]:
    """The parameter list of a `--features tune` build (`rookery tune-params`)."""
    try:
        proc = subprocess.run([engine, "tune-params"], capture_output=True, text=True, timeout=60)
    except OSError as err:
        raise SpsaError("cannot run %s: %s" % (engine, err))
    if proc.returncode != 0:
        raise SpsaError("%s tune-params failed: %s" % (engine, proc.stderr.strip()))
    if "no tuning options" in proc.stderr:
        raise SpsaError("%s is not a tuning build: build it with `cargo build --release "
                        "--features tune` (docs/tuning.md)" % engine)
    return parse_params(proc.stdout)


# --------------------------------------------------------------------------
# Schedule and update
# --------------------------------------------------------------------------

@dataclass
class Schedule:
    iterations: int
    alpha: float = 0.602
    gamma: float = 0.101
    a_ratio: float = 0.1

    @property
    def big_a(self) -> float:
        return self.a_ratio * self.iterations

    def c_k(self, p: Param, k: int) -> float:
        """The perturbation at iteration k (1-based): c_end at the last one."""
        c = p.c_end * self.iterations ** self.gamma
        return c / k ** self.gamma

    def a_k(self, p: Param, k: int) -> float:
        """The step numerator at iteration k: a_N / c_N^2 = r_end at the last one."""
        a = p.r_end * p.c_end ** 2 * (self.big_a + self.iterations) ** self.alpha
        return a / (self.big_a + k) ** self.alpha

    def r_k(self, p: Param, k: int) -> float:
        return self.a_k(p, k) / self.c_k(p, k) ** 2


def clamp(p: Param, value: float) -> float:
    return min(p.max, max(p.min, value))


def engine_value(p: Param, value: float):
    """What the engine is sent: within range, rounded (half away from zero) for an int."""
    value = clamp(p, value)
    if p.kind == "int":
        return int(math.floor(value + 0.5)) if value >= 0 else -int(math.floor(-value + 0.5))
    return value


def signs(seed: int, k: int, count: int) -> List[int]:
    """Iteration k's perturbation signs: from (seed, k) alone, so that a resumed run draws
    the same ones as an uninterrupted run."""
    rng = random.Random("spsa-signs:%d:%d" % (seed, k))
    return [rng.choice((-1, 1)) for _ in range(count)]


def perturbed(params: Sequence[Param], theta: Dict[str, float], schedule: Schedule, k: int,
              delta: Sequence[int]) -> Tuple[Dict[str, object], Dict[str, object]]:
    plus, minus = {}, {}
    for p, d in zip(params, delta):
        c = schedule.c_k(p, k)
        plus[p.name] = engine_value(p, theta[p.name] + c * d)
        minus[p.name] = engine_value(p, theta[p.name] - c * d)
    return plus, minus


def update(params: Sequence[Param], theta: Dict[str, float], schedule: Schedule, k: int,
           delta: Sequence[int], result: int) -> Dict[str, float]:
    """theta + r_k * c_k * result * delta (result: theta+'s wins minus losses), clamped."""
    out = dict(theta)
    for p, d in zip(params, delta):
        step = schedule.r_k(p, k) * schedule.c_k(p, k) * result * d
        out[p.name] = clamp(p, theta[p.name] + step)
    return out


# --------------------------------------------------------------------------
# Games
# --------------------------------------------------------------------------

class FakeGames:
    """A synthetic outcome model: a parameter set loses `elo_per_c_end` * ((theta -
    optimum) / c_end)^2 Elo per parameter; game results follow the logistic Elo model
    with a fixed draw share. Tests the optimiser without an engine."""

    def __init__(self, params: Sequence[Param], optimum: Dict[str, float], draw_rate: float = 0.4,
                 elo_per_c_end: float = 2.0):
        self.params = params
        self.optimum = optimum
        self.draw_rate = draw_rate
        self.elo_per_c_end = elo_per_c_end

    def elo(self, values: Dict[str, object]) -> float:
        return -sum(self.elo_per_c_end * ((float(values[p.name]) - self.optimum[p.name]) / p.c_end) ** 2
                    for p in self.params)

    def play(self, plus: Dict[str, object], minus: Dict[str, object], pairs: int, seed: int,
             k: int) -> Tuple[int, int, int]:
        rng = random.Random("spsa-games:%d:%d" % (seed, k))
        diff = self.elo(plus) - self.elo(minus)
        p_score = 1.0 / (1.0 + 10 ** (-diff / 400.0))
        # Decisive games split so that the expected score is p_score.
        p_win = max(0.0, min(1.0 - self.draw_rate, p_score - self.draw_rate / 2))
        p_loss = 1.0 - self.draw_rate - p_win
        w = d = l = 0
        for _ in range(2 * pairs):
            x = rng.random()
            if x < p_win:
                w += 1
            elif x < p_win + p_loss:
                l += 1
            else:
                d += 1
        return w, d, l


def match_command(args, plus: Dict[str, object], minus: Dict[str, object], seed: int, k: int,
                  results: str) -> List[str]:
    cmd = [sys.executable, MATCH,
           "rookery:%s,name=theta+" % args.engine, "rookery:%s,name=theta-" % args.engine,
           "--rounds", str(args.pairs), "-c", str(args.concurrency),
           "--openings", args.openings, "--shuffle", "--seed", str(seed * 100003 + k),
           "--results", results, "--engine-stderr", "discard", "--no-comments"]
    if args.nodes:
        cmd += ["--nodes", str(args.nodes)]
    else:
        cmd += ["--tc", args.tc]
    for name, value in plus.items():
        cmd += ["--option1", "%s=%s" % (name, value)]
    for name, value in minus.items():
        cmd += ["--option2", "%s=%s" % (name, value)]
    return cmd


def play_match(args, plus, minus, seed: int, k: int) -> Tuple[int, int, int]:
    with tempfile.TemporaryDirectory(prefix="spsa-") as tmp:
        results = os.path.join(tmp, "results.jsonl")
        cmd = match_command(args, plus, minus, seed, k, results)
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0 or not os.path.exists(results):
            raise SpsaError("match.py failed (exit %d) at iteration %d:\n%s%s"
                            % (proc.returncode, k, proc.stdout[-3000:], proc.stderr[-3000:]))
        with open(results, encoding="utf-8") as fh:
            summary = json.loads(fh.readline())
    if summary["games"] != 2 * args.pairs:
        raise SpsaError("iteration %d finished %d of %d games" % (k, summary["games"], 2 * args.pairs))
    return summary["wins"], summary["draws"], summary["losses"]


# --------------------------------------------------------------------------
# State
# --------------------------------------------------------------------------

def new_state(params: Sequence[Param], settings: Dict) -> Dict:
    return {"version": STATE_VERSION, "settings": settings, "params": [asdict(p) for p in params],
            "theta": {p.name: p.default for p in params}, "done": 0, "wdl": [0, 0, 0], "history": []}


def load_state(path: str, params: Sequence[Param], settings: Dict) -> Optional[Dict]:
    if not os.path.exists(path):
        return None
    try:
        with open(path, encoding="utf-8") as fh:
            state = json.load(fh)
    except (OSError, ValueError) as err:
        raise SpsaError("cannot read the state file %s: %s" % (path, err))
    if state.get("version") != STATE_VERSION:
        raise SpsaError("%s is not a state file of this script (version %r)" % (path, state.get("version")))
    if state["settings"] != settings or state["params"] != [asdict(p) for p in params]:
        changed = sorted(k for k in set(settings) | set(state["settings"])
                         if settings.get(k) != state["settings"].get(k))
        what = ", ".join(changed) if changed else "the parameter list"
        raise SpsaError("%s was written with other settings (%s): resume with the same ones, "
                        "or give another --state (or --restart)" % (path, what))
    return state


def save_state(path: str, state: Dict) -> None:
    """Atomically: a run killed while writing keeps the previous iteration's state."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".spsa-state-", dir=directory)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(state, fh, indent=1)
        fh.write("\n")
    os.replace(tmp, path)


# --------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------

def progress(done: int, total: int, wdl: Sequence[int], started: float, first: int) -> str:
    width = 30
    filled = int(width * done / total)
    elapsed = time.time() - started
    rate = (done - first) / elapsed if elapsed > 0 and done > first else 0.0
    eta = "%ds" % ((total - done) / rate) if rate else "?"
    return "\r[%s%s] %d/%d iterations  theta+ W-D-L %d-%d-%d  eta %s " % (
        "#" * filled, "." * (width - filled), done, total, wdl[0], wdl[1], wdl[2], eta)


def declaration_name(name: str) -> Tuple[str, float]:
    """The params.rs name of a UCI option and the option's units per declared unit."""
    return (name[:-5], 100.0) if name.endswith("_x100") else (name, 1.0)


def patch_defaults(params: Sequence[Param], theta: Dict[str, float], source: str) -> str:
    """Rewrites the defaults in params.rs's `tunables!` declarations to the tuned values."""
    out = source
    for p in params:
        decl, scale = declaration_name(p.name)
        value = engine_value(p, theta[p.name])
        text = ("%g" % (value / scale)) if scale != 1.0 else str(value)
        if scale != 1.0 and "." not in text:
            text += ".0"
        out = re.sub(r"(^\s*%s: \w+ = )(-?[0-9][0-9._]*)(,)" % re.escape(decl),
                     lambda m: m.group(1) + text + m.group(3), out, count=1, flags=re.M)
    return out


def report(params: Sequence[Param], state: Dict, params_rs: str) -> str:
    lines = ["", "Tuned values after %d iterations (theta+ W-D-L %d-%d-%d):"
             % (state["done"], *state["wdl"]),
             "%-28s %10s %12s %10s" % ("parameter", "default", "theta", "tuned")]
    for p in params:
        t = state["theta"][p.name]
        lines.append("%-28s %10g %12.3f %10s" % (p.name, p.default, t, engine_value(p, t)))
    lines.append("")
    lines.append("OpenBench-style result: " + ", ".join(
        "%s=%s" % (p.name, engine_value(p, state["theta"][p.name])) for p in params))
    if os.path.exists(params_rs):
        with open(params_rs, encoding="utf-8") as fh:
            source = fh.read()
        patched = patch_defaults(params, state["theta"], source)
        diff = "".join(difflib.unified_diff(source.splitlines(True), patched.splitlines(True),
                                            "a/src/search/params.rs", "b/src/search/params.rs"))
        lines.append("")
        lines.append("Patch of the defaults (git apply; then SPRT it, docs/tuning.md):"
                     if diff else "The tuned values round to the current defaults: nothing to patch.")
        if diff:
            lines.append(diff.rstrip("\n"))
    return "\n".join(lines)


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="spsa.py", description=__doc__.split("\n\n")[0],
                                epilog="See the module docstring and docs/tuning.md.",
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--engine", default=os.path.join(REPO, "target", "tune", "release", "rookery"),
                   help="a `--features tune` Rookery build (default target/tune/release/rookery)")
    p.add_argument("--params-file", help="OpenBench SPSA input to tune instead of the engine's "
                                         "`tune-params` (needed with --fake-games and no engine)")
    p.add_argument("--only", help="comma-separated parameter names: tune only these")
    p.add_argument("--iterations", type=int, default=1000, help="SPSA iterations N (default 1000)")
    p.add_argument("--pairs", type=int, default=4, help="game pairs per iteration (default 4)")
    limits = p.add_mutually_exclusive_group()
    limits.add_argument("--tc", default="8+0.08", help="time control (default 8+0.08)")
    limits.add_argument("--nodes", type=int, help="fixed nodes per move instead of a clock")
    p.add_argument("--concurrency", "-c", type=int, default=1, help="games at once (default 1)")
    p.add_argument("--openings", default=DEFAULT_OPENINGS,
                   help="opening book for match.py (default openings/8moves_v3.pgn.gz)")
    p.add_argument("--seed", type=int, default=1, help="seed of the perturbation signs (default 1)")
    p.add_argument("--alpha", type=float, default=0.602, help="a_k decay exponent (default 0.602)")
    p.add_argument("--gamma", type=float, default=0.101, help="c_k decay exponent (default 0.101)")
    p.add_argument("--a-ratio", type=float, default=0.1, help="A as a share of N (default 0.1)")
    p.add_argument("--state", default="spsa-state.json", help="state file (default spsa-state.json)")
    p.add_argument("--restart", action="store_true", help="ignore an existing state file")
    p.add_argument("--stop-after", type=int, metavar="K",
                   help="stop after K iterations of this run (resume later with the same command)")
    p.add_argument("--fake-games", action="store_true",
                   help="synthetic game results instead of matches (tests the optimiser)")
    p.add_argument("--fake-optimum", metavar="NAME=VALUE,...",
                   help="the fake model's optimum (default: each range's midpoint)")
    p.add_argument("--fake-elo", type=float, default=2.0, metavar="ELO",
                   help="the fake model's Elo loss one c_end from the optimum, per parameter "
                        "(default 2)")
    p.add_argument("--params-rs", default=PARAMS_RS, help=argparse.SUPPRESS)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def parse_assignments(text: Optional[str]) -> Dict[str, float]:
    out = {}
    for item in (text or "").split(","):
        if not item.strip():
            continue
        name, sep, value = item.partition("=")
        try:
            out[name.strip()] = float(value)
        except ValueError:
            sep = ""
        if not sep:
            raise SpsaError("expected NAME=VALUE, got %r" % item)
    return out


def run(argv: Optional[Sequence[str]] = None) -> Dict:
    args = build_parser().parse_args(argv)
    if args.iterations < 1 or args.pairs < 1 or args.concurrency < 1:
        raise SpsaError("--iterations, --pairs and --concurrency must be at least 1")
    if args.nodes is not None and args.nodes < 1:
        raise SpsaError("--nodes must be at least 1")
    if args.params_file:
        try:
            with open(args.params_file, encoding="utf-8") as fh:
                params = parse_params(fh.read())
        except OSError as err:
            raise SpsaError("cannot read %s: %s" % (args.params_file, err))
    else:
        params = engine_params(args.engine)
    if args.only:
        wanted = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in wanted if n not in {p.name for p in params}]
        if unknown:
            raise SpsaError("unknown parameter(s): %s" % ", ".join(unknown))
        params = [p for p in params if p.name in wanted]
    if not args.fake_games and not os.path.isfile(args.openings):
        raise SpsaError("openings file not found: %s" % args.openings)

    fake = None
    if args.fake_games:
        optimum = {p.name: (p.min + p.max) / 2 for p in params}
        given = parse_assignments(args.fake_optimum)
        unknown = sorted(set(given) - set(optimum))
        if unknown:
            raise SpsaError("--fake-optimum names unknown parameter(s): %s" % ", ".join(unknown))
        optimum.update(given)
        fake = FakeGames(params, optimum, elo_per_c_end=args.fake_elo)

    schedule = Schedule(args.iterations, args.alpha, args.gamma, args.a_ratio)
    settings = {"iterations": args.iterations, "pairs": args.pairs, "seed": args.seed,
                "alpha": args.alpha, "gamma": args.gamma, "a_ratio": args.a_ratio,
                "limit": "fake" if fake else ("nodes=%d" % args.nodes if args.nodes else "tc=" + args.tc),
                "optimum": fake.optimum if fake else None,
                "fake_elo": args.fake_elo if fake else None}
    state = None if args.restart else load_state(args.state, params, settings)
    if state is None:
        state = new_state(params, settings)
    elif not args.quiet:
        print("Resuming %s at iteration %d of %d" % (args.state, state["done"] + 1, args.iterations),
              file=sys.stderr)

    started, first = time.time(), state["done"]
    ran = 0
    while state["done"] < args.iterations and (args.stop_after is None or ran < args.stop_after):
        k = state["done"] + 1
        delta = signs(args.seed, k, len(params))
        plus, minus = perturbed(params, state["theta"], schedule, k, delta)
        if fake:
            w, d, l = fake.play(plus, minus, args.pairs, args.seed, k)
        else:
            w, d, l = play_match(args, plus, minus, args.seed, k)
        state["theta"] = update(params, state["theta"], schedule, k, delta, w - l)
        state["done"] = k
        state["wdl"] = [state["wdl"][0] + w, state["wdl"][1] + d, state["wdl"][2] + l]
        state["history"].append({"k": k, "wdl": [w, d, l]})
        save_state(args.state, state)
        ran += 1
        if not args.quiet:
            sys.stderr.write(progress(k, args.iterations, state["wdl"], started, first))
            sys.stderr.flush()
    if not args.quiet:
        sys.stderr.write("\n")
    if state["done"] >= args.iterations or not args.quiet:
        print(report(params, state, args.params_rs))
    return state


def main(argv: Optional[Sequence[str]] = None) -> int:
    try:
        run(argv)
    except SpsaError as err:
        print("error: %s" % err, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted: the state file holds the last finished iteration; run the same "
              "command again to resume", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())

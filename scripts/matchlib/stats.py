"""Match statistics: Elo from scores, trinomial and pentanomial error bars, LOS, SPRT
log-likelihood ratios, and the rating fit. Pure functions, tested by scripts/test_match.py."""

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


# --------------------------------------------------------------------------
# Statistics (pure functions; tested by scripts/test_match.py)
# --------------------------------------------------------------------------

Z95 = 1.959963984540054
PENTA_VALUES = (0.0, 0.25, 0.5, 0.75, 1.0)  # pair score / 2


def score_from_elo(elo: float) -> float:
    """Expected score for a logistic Elo difference."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_from_score(score: float) -> float:
    """Logistic Elo difference for an expected score in (0, 1)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def _mean_var(values: Sequence[float], counts: Sequence[float]) -> Tuple[float, float, float]:
    n = float(sum(counts))
    if n <= 0:
        return 0.0, 0.5, 0.0
    mean = sum(v * c for v, c in zip(values, counts)) / n
    var = sum(c * (v - mean) ** 2 for v, c in zip(values, counts)) / n
    return n, mean, var


def _elo_interval(mean: float, se: float) -> Tuple[float, float, float]:
    """(elo, lower, upper) for a score mean with standard error se (95%)."""
    lo = min(max(mean - Z95 * se, 0.0), 1.0)
    hi = min(max(mean + Z95 * se, 0.0), 1.0)
    return elo_from_score(mean), elo_from_score(lo), elo_from_score(hi)


def trinomial_stats(wins: int, draws: int, losses: int) -> Dict[str, float]:
    """Score, Elo and 95% error from per-game results (games independent)."""
    n, mean, var = _mean_var((1.0, 0.5, 0.0), (wins, draws, losses))
    if n == 0:
        return {"n": 0, "score": math.nan, "elo": math.nan, "err": math.nan, "lo": math.nan, "hi": math.nan}
    se = math.sqrt(var / n)
    elo, lo, hi = _elo_interval(mean, se)
    # Zero variance (e.g. every pair 1-1) gives no usable error bar: report nan, not 0.
    err = (hi - lo) / 2.0 if var > 0 else math.nan
    return {"n": n, "score": mean, "elo": elo, "lo": lo, "hi": hi, "err": err}


def pentanomial_stats(penta: Sequence[int]) -> Dict[str, float]:
    """Score, Elo and 95% error from game-pair results.

    penta[k] = number of pairs (same opening, colours reversed) in which
    engine 1 scored k/2 points, k = 0..4 (i.e. LL, LD, DD or WL, WD, WW).
    Treating pairs as the independent unit accounts for the correlation
    between the two games of an opening, which per-game (trinomial) error bars
    ignore.
    """
    n, mean, var = _mean_var(PENTA_VALUES, penta)
    if n == 0:
        return {"n": 0, "score": math.nan, "elo": math.nan, "err": math.nan, "lo": math.nan, "hi": math.nan}
    se = math.sqrt(var / n)
    elo, lo, hi = _elo_interval(mean, se)
    # Zero variance (e.g. every pair 1-1) gives no usable error bar: report nan, not 0.
    err = (hi - lo) / 2.0 if var > 0 else math.nan
    return {"n": n, "score": mean, "elo": elo, "lo": lo, "hi": hi, "err": err}


def combine_runs(runs: Sequence[Dict]) -> Dict:
    """Totals of several match.py summaries of the same pairing (the parts of a match
    played in more than one run): games, wins, draws, losses, the pentanomial counts,
    each side's error counts by kind, and the pentanomial statistics of the whole."""
    penta = [sum(r["penta"][k] for r in runs) for k in range(5)]
    total: Dict = {k: sum(r[k] for r in runs) for k in ("games", "wins", "draws", "losses")}
    for side in ("errors1", "errors2"):
        counts: Dict[str, int] = {}
        for r in runs:
            for kind, n in r.get(side, {}).items():
                counts[kind] = counts.get(kind, 0) + n
        total[side] = counts
    total["penta"] = penta
    total["stats"] = pentanomial_stats(penta)
    return total


def los(wins: int, losses: int) -> float:
    """Likelihood of superiority (draws ignored), normal approximation."""
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))


def sprt_bounds(alpha: float, beta: float) -> Tuple[float, float]:
    """(lower, upper) LLR bounds: accept H0 at <= lower, H1 at >= upper."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def _regularize(counts: Sequence[float]) -> List[float]:
    # Zero buckets get 1e-3 pseudo-counts (as fishtest/OpenBench do) so that no
    # outcome has probability 0 and the variance never vanishes.
    return [max(1e-3, float(c)) for c in counts]


def _llr_normal(values: Sequence[float], counts: Sequence[float], elo0: float, elo1: float) -> float:
    """GSPRT log-likelihood ratio, normal approximation (logistic Elo bounds).

    LLR = N * (s1 - s0) * (2*mean - s0 - s1) / (2 * var), M. Van den Bergh's
    approximation as used by OpenBench. Degenerate for very small samples
    (tiny variance gives a huge LLR), see _llr_exact.
    """
    if sum(counts) == 0:
        return 0.0
    n, mean, var = _mean_var(values, _regularize(counts))
    if var <= 0:
        return 0.0
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    return n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)


def _mle_constrained(values: Sequence[float], probs: Sequence[float], s: float) -> List[float]:
    """Distribution q maximising sum(p_i log q_i) subject to sum(q_i v_i) = s.

    q_i = p_i / (1 + x (v_i - s)), with x the root of sum(p_i (v_i - s) / (1 + x (v_i - s))) = 0
    (monotone decreasing in x on the interval where every denominator is positive).
    """
    d = [v - s for v in values]
    dmax, dmin = max(d), min(d)
    if dmax <= 0 or dmin >= 0:  # s outside the range of values; cannot happen for 0 < s < 1
        return list(probs)
    lo, hi = -1.0 / dmax, -1.0 / dmin
    eps = 1e-12 * (hi - lo)
    lo, hi = lo + eps, hi - eps

    def f(x: float) -> float:
        return sum(p * di / (1.0 + x * di) for p, di in zip(probs, d))

    for _ in range(200):
        mid = (lo + hi) / 2.0
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
    x = (lo + hi) / 2.0
    q = [p / (1.0 + x * di) for p, di in zip(probs, d)]
    t = sum(q)
    return [qi / t for qi in q]


def _llr_exact(values: Sequence[float], counts: Sequence[float], elo0: float, elo1: float) -> float:
    """Generalised SPRT log-likelihood ratio as computed by fishtest (LLR_logistic).

    The outcome distribution under H0 / H1 is the maximum-likelihood
    distribution whose expected score is s0 / s1 (logistic Elo bounds), and
    LLR = N * sum(p_i * ln(q1_i / q0_i)) with p the (regularised) observed
    frequencies. Agrees with the normal approximation for large N but stays
    sane for a handful of games.
    """
    if sum(counts) == 0:
        return 0.0
    reg = _regularize(counts)
    n = sum(reg)
    p = [c / n for c in reg]
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    q0 = _mle_constrained(values, p, s0)
    q1 = _mle_constrained(values, p, s1)
    return n * sum(pi * math.log(b / a) for pi, a, b in zip(p, q0, q1))


def llr_trinomial(wins: int, draws: int, losses: int, elo0: float, elo1: float, exact: bool = True) -> float:
    f = _llr_exact if exact else _llr_normal
    return f((1.0, 0.5, 0.0), (wins, draws, losses), elo0, elo1)


def llr_pentanomial(penta: Sequence[int], elo0: float, elo1: float, exact: bool = True) -> float:
    f = _llr_exact if exact else _llr_normal
    return f(PENTA_VALUES, penta, elo0, elo1)


def estimate_rating(records: Sequence[Tuple[float, float, float]]) -> Optional[Dict[str, float]]:
    """Maximum-likelihood rating from (opponent_rating, points, games) records.

    Each game is treated as a Bernoulli trial with expected score
    E = 1 / (1 + 10^((R_opp - R)/400)) (draws count as half a point on each
    side). Solves sum(points_i - games_i * E_i) = 0 by bisection; the 95%
    interval comes from the Fisher information sum(games_i * E_i * (1 - E_i)) *
    (ln 10 / 400)^2, which is slightly conservative when there are draws.
    """
    recs = [(float(r), float(p), float(n)) for r, p, n in records if n > 0]
    if not recs:
        return None
    total_points = sum(p for _, p, _ in recs)
    total_games = sum(n for _, _, n in recs)

    def grad(rating: float) -> float:
        return sum(p - n * score_from_elo(rating - r) for r, p, n in recs)

    lo = min(r for r, _, _ in recs) - 1500.0
    hi = max(r for r, _, _ in recs) + 1500.0
    bounded = True
    if total_points <= 0:
        rating, bounded = lo, False
    elif total_points >= total_games:
        rating, bounded = hi, False
    else:
        for _ in range(200):
            mid = (lo + hi) / 2.0
            if grad(mid) > 0:
                lo = mid
            else:
                hi = mid
        rating = (lo + hi) / 2.0
    k = math.log(10.0) / 400.0
    info = sum(n * score_from_elo(rating - r) * (1.0 - score_from_elo(rating - r)) for r, _, n in recs) * k * k
    se = 1.0 / math.sqrt(info) if info > 0 else math.inf
    return {"rating": rating, "err": Z95 * se, "games": total_games, "points": total_points, "bounded": bounded}


def fmt_elo(x: float) -> str:
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return "%+.1f" % (x + 0.0)

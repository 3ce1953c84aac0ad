//! What a score means to a player: the win/draw/loss model fitted to Rookery's own
//! self-play games (`scripts/fit_wdl.py`), and the normalisation of the reported `cp`
//! so that 100 means a 50 % chance to win at typical middlegame material (Stockfish's
//! convention since 15.1). The search keeps its internal scale; only output changes.

use cozy_chess::{Board, Piece};

/// `a(m)` and `b(m)` of the model, cubic in material / 58: the side to move wins with
/// probability 1 / (1 + exp((a − v) / b)) from internal score v. Fitted by
/// `scripts/fit_wdl.py data/gen9/seed1.vf data/gen9/seed2.vf data/gen9/seed3.vf`
/// (1,430,309 positions of rookery-gen9-sq's self-play games at 5,000 nodes). Each net
/// has its own scale: docs/net.md ("WDL model") records the fit and its checks against
/// later nets' games.
pub const WDL_A: [f64; 4] = [423.343, -359.912, -687.341, 756.334];
pub const WDL_B: [f64; 4] = [147.117, -60.935, -281.331, 298.412];
/// a(58): the internal score at which the side to move wins half its games.
pub const NORMALIZE_TO_PAWN: i32 = 132;

fn poly(c: &[f64; 4], x: f64) -> f64 {
    ((c[0] * x + c[1]) * x + c[2]) * x + c[3]
}

/// Material on the board, P=1 N=B=3 R=5 Q=9, as the model counts it (clamped to 17..78).
pub fn material(board: &Board) -> i32 {
    let count = |p| board.pieces(p).len() as i32;
    let m = count(Piece::Pawn)
        + 3 * (count(Piece::Knight) + count(Piece::Bishop))
        + 5 * count(Piece::Rook)
        + 9 * count(Piece::Queen);
    m.clamp(17, 78)
}

/// Win, draw and loss chances in per mille for the side to move, from an internal score
/// that is not a mate or tablebase score.
pub fn wdl(score: i32, material: i32) -> (i32, i32, i32) {
    let m = material.clamp(17, 78) as f64 / 58.0;
    let a = poly(&WDL_A, m);
    let b = poly(&WDL_B, m).max(1.0);
    let v = score as f64;
    let win = (1000.0 / (1.0 + ((a - v) / b).exp())).round() as i32;
    let loss = (1000.0 / (1.0 + ((a + v) / b).exp())).round() as i32;
    (win, 1000 - win - loss, loss)
}

/// The expected result (win 1, draw ½, loss 0) for the side to move from an internal
/// score that is not a mate or tablebase score: what MCTS backs up from a leaf.
pub fn expected_score(score: i32, material: i32) -> f64 {
    let m = material.clamp(17, 78) as f64 / 58.0;
    let a = poly(&WDL_A, m);
    let b = poly(&WDL_B, m).max(1.0);
    let v = score as f64;
    let win = 1.0 / (1.0 + ((a - v) / b).exp());
    let loss = 1.0 / (1.0 + ((a + v) / b).exp());
    win + (1.0 - win - loss) / 2.0
}

/// The internal score whose [`expected_score`] is `expected` (the model's inverse, by
/// bisection: it is monotone), within ±`limit`. MCTS reports its Q through this, so both
/// searches' `cp` mean the same.
pub fn score_from_expected(expected: f64, material: i32, limit: i32) -> i32 {
    // Certain results map to the ends (the model saturates before them).
    if expected >= 1.0 {
        return limit;
    }
    if expected <= 0.0 {
        return -limit;
    }
    let (mut lo, mut hi) = (-limit, limit);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if expected_score(mid, material) < expected {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The `cp` users see for an internal score: 100 = a 50 % chance to win.
pub fn normalized_cp(score: i32) -> i32 {
    (score as i64 * 100 / NORMALIZE_TO_PAWN as i64) as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_normalized_pawn_wins_half_the_time_at_typical_material() {
        let (w, d, l) = wdl(NORMALIZE_TO_PAWN, 58);
        assert!((w - 500).abs() <= 5, "{w} {d} {l}");
        assert_eq!(normalized_cp(NORMALIZE_TO_PAWN), 100);
        assert_eq!(normalized_cp(-NORMALIZE_TO_PAWN), -100);
    }

    #[test]
    fn the_model_is_symmetric_and_monotone() {
        for m in [17, 40, 58, 78] {
            let mut last_win = -1;
            for v in (-1000..=1000).step_by(50) {
                let (w, d, l) = wdl(v, m);
                let (w2, d2, l2) = wdl(-v, m);
                assert_eq!((w, d, l), (l2, d2, w2), "v {v} m {m}");
                assert!(d >= 0 && w >= last_win, "v {v} m {m}: {w} {d} {l}");
                last_win = w;
            }
        }
        assert_eq!(material(&Board::default()), 78);
    }

    #[test]
    fn expected_score_inverts_and_agrees_with_the_per_mille_model() {
        for m in [17, 40, 58, 78] {
            for v in (-900..=900).step_by(100) {
                let e = expected_score(v, m);
                let (w, d, _) = wdl(v, m);
                assert!((e - (w as f64 + d as f64 / 2.0) / 1000.0).abs() < 0.002);
                assert!(
                    (score_from_expected(e, m, 20_000) - v).abs() <= 1,
                    "v {v} m {m}"
                );
            }
            assert_eq!(score_from_expected(1.0, m, 5000), 5000);
            assert_eq!(score_from_expected(0.0, m, 5000), -5000);
        }
    }
}

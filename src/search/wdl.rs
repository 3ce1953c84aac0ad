//! What a score means to a player: the win/draw/loss model fitted to Rookery's own
//! self-play games (`scripts/fit_wdl.py`) — one to report with, one that the engine's
//! trained and tuned parts read — and the normalisation of the reported `cp`
//! so that 100 means a 50 % chance to win at typical middlegame material (Stockfish's
//! convention since 15.1). The search keeps its internal scale; only output changes.

use cozy_chess::{Board, Piece};

/// A win/draw/loss model: from internal score v at material m, the side to move wins
/// with probability 1 / (1 + exp((a − v) / b)) and loses with 1 / (1 + exp((a + v) / b)),
/// where `a(m)` and `b(m)` are cubic in m / 58 (highest power first), as fitted by
/// `scripts/fit_wdl.py` on self-play games at 5,000 nodes a move.
pub struct WdlModel {
    pub a: [f64; 4],
    pub b: [f64; 4],
}

/// The model Rookery reports with (`score cp`, `wdl` under `UCI_ShowWDL`, `eval`): the fit
/// to the embedded net's own games (`scripts/fit_wdl.py data/gen18/seed1-part3.vf
/// data/gen18/seed1-part4.vf`, 1,824,196 positions of rookery-gen18's games at 5,000
/// nodes, 30 % of them from Chess960 starts). Each net has its own scale, so it is
/// refitted when a net is embedded (docs/net.md, "WDL model").
pub const REPORTED: WdlModel = WdlModel {
    a: [522.759, -360.705, -1022.092, 1009.969],
    b: [198.961, -68.738, -397.478, 418.846],
};
/// a(58) of [`REPORTED`] (the sum of its `a`, rounded): the internal score at which the side to move wins half its games
/// at typical middlegame material, reported as `cp 100`.
pub const NORMALIZE_TO_PAWN: i32 =
    (REPORTED.a[0] + REPORTED.a[1] + REPORTED.a[2] + REPORTED.a[3] + 0.5) as i32;

/// The model through which MCTS backs up a leaf's value and from which the human model's
/// combiner features and guard read expected results: the fit to rookery-gen9-sq's games
/// (`scripts/fit_wdl.py data/gen9/seed1.vf data/gen9/seed2.vf data/gen9/seed3.vf`,
/// 1,430,309 positions). The combiner was trained and the guard's margins and the MCTS
/// constants were tuned with it, so it changes only when they are retrained and retuned.
pub const VALUE: WdlModel = WdlModel {
    a: [423.343, -359.912, -687.341, 756.334],
    b: [147.117, -60.935, -281.331, 298.412],
};

fn poly(c: &[f64; 4], x: f64) -> f64 {
    ((c[0] * x + c[1]) * x + c[2]) * x + c[3]
}

/// Material on the board, P=1 N=B=3 R=5 Q=9, as the models count it (clamped to 17..78).
pub fn material(board: &Board) -> i32 {
    let count = |p| board.pieces(p).len() as i32;
    let m = count(Piece::Pawn)
        + 3 * (count(Piece::Knight) + count(Piece::Bishop))
        + 5 * count(Piece::Rook)
        + 9 * count(Piece::Queen);
    m.clamp(17, 78)
}

impl WdlModel {
    /// Chances to win and to lose for the side to move.
    fn win_loss(&self, score: i32, material: i32) -> (f64, f64) {
        let m = material.clamp(17, 78) as f64 / 58.0;
        let a = poly(&self.a, m);
        let b = poly(&self.b, m).max(1.0);
        let v = score as f64;
        (
            1.0 / (1.0 + ((a - v) / b).exp()),
            1.0 / (1.0 + ((a + v) / b).exp()),
        )
    }

    /// Win, draw and loss chances in per mille for the side to move, from an internal
    /// score that is not a mate or tablebase score.
    pub fn wdl(&self, score: i32, material: i32) -> (i32, i32, i32) {
        let (win, loss) = self.win_loss(score, material);
        let (win, loss) = (
            (1000.0 * win).round() as i32,
            (1000.0 * loss).round() as i32,
        );
        (win, 1000 - win - loss, loss)
    }

    /// The expected result (win 1, draw ½, loss 0) for the side to move from an internal
    /// score that is not a mate or tablebase score.
    pub fn expected_score(&self, score: i32, material: i32) -> f64 {
        let (win, loss) = self.win_loss(score, material);
        win + (1.0 - win - loss) / 2.0
    }

    /// The internal score whose [`expected_score`](Self::expected_score) is `expected` (the
    /// model's inverse, by bisection: it is monotone), within ±`limit`.
    pub fn score_from_expected(&self, expected: f64, material: i32, limit: i32) -> i32 {
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
            if self.expected_score(mid, material) < expected {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }
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
        let (w, d, l) = REPORTED.wdl(NORMALIZE_TO_PAWN, 58);
        assert!((w - 500).abs() <= 5, "{w} {d} {l}");
        assert_eq!(normalized_cp(NORMALIZE_TO_PAWN), 100);
        assert_eq!(normalized_cp(-NORMALIZE_TO_PAWN), -100);
    }

    #[test]
    fn the_models_are_symmetric_and_monotone() {
        for (model, m) in [&REPORTED, &VALUE]
            .into_iter()
            .flat_map(|x| [17, 40, 58, 78].map(|m| (x, m)))
        {
            let mut last_win = -1;
            for v in (-1000..=1000).step_by(50) {
                let (w, d, l) = model.wdl(v, m);
                let (w2, d2, l2) = model.wdl(-v, m);
                assert_eq!((w, d, l), (l2, d2, w2), "v {v} m {m}");
                assert!(d >= 0 && w >= last_win, "v {v} m {m}: {w} {d} {l}");
                last_win = w;
            }
        }
        assert_eq!(material(&Board::default()), 78);
    }

    #[test]
    fn expected_score_inverts_and_agrees_with_the_per_mille_model() {
        for (model, m) in [&REPORTED, &VALUE]
            .into_iter()
            .flat_map(|x| [17, 40, 58, 78].map(|m| (x, m)))
        {
            for v in (-900..=900).step_by(100) {
                let e = model.expected_score(v, m);
                let (w, d, _) = model.wdl(v, m);
                assert!((e - (w as f64 + d as f64 / 2.0) / 1000.0).abs() < 0.002);
                assert!(
                    (model.score_from_expected(e, m, 20_000) - v).abs() <= 1,
                    "v {v} m {m}"
                );
            }
            assert_eq!(model.score_from_expected(1.0, m, 5000), 5000);
            assert_eq!(model.score_from_expected(0.0, m, 5000), -5000);
        }
    }
}

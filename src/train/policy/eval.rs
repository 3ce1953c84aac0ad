//! How well a self-play policy predicts the alpha-beta search's move on held-out
//! positions (top-1 and top-3 agreement, cross-entropy), and what one evaluation costs.
//! Both use the engine's plain-Rust forward pass, not candle: the numbers are the
//! engine's.

use std::time::Instant;

use cozy_chess::{Board, Move};

use super::data::PositionSet;
use crate::policy::PolicyNet;
use crate::search::mcts::prior::Prior;

/// Agreement with the played moves.
#[derive(Clone, Copy, Debug, Default)]
pub struct Agreement {
    pub positions: usize,
    /// Expected hits: a tie with the played move is broken at random, so a prior that
    /// gives many moves one value gets a fraction of a hit, not a whole one.
    pub top1: f64,
    pub top3: f64,
    /// Sum of −ln p(played move).
    pub cross_entropy_sum: f64,
}

impl Agreement {
    pub fn top1_share(&self) -> f64 {
        self.top1 / self.positions.max(1) as f64
    }

    pub fn top3_share(&self) -> f64 {
        self.top3 / self.positions.max(1) as f64
    }

    pub fn cross_entropy(&self) -> f64 {
        self.cross_entropy_sum / self.positions.max(1) as f64
    }

    /// Counts one position whose played move scored `played` among `scores`.
    fn count(&mut self, scores: &[f32], played: f32) {
        let above = scores.iter().filter(|&&s| s > played).count() as f64;
        let tied = scores.iter().filter(|&&s| s == played).count() as f64; // itself included
                                                                           // Chance that the played move lands in the first k under a random tie order.
        let hit = |k: f64| ((k - above) / tied).clamp(0.0, 1.0);
        self.positions += 1;
        self.top1 += hit(1.0);
        self.top3 += hit(3.0);
    }

    /// One line for the log and the docs.
    pub fn render(&self) -> String {
        format!(
            "validation: {} positions, top-1 {:.1} %, top-3 {:.1} %, cross-entropy {:.4}",
            self.positions,
            100.0 * self.top1_share(),
            100.0 * self.top3_share(),
            self.cross_entropy()
        )
    }
}

/// The net's agreement with the played move on every position of `set`.
pub fn agreement(net: &PolicyNet, set: &PositionSet) -> Agreement {
    let mut acc = Agreement::default();
    let mut position = Vec::new();
    let mut logits = Vec::new();
    for i in 0..set.len() {
        net.position_vector(set.features(i), &mut position);
        logits.clear();
        let tactics = set.tactic_rows(i);
        logits.extend(set.move_rows(i).iter().enumerate().map(|(k, &rows)| {
            net.move_logit(&position, rows, tactics.get(k).copied().unwrap_or(0))
        }));
        let target = set.target[i] as usize;
        let played = logits[target];
        acc.count(&logits, played);
        let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let log_sum = logits
            .iter()
            .map(|l| ((l - max) as f64).exp())
            .sum::<f64>()
            .ln();
        acc.cross_entropy_sum += log_sum - (played - max) as f64;
    }
    acc
}

/// Agreement of any MCTS prior (the hand-written one, for comparison) with the moves
/// played in `samples`.
pub fn prior_agreement(prior: &dyn Prior, samples: &[(Board, Move)]) -> Agreement {
    let mut acc = Agreement::default();
    let mut probs = Vec::new();
    for (board, played) in samples {
        let moves = crate::policy::moves::legal_moves(board);
        let Some(target) = moves.iter().position(|m| m == played) else {
            continue;
        };
        prior.priors(board, &moves, &mut probs);
        let p = probs[target];
        acc.count(&probs, p);
        acc.cross_entropy_sum -= (p.max(1e-30) as f64).ln();
    }
    acc
}

/// A middlegame position (Italian game, move 4) for timing.
pub const TIMING_FEN: &str = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";

/// Nanoseconds per full evaluation of `board` (features, hidden layer, every legal
/// move's logit, softmax), one thread, best of three rounds of `reps`.
pub fn ns_per_evaluation(net: &PolicyNet, board: &Board, reps: usize) -> f64 {
    let mut best = f64::INFINITY;
    let moves = crate::policy::moves::legal_moves(board);
    let mut out = Vec::new();
    for _ in 0..3 {
        let t = Instant::now();
        for _ in 0..reps {
            net.logits(std::hint::black_box(board), &moves, &mut out);
            crate::policy::policy_net::softmax_in_place(&mut out, 1.0);
            std::hint::black_box(&out);
        }
        best = best.min(t.elapsed().as_nanos() as f64 / reps.max(1) as f64);
    }
    best
}

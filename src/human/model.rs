//! The human model: the prior (`policy::network`, from the position alone) combined
//! with Rookery's search scores and the moves' facts by the combiner
//! ([`super::combiner`]). One call searches the position once (every legal move, each
//! of [`DEPTHS`]) and gives every legal move its probability for a player of the asked
//! rating. The embedded combiner is part of the binary, as the prior is.

use std::time::Duration;

use cozy_chess::Move;
use once_cell::sync::Lazy;

use super::combiner::Combiner;
use super::features::{move_features, DEPTHS, MOVE_FEATURES};
use super::scores::{score_moves_within, MoveScores};
use crate::chess::Position;
use crate::policy::{default_prior, PriorNet, PriorQuery};
use crate::search::Searcher;

/// Name of the embedded combiner.
pub const DEFAULT_COMBINER_NAME: &str = "human-combiner-v2";
/// The embedded combiner (safetensors).
pub static DEFAULT_COMBINER: &[u8] = include_bytes!("../../nets/human-combiner-v2.safetensors");

static PARSED: Lazy<Combiner> = Lazy::new(|| {
    Combiner::from_bytes(DEFAULT_COMBINER)
        .unwrap_or_else(|e| panic!("the embedded combiner {DEFAULT_COMBINER_NAME} is invalid: {e}"))
});

/// The embedded combiner, parsed on first use.
pub fn default_combiner() -> &'static Combiner {
    &PARSED
}

/// Every legal move with what the model knows and says about it.
pub struct Prediction {
    pub moves: Vec<Move>,
    /// Probabilities (summing to 1) in `moves` order.
    pub probabilities: Vec<f32>,
    /// The prior's probabilities alone, for comparison.
    pub prior: Vec<f32>,
    pub scores: MoveScores,
    pub features: Vec<[f32; MOVE_FEATURES]>,
}

impl Prediction {
    /// The most likely move.
    pub fn top(&self) -> Option<(Move, f32)> {
        (0..self.moves.len())
            .max_by(|&a, &b| self.probabilities[a].total_cmp(&self.probabilities[b]))
            .map(|i| (self.moves[i], self.probabilities[i]))
    }
}

/// The nets a prediction uses (the embedded ones unless a file was named).
#[derive(Clone, Copy)]
pub struct HumanModel<'a> {
    pub prior: &'a PriorNet,
    pub combiner: &'a Combiner,
}

impl Default for HumanModel<'static> {
    fn default() -> Self {
        HumanModel {
            prior: default_prior(),
            combiner: default_combiner(),
        }
    }
}

impl HumanModel<'_> {
    /// Predicts the move of a player conditioned by `query` in `pos`; `None` when the
    /// game is over. `time` bounds the search: depths it did not reach read as the
    /// deepest one it did (a level short of time plays on shallower sight).
    pub fn predict(
        &self,
        searcher: &mut Searcher,
        pos: &Position,
        query: &PriorQuery,
        time: Option<Duration>,
    ) -> Option<Prediction> {
        if crate::chess::legal_moves(&pos.board).is_empty() {
            return None;
        }
        let scores = score_moves_within(searcher, pos, &DEPTHS, time);
        self.predict_from_scores(&pos.board, query, scores)
    }

    /// [`Self::predict`] from scores already searched (they do not depend on the
    /// rating, so one search serves every rating asked about).
    pub fn predict_from_scores(
        &self,
        board: &cozy_chess::Board,
        query: &PriorQuery,
        scores: MoveScores,
    ) -> Option<Prediction> {
        let prior = self.prior.probabilities(board, query);
        if prior.is_empty() || prior.len() != scores.moves.len() {
            return None;
        }
        let prior_log: Vec<f32> = prior.iter().map(|p| p.1.max(1e-12).ln()).collect();
        let features = move_features(board, &prior_log, &scores);
        let probabilities = self
            .combiner
            .probabilities(&features, query.mover_rating as f32);
        Some(Prediction {
            moves: scores.moves.clone(),
            probabilities,
            prior: prior.iter().map(|p| p.1).collect(),
            scores,
            features,
        })
    }
}

//! Move-policy networks over the legal moves of a position: the board and move encodings
//! ([`moves`]), the shape and rating buckets of the rating-conditioned human prior
//! ([`shape`]) and its plain-Rust forward pass ([`network`]) used by the engine and the
//! measurement commands, and the self-play policy that MCTS uses as its prior
//! ([`policy_net`]). Training (candle) lives in `src/train/human/` and
//! `src/train/policy/`; both sides use the encodings here, so they cannot drift. This
//! file also owns the embedded default nets (the human prior and the MCTS policy), so the
//! binary needs no file beside it.

pub mod first_layer;
pub mod kernel;
pub mod moves;
pub mod network;
pub mod policy_net;
pub mod shape;
pub mod tactics;
pub mod threat_features;

use std::sync::Arc;

use once_cell::sync::Lazy;

pub use network::{PriorNet, PriorQuery};
pub use policy_net::{PolicyNet, PolicyShape};

/// Name of the embedded default human prior.
pub const DEFAULT_PRIOR_NAME: &str = "human-prior-v3";
/// The embedded default human prior (safetensors).
pub static DEFAULT_PRIOR: &[u8] = include_bytes!("../../nets/human-prior-v3.safetensors");

static PARSED: Lazy<PriorNet> = Lazy::new(|| {
    PriorNet::from_bytes(DEFAULT_PRIOR)
        .unwrap_or_else(|e| panic!("the embedded human prior {DEFAULT_PRIOR_NAME} is invalid: {e}"))
});

/// The embedded prior, parsed on first use (a few milliseconds) and shared after.
pub fn default_prior() -> &'static PriorNet {
    &PARSED
}

/// Name of the embedded default self-play policy, the MCTS prior.
pub const DEFAULT_POLICY_NAME: &str = "policy-sp4-mz1";
/// The embedded default self-play policy (safetensors).
pub static DEFAULT_POLICY: &[u8] = include_bytes!("../../nets/policy-sp4-mz1.safetensors");

static POLICY: Lazy<Arc<PolicyNet>> =
    Lazy::new(|| {
        Arc::new(PolicyNet::from_bytes(DEFAULT_POLICY).unwrap_or_else(|e| {
            panic!("the embedded policy {DEFAULT_POLICY_NAME} is invalid: {e}")
        }))
    });

/// The embedded self-play policy, parsed on first use and shared after.
pub fn default_policy() -> Arc<PolicyNet> {
    Arc::clone(&POLICY)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_embedded_prior_parses_and_gives_the_start_position_a_distribution() {
        let probs = super::default_prior().probabilities(
            &cozy_chess::Board::default(),
            &super::PriorQuery {
                mover_rating: 1500,
                opponent_rating: 1500,
                time_bucket: 2,
            },
        );
        assert_eq!(probs.len(), 20);
        let sum: f32 = probs.iter().map(|p| p.1).sum();
        assert!((sum - 1.0).abs() < 1e-4, "probabilities sum to {sum}");
    }

    #[test]
    fn the_embedded_policy_parses_with_its_tactical_rows() {
        let net = super::default_policy();
        assert!(net.shape.tactics);
        let board = cozy_chess::Board::default();
        let moves = crate::chess::legal_moves(&board);
        let mut logits = Vec::new();
        net.logits(&board, &moves, &mut logits);
        assert_eq!(logits.len(), 20);
        assert!(logits.iter().all(|l| l.is_finite()));
    }
}

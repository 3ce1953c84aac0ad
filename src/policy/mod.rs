//! Move-policy networks over the legal moves of a position: the board and move encodings
//! ([`moves`]), the shape and rating buckets of the rating-conditioned human prior
//! ([`shape`]) and its plain-Rust forward pass ([`network`]) used by the engine and the
//! measurement commands. Training (candle) lives in `src/train/human/`; both sides use
//! the encodings here, so they cannot drift. Shared later with MCTS's policy net.

pub mod moves;
pub mod network;
pub mod shape;

pub use network::{PriorNet, PriorQuery};

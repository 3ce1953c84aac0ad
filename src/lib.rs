//! Rookery: a UCI chess engine with an incrementally updated neural evaluation.
//!
//! Layers, lowest first (each uses only the ones above it in this list):
//! - `files`: listing a folder's inputs.
//! - `chess`: board helpers on top of cozy-chess (move notation, positions with history).
//! - `eval`: static evaluation behind one interface (`Evaluator`).
//! - `policy`: move-policy networks over legal moves (the rating-conditioned human prior).
//! - `tablebase`: Syzygy endgame tables (win/draw/loss and distance-to-zero probes).
//! - `search`: transposition table, move ordering, time management, the alpha-beta search
//!   and the MCTS search (`SearchMode mcts`).
//! - `book`: Polyglot opening book (keys, reader, compiler).
//! - `perft`, `bench`, `train`: tools built on the layers above.
//! - `human`: the human-play tools built on `policy` (`rookery human`).
//! - `uci`: the protocol front end that owns a search.

pub mod bench;
pub mod book;
pub mod chess;
pub mod data;
pub mod eval;
pub mod files;
pub mod human;
pub mod perft;
pub mod policy;
pub mod search;
pub mod tablebase;
pub mod train;
pub mod uci;

/// Engine name and version as reported to GUIs (`id name`).
pub fn engine_name() -> String {
    format!("Rookery {}", env!("CARGO_PKG_VERSION"))
}

//! Static evaluation behind one interface.
//!
//! The search talks only to [`Evaluator`]: it calls `reset` at the root, `push`/`push_null`
//! after making a move, `pop` after unmaking it, and `evaluate` at a node. That lets an
//! incrementally updated network sit behind the same calls as the simple material +
//! piece-square evaluation in [`pst`].

pub mod pst;

use cozy_chess::{Board, Move};

/// Largest magnitude a static evaluation may return; keeps evals clear of mate scores.
pub const EVAL_LIMIT: i32 = 20_000;

/// Per-search-thread evaluation state (one per thread; cheap to create).
pub struct Evaluator {
    _private: (),
}

impl Default for Evaluator {
    fn default() -> Self {
        Self::new()
    }
}

impl Evaluator {
    pub fn new() -> Self {
        Evaluator { _private: () }
    }

    /// Prepares for a search from `board` (full refresh of any incremental state).
    pub fn reset(&mut self, _board: &Board) {}

    /// Called after `mv` took `before` to `after`.
    pub fn push(&mut self, _before: &Board, _mv: Move, _after: &Board) {}

    /// Called after a null move took `before` to `after`.
    pub fn push_null(&mut self, _before: &Board, _after: &Board) {}

    /// Undoes the latest `push` / `push_null`.
    pub fn pop(&mut self) {}

    /// Evaluation of `board` in centipawns from the side to move's point of view.
    pub fn evaluate(&mut self, board: &Board) -> i32 {
        pst::evaluate(board).clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }
}

/// Evaluation from White's point of view in centipawns (the `eval` command).
pub fn white_cp(board: &Board) -> i32 {
    let mut e = Evaluator::new();
    e.reset(board);
    e.evaluate(board) * crate::chess::sign(board.side_to_move())
}

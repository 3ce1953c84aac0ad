//! The positions a move net trains on, stored flat so that a batch is a few slices: for
//! each position the mover's active features, the embedding rows of every legal move
//! and the index of the target move. Positions with one legal move teach nothing and
//! are left out.

use cozy_chess::Board;

use crate::policy::moves::{legal_moves, move_rows};
use crate::policy::tactics::Threats;
use crate::policy::threat_features::{board_inputs, input_count};

/// Positions in flat arrays; position `i`'s features are
/// `feats[feat_at[i]..feat_at[i + 1]]`, its moves likewise.
#[derive(Default)]
pub struct MovePositions {
    pub feats: Vec<u16>,
    pub feat_at: Vec<u32>,
    pub moves: Vec<[u16; 3]>,
    /// Each move's tactical row (`policy::tactics`), beside `moves`, when
    /// `with_tactics` was set before the first push (a policy with tactics reads them).
    pub tactics: Vec<u16>,
    pub with_tactics: bool,
    /// Whether the features are the threat variants (`policy::threat_features`), set
    /// before the first push.
    pub threat_inputs: bool,
    pub move_at: Vec<u32>,
    /// Index of the target move among the position's legal moves (cozy-chess order):
    /// the move played, or for visit data the most visited one.
    pub target: Vec<u8>,
}

impl MovePositions {
    pub fn len(&self) -> usize {
        self.target.len()
    }

    pub fn is_empty(&self) -> bool {
        self.target.is_empty()
    }

    /// Width of the board inputs the features index.
    pub fn inputs(&self) -> usize {
        input_count(self.threat_inputs)
    }

    pub fn features(&self, i: usize) -> &[u16] {
        &self.feats[self.feat_at[i] as usize..self.feat_at[i + 1] as usize]
    }

    pub fn move_rows(&self, i: usize) -> &[[u16; 3]] {
        &self.moves[self.move_at[i] as usize..self.move_at[i + 1] as usize]
    }

    /// The tactical rows of position `i`'s moves; empty without `with_tactics`.
    pub fn tactic_rows(&self, i: usize) -> &[u16] {
        if !self.with_tactics {
            return &[];
        }
        &self.tactics[self.move_at[i] as usize..self.move_at[i + 1] as usize]
    }

    /// Adds `board` with `target` as the move to learn; false when it is left out (one
    /// legal move, a move that is not legal, or one past the `u8` index).
    pub fn push(&mut self, board: &Board, target: cozy_chess::Move) -> bool {
        let legal = legal_moves(board);
        let Some(target) = legal.iter().position(|&m| m == target) else {
            return false;
        };
        if legal.len() < 2 || target > u8::MAX as usize {
            return false;
        }
        if self.feat_at.is_empty() {
            self.feat_at.push(0);
            self.move_at.push(0);
        }
        board_inputs(board, self.threat_inputs, &mut self.feats);
        self.feat_at.push(self.feats.len() as u32);
        self.moves
            .extend(legal.iter().map(|&m| move_rows(board, m)));
        if self.with_tactics {
            let threats = Threats::new(board);
            self.tactics
                .extend(legal.iter().map(|&m| threats.row(board, m)));
        }
        self.move_at.push(self.moves.len() as u32);
        self.target.push(target as u8);
        true
    }
}

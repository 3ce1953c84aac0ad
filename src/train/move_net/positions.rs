//! The positions a move net trains on, stored flat so that a batch is a few slices: for
//! each position the mover's active features, the embedding rows of every legal move
//! and the index of the target move. Positions with one legal move teach nothing and
//! are left out.

use cozy_chess::{Board, BoardBuilder, Move, Square};

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

/// `board` and `mv` seen in a mirror between the a- and h-files, for positions where
/// that changes nothing in the rules: no castling rights on either side. The move a
/// player makes is as plausible in the mirrored position, so the mirror is a second,
/// free training position (chess has no other symmetry with pawns on the board).
pub fn mirror_left_right(board: &Board, mv: Move) -> Option<(Board, Move)> {
    let mut builder = BoardBuilder::from_board(board);
    if builder
        .castle_rights
        .iter()
        .any(|r| r.short.is_some() || r.long.is_some())
    {
        return None;
    }
    let squares = builder.board;
    for sq in Square::ALL {
        builder.board[sq.flip_file() as usize] = squares[sq as usize];
    }
    builder.en_passant = builder.en_passant.map(Square::flip_file);
    let mirrored = builder.build().ok()?;
    let mv = Move {
        from: mv.from.flip_file(),
        to: mv.to.flip_file(),
        promotion: mv.promotion,
    };
    Some((mirrored, mv))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(board: &Board, uci: &str) -> Move {
        let mv: Move = uci.parse().unwrap();
        assert!(legal_moves(board).contains(&mv), "{uci} is legal");
        mv
    }

    #[test]
    fn the_mirror_swaps_files_and_keeps_the_move_legal() {
        // En passant on the c-file, a promotion on b8, a rook on h1 without its castling
        // right: all move to the other wing.
        let board: Board = "4k3/1P6/8/2pP4/8/8/8/4K2R w - c6 0 40".parse().unwrap();
        let (mirrored, played) = mirror_left_right(&board, mv(&board, "d5c6")).unwrap();
        assert_eq!(
            format!("{mirrored}"),
            "3k4/6P1/8/4Pp2/8/8/8/R2K4 w - f6 0 40"
        );
        assert_eq!(played, mv(&mirrored, "e5f6"));
        let (_, promotion) = mirror_left_right(&board, mv(&board, "b7b8q")).unwrap();
        assert_eq!(promotion, mv(&mirrored, "g7g8q"));
        // Twice is the identity.
        let (back, again) = mirror_left_right(&mirrored, played).unwrap();
        assert_eq!(back, board);
        assert_eq!(again, "d5c6".parse().unwrap());
    }

    #[test]
    fn a_position_with_castling_rights_has_no_mirror() {
        let board = Board::default();
        assert!(mirror_left_right(&board, mv(&board, "e2e4")).is_none());
        let black_only: Board = "r3k3/8/8/8/8/8/8/4K3 w q - 0 1".parse().unwrap();
        assert!(mirror_left_right(&black_only, mv(&black_only, "e1d1")).is_none());
    }
}

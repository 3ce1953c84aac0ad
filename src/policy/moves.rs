//! The mover-relative encoding of a position and its legal moves, shared by the trainer
//! and the engine. The board is seen from the side to move (Black's squares mirrored
//! vertically, colours swapped: `eval::features` with one perspective, no horizontal
//! mirroring, halfmove clock left out). A move is three rows of one embedding table:
//! its from–to pair, its piece with its destination, its promotion. A castling move is
//! cozy-chess's king-takes-rook.

use cozy_chess::{Board, Color, Move, Piece};

use crate::eval::features;

/// First row of the piece-to block (after the 64 × 64 from–to rows).
pub const PIECE_TO: usize = 64 * 64;
/// First row of the promotion block (none, knight, bishop, rook, queen).
pub const PROMOTION: usize = PIECE_TO + 6 * 64;
/// Rows of the move embedding table.
pub const MOVE_ROWS: usize = PROMOTION + 5;

/// The mover's active input features (pieces, side to move, castling, en passant).
pub fn board_features(board: &Board, out: &mut Vec<u16>) {
    features::active(board, board.side_to_move(), false, out);
}

#[inline]
fn rel(stm: Color, sq: cozy_chess::Square) -> usize {
    match stm {
        Color::White => sq as usize,
        Color::Black => sq as usize ^ 56,
    }
}

/// The three embedding rows of a legal move of `board`: from–to, piece-to, promotion.
pub fn move_rows(board: &Board, mv: Move) -> [u16; 3] {
    let stm = board.side_to_move();
    let (from, to) = (rel(stm, mv.from), rel(stm, mv.to));
    let piece = board.piece_on(mv.from).unwrap_or(Piece::Pawn) as usize;
    let promo = match mv.promotion {
        None => 0,
        Some(Piece::Knight) => 1,
        Some(Piece::Bishop) => 2,
        Some(Piece::Rook) => 3,
        Some(_) => 4,
    };
    [
        (from * 64 + to) as u16,
        (PIECE_TO + piece * 64 + to) as u16,
        (PROMOTION + promo) as u16,
    ]
}

/// The legal moves of `board` in cozy-chess order.
pub fn legal_moves(board: &Board) -> Vec<Move> {
    crate::chess::legal_moves(board)
}

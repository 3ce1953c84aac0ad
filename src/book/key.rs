//! Polyglot Zobrist keys and the Polyglot 16-bit move encoding.
//!
//! The key of a position is the XOR of the published Random64 numbers (see
//! [`super::randoms`]) for every piece on its square, each castling right, the en
//! passant file (only when a pawn of the side to move stands next to the double-pushed
//! pawn, i.e. could capture it pseudo-legally) and, when White is to move, the turn.

use super::randoms::RANDOM64;
use cozy_chess::{Board, Color, File, Move, Piece, Rank, Square};

const CASTLE_OFFSET: usize = 768;
const EP_OFFSET: usize = 772;
const TURN_OFFSET: usize = 780;

/// The Polyglot key of a position (standard Polyglot Zobrist scheme).
pub fn polyglot_key(board: &Board) -> u64 {
    let mut key = 0u64;
    for color in Color::ALL {
        for piece in Piece::ALL {
            // Polyglot piece kind: black pawn 0, white pawn 1, black knight 2, ...
            let kind = 2 * piece as usize + usize::from(color == Color::White);
            for sq in board.colored_pieces(color, piece) {
                key ^= RANDOM64[64 * kind + sq as usize];
            }
        }
    }
    let white = board.castle_rights(Color::White);
    let black = board.castle_rights(Color::Black);
    let rights = [white.short, white.long, black.short, black.long];
    for (i, right) in rights.iter().enumerate() {
        if right.is_some() {
            key ^= RANDOM64[CASTLE_OFFSET + i];
        }
    }
    if let Some(file) = board.en_passant() {
        let us = board.side_to_move();
        let capturers = board.colored_pieces(us, Piece::Pawn)
            & file.adjacent()
            & Rank::Fifth.relative_to(us).bitboard();
        if !capturers.is_empty() {
            key ^= RANDOM64[EP_OFFSET + file as usize];
        }
    }
    if board.side_to_move() == Color::White {
        key ^= RANDOM64[TURN_OFFSET];
    }
    key
}

/// Encodes a cozy-chess move as a Polyglot move: bits 0-5 destination, 6-11 origin
/// (square = 8 * rank + file), 12-14 promotion (1 knight, 2 bishop, 3 rook, 4 queen).
/// Castling is king-takes-own-rook in both encodings, so it needs no translation.
pub fn encode_move(mv: Move) -> u16 {
    let promo = match mv.promotion {
        Some(Piece::Knight) => 1,
        Some(Piece::Bishop) => 2,
        Some(Piece::Rook) => 3,
        Some(Piece::Queen) => 4,
        _ => 0,
    };
    (mv.to as u16) | ((mv.from as u16) << 6) | (promo << 12)
}

/// Decodes a Polyglot move into a (not necessarily legal) cozy-chess move; `None` for
/// an invalid promotion field.
pub fn decode_move(raw: u16) -> Option<Move> {
    let to = Square::index((raw & 63) as usize);
    let from = Square::index(((raw >> 6) & 63) as usize);
    let promotion = match (raw >> 12) & 7 {
        0 => None,
        1 => Some(Piece::Knight),
        2 => Some(Piece::Bishop),
        3 => Some(Piece::Rook),
        4 => Some(Piece::Queen),
        _ => return None,
    };
    Some(Move {
        from,
        to,
        promotion,
    })
}

/// Maps a raw Polyglot move to the matching legal move of `board`, if any. Besides the
/// standard king-takes-rook castling encoding, e1g1-style castling written by some
/// non-conforming tools is accepted too.
pub fn legal_from_raw(board: &Board, raw: u16, legal: &[Move]) -> Option<Move> {
    let mv = decode_move(raw)?;
    if legal.contains(&mv) {
        return Some(mv);
    }
    // King two files sideways from its start square: try king-takes-rook.
    if mv.promotion.is_none() && board.piece_on(mv.from) == Some(Piece::King) {
        let dx = mv.to.file() as i32 - mv.from.file() as i32;
        if mv.from.rank() == mv.to.rank() && dx.abs() == 2 {
            let rook_file = if dx > 0 { File::H } else { File::A };
            let castle = Move {
                from: mv.from,
                to: Square::new(rook_file, mv.from.rank()),
                promotion: None,
            };
            if legal.contains(&castle) {
                return Some(castle);
            }
        }
    }
    None
}

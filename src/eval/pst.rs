//! Material + piece-square evaluation, tapered between middlegame and endgame.
//! The interim evaluation before the network, and the baseline the net is measured against.

use cozy_chess::{Board, Color, Piece};

/// Piece values (middlegame, endgame) in centipawns, indexed by `Piece as usize`.
pub const VALUES: [(i32, i32); 6] = [
    (82, 94),
    (337, 281),
    (365, 297),
    (477, 512),
    (1025, 936),
    (0, 0),
];

/// Phase weight per piece kind; 24 at the start position.
const PHASE: [i32; 6] = [0, 1, 1, 2, 4, 0];

#[rustfmt::skip]
const PAWN: [i32; 64] = [
     0,  0,  0,  0,  0,  0,  0,  0,
     5, 10, 10,-20,-20, 10, 10,  5,
     5, -5,-10,  0,  0,-10, -5,  5,
     0,  0,  0, 20, 20,  0,  0,  0,
     5,  5, 10, 25, 25, 10,  5,  5,
    10, 10, 20, 30, 30, 20, 10, 10,
    50, 50, 50, 50, 50, 50, 50, 50,
     0,  0,  0,  0,  0,  0,  0,  0,
];
#[rustfmt::skip]
const KNIGHT: [i32; 64] = [
    -50,-40,-30,-30,-30,-30,-40,-50,
    -40,-20,  0,  5,  5,  0,-20,-40,
    -30,  5, 10, 15, 15, 10,  5,-30,
    -30,  0, 15, 20, 20, 15,  0,-30,
    -30,  5, 15, 20, 20, 15,  5,-30,
    -30,  0, 10, 15, 15, 10,  0,-30,
    -40,-20,  0,  0,  0,  0,-20,-40,
    -50,-40,-30,-30,-30,-30,-40,-50,
];
#[rustfmt::skip]
const BISHOP: [i32; 64] = [
    -20,-10,-10,-10,-10,-10,-10,-20,
    -10,  5,  0,  0,  0,  0,  5,-10,
    -10, 10, 10, 10, 10, 10, 10,-10,
    -10,  0, 10, 10, 10, 10,  0,-10,
    -10,  5,  5, 10, 10,  5,  5,-10,
    -10,  0,  5, 10, 10,  5,  0,-10,
    -10,  0,  0,  0,  0,  0,  0,-10,
    -20,-10,-10,-10,-10,-10,-10,-20,
];
#[rustfmt::skip]
const ROOK: [i32; 64] = [
     0,  0,  0,  5,  5,  0,  0,  0,
    -5,  0,  0,  0,  0,  0,  0, -5,
    -5,  0,  0,  0,  0,  0,  0, -5,
    -5,  0,  0,  0,  0,  0,  0, -5,
    -5,  0,  0,  0,  0,  0,  0, -5,
    -5,  0,  0,  0,  0,  0,  0, -5,
     5, 10, 10, 10, 10, 10, 10,  5,
     0,  0,  0,  0,  0,  0,  0,  0,
];
#[rustfmt::skip]
const QUEEN: [i32; 64] = [
    -20,-10,-10, -5, -5,-10,-10,-20,
    -10,  0,  5,  0,  0,  0,  0,-10,
    -10,  5,  5,  5,  5,  5,  0,-10,
      0,  0,  5,  5,  5,  5,  0, -5,
     -5,  0,  5,  5,  5,  5,  0, -5,
    -10,  0,  5,  5,  5,  5,  0,-10,
    -10,  0,  0,  0,  0,  0,  0,-10,
    -20,-10,-10, -5, -5,-10,-10,-20,
];
#[rustfmt::skip]
const KING_MG: [i32; 64] = [
     20, 30, 10,  0,  0, 10, 30, 20,
     20, 20,  0,  0,  0,  0, 20, 20,
    -10,-20,-20,-20,-20,-20,-20,-10,
    -20,-30,-30,-40,-40,-30,-30,-20,
    -30,-40,-40,-50,-50,-40,-40,-30,
    -30,-40,-40,-50,-50,-40,-40,-30,
    -30,-40,-40,-50,-50,-40,-40,-30,
    -30,-40,-40,-50,-50,-40,-40,-30,
];
#[rustfmt::skip]
const KING_EG: [i32; 64] = [
    -50,-30,-30,-30,-30,-30,-30,-50,
    -30,-30,  0,  0,  0,  0,-30,-30,
    -30,-10, 20, 30, 30, 20,-10,-30,
    -30,-10, 30, 40, 40, 30,-10,-30,
    -30,-10, 30, 40, 40, 30,-10,-30,
    -30,-10, 20, 30, 30, 20,-10,-30,
    -30,-20,-10,  0,  0,-10,-20,-30,
    -50,-40,-30,-20,-20,-30,-40,-50,
];

/// Tables are written from White's side with a1 = index 0; Black mirrors the rank.
fn table(piece: Piece) -> (&'static [i32; 64], &'static [i32; 64]) {
    match piece {
        Piece::Pawn => (&PAWN, &PAWN),
        Piece::Knight => (&KNIGHT, &KNIGHT),
        Piece::Bishop => (&BISHOP, &BISHOP),
        Piece::Rook => (&ROOK, &ROOK),
        Piece::Queen => (&QUEEN, &QUEEN),
        Piece::King => (&KING_MG, &KING_EG),
    }
}

/// Tapered material + PST score from the side to move's point of view.
pub fn evaluate(board: &Board) -> i32 {
    let (mut mg, mut eg, mut phase) = (0, 0, 0);
    for &piece in &Piece::ALL {
        let (tmg, teg) = table(piece);
        let (vmg, veg) = VALUES[piece as usize];
        for color in [Color::White, Color::Black] {
            let sign = crate::chess::sign(color);
            for sq in board.colored_pieces(color, piece) {
                let idx = if color == Color::White {
                    sq as usize
                } else {
                    sq as usize ^ 56
                };
                mg += sign * (vmg + tmg[idx]);
                eg += sign * (veg + teg[idx]);
                phase += PHASE[piece as usize];
            }
        }
    }
    let phase = phase.min(24);
    let white = (mg * phase + eg * (24 - phase)) / 24;
    let tempo = 10;
    white * crate::chess::sign(board.side_to_move()) + tempo
}

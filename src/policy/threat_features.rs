//! Board inputs that say which pieces are attacked and which are defended (Monty's
//! policy inputs, in spirit): each piece's piece-square feature comes in four variants,
//! by whether an enemy piece attacks its square and whether a friendly piece defends it.
//! A move net reading them sees at a glance what hangs on both sides, which the plain
//! 782 inputs leave to the hidden layer; the active count stays one feature per piece,
//! so the first layer costs the same.
//!
//! Layout: the 782 inputs of `eval::features` (pieces neither attacked nor defended keep
//! their index there), then three blocks of 768 for attacked only, defended only, and
//! attacked and defended.

use cozy_chess::{BitBoard, Board, Color, Piece};

use super::tactics::attacks;
use crate::eval::features::{aux_features, piece_index};
use crate::eval::shape::INPUTS;

/// Piece-square features per variant.
const PIECE_SQUARES: usize = 768;
/// Inputs of a net that reads threat features.
pub const THREAT_INPUTS: usize = INPUTS + 3 * PIECE_SQUARES;

/// Width of the board inputs: with threat variants or the plain ones.
pub fn input_count(threat_inputs: bool) -> usize {
    if threat_inputs {
        THREAT_INPUTS
    } else {
        INPUTS
    }
}

/// The mover's active board inputs, with threat variants or the plain ones
/// (`moves::board_features`), appended to `out`.
pub fn board_inputs(board: &Board, threat_inputs: bool, out: &mut Vec<u16>) {
    if threat_inputs {
        board_features_with_threats(board, out);
    } else {
        super::moves::board_features(board, out);
    }
}

/// Every square a piece of `color` attacks.
pub fn attacked_by(board: &Board, color: Color) -> BitBoard {
    Piece::ALL
        .into_iter()
        .flat_map(|piece| attacks(board, color, piece))
        .fold(BitBoard::EMPTY, |all, a| all | a)
}

/// The mover's active inputs with threat variants, appended to `out`: one per piece,
/// then side to move, castling and en passant as in `eval::features` (the halfmove
/// clock left out).
pub fn board_features_with_threats(board: &Board, out: &mut Vec<u16>) {
    let stm = board.side_to_move();
    let (white, black) = (
        attacked_by(board, Color::White),
        attacked_by(board, Color::Black),
    );
    for (color, defenders, attackers) in
        [(Color::White, white, black), (Color::Black, black, white)]
    {
        for piece in Piece::ALL {
            for sq in board.colored_pieces(color, piece) {
                let base = piece_index(stm, color, piece, sq);
                let variant = attackers.has(sq) as usize + 2 * defenders.has(sq) as usize;
                let index = match variant {
                    0 => base,
                    v => INPUTS + (v - 1) * PIECE_SQUARES + base,
                };
                out.push(index as u16);
            }
        }
    }
    aux_features(board, stm, out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::moves::board_features;
    use cozy_chess::Square;

    fn features(fen: &str) -> Vec<u16> {
        let mut out = Vec::new();
        board_features_with_threats(&fen.parse().unwrap(), &mut out);
        out
    }

    #[test]
    fn without_contact_the_inputs_are_the_plain_ones() {
        // The rook on g2 is out of the black king's reach and the white king's cover.
        let fen = "7k/8/8/8/8/8/6R1/K7 b - - 0 1";
        let mut plain = Vec::new();
        board_features(&fen.parse().unwrap(), &mut plain);
        let mut threat = features(fen);
        threat.sort();
        plain.sort();
        assert_eq!(threat, plain);
    }

    #[test]
    fn one_feature_per_piece_in_its_variant_block() {
        // The e5 knight is attacked by the d6 pawn and defended by the d4 pawn; the other
        // pieces are neither attacked nor defended.
        let fen = "4k3/8/3p4/4N3/3P4/8/8/4K3 w - - 0 1";
        let board: Board = fen.parse().unwrap();
        let f = features(fen);
        assert_eq!(
            f.len(),
            board.occupied().len() as usize + 1,
            "pieces and side to move"
        );
        assert!(f.iter().all(|&i| (i as usize) < THREAT_INPUTS));
        let white = |piece, sq| piece_index(Color::White, Color::White, piece, sq);
        let knight = white(Piece::Knight, Square::E5);
        assert!(
            f.contains(&((INPUTS + 2 * PIECE_SQUARES + knight) as u16)),
            "{f:?}"
        );
        assert!(f.contains(&(white(Piece::Pawn, Square::D4) as u16)));
        let black_pawn = piece_index(Color::White, Color::Black, Piece::Pawn, Square::D6);
        assert!(f.contains(&(black_pawn as u16)));
    }

    #[test]
    fn attacked_only_goes_to_the_first_block() {
        // Black to move: the white queen on d5 is attacked by the e6 pawn and defended by
        // nothing; it attacks that pawn, which nothing defends either.
        let fen = "4k3/8/4p3/3Q4/8/8/8/K7 b - - 0 1";
        let f = features(fen);
        let queen = piece_index(Color::Black, Color::White, Piece::Queen, Square::D5);
        let pawn = piece_index(Color::Black, Color::Black, Piece::Pawn, Square::E6);
        assert!(f.contains(&((INPUTS + queen) as u16)), "{f:?}");
        assert!(f.contains(&((INPUTS + pawn) as u16)), "{f:?}");
    }
}

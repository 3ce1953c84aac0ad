//! Static exchange evaluation: does a capture sequence on one square win at least a
//! threshold? Used to order captures and to prune losing captures and quiet moves.

use cozy_chess::{
    get_bishop_moves, get_king_moves, get_knight_moves, get_pawn_attacks, get_rook_moves, BitBoard,
    Board, Color, Move, Piece, Square,
};

use super::params::SEE_PIECE_VALUES;

/// A piece's exchange value ([`SEE_PIECE_VALUES`]).
pub fn piece_value(piece: Piece) -> i32 {
    SEE_PIECE_VALUES[piece as usize]
}

fn attackers_to(board: &Board, sq: Square, occupied: BitBoard) -> BitBoard {
    let rooks = board.pieces(Piece::Rook) | board.pieces(Piece::Queen);
    let bishops = board.pieces(Piece::Bishop) | board.pieces(Piece::Queen);
    (get_pawn_attacks(sq, Color::White) & board.colored_pieces(Color::Black, Piece::Pawn))
        | (get_pawn_attacks(sq, Color::Black) & board.colored_pieces(Color::White, Piece::Pawn))
        | (get_knight_moves(sq) & board.pieces(Piece::Knight))
        | (get_king_moves(sq) & board.pieces(Piece::King))
        | (get_rook_moves(sq, occupied) & rooks)
        | (get_bishop_moves(sq, occupied) & bishops)
}

/// True if the exchange started by `mv` gains at least `threshold` centipawns
/// (the swap algorithm, as in Stockfish's `see_ge`). Castling is treated as neutral.
pub fn see_ge(board: &Board, mv: Move, threshold: i32) -> bool {
    let us = board.side_to_move();
    if board.colors(us).has(mv.to) {
        return 0 >= threshold; // castling
    }
    let Some(moving) = board.piece_on(mv.from) else {
        return false;
    };
    let mut captured_value = board.piece_on(mv.to).map_or(0, piece_value);
    if moving == Piece::Pawn && board.piece_on(mv.to).is_none() && mv.from.file() != mv.to.file() {
        captured_value = piece_value(Piece::Pawn); // en passant
    }
    let mut next_victim = moving;
    if let Some(promo) = mv.promotion {
        captured_value += piece_value(promo) - piece_value(Piece::Pawn);
        next_victim = promo;
    }
    let mut balance = captured_value - threshold;
    if balance < 0 {
        return false;
    }
    balance -= piece_value(next_victim);
    if balance >= 0 {
        return true;
    }
    let mut occupied = board.occupied() ^ mv.from.bitboard() | mv.to.bitboard();
    if moving == Piece::Pawn && mv.from.file() != mv.to.file() && board.piece_on(mv.to).is_none() {
        let victim = Square::new(mv.to.file(), mv.from.rank());
        occupied ^= victim.bitboard();
    }
    let rooks = board.pieces(Piece::Rook) | board.pieces(Piece::Queen);
    let bishops = board.pieces(Piece::Bishop) | board.pieces(Piece::Queen);
    let mut attackers = attackers_to(board, mv.to, occupied) & occupied;
    let mut side = !us;
    loop {
        let ours = attackers & board.colors(side);
        if ours.is_empty() {
            break;
        }
        // Least valuable attacker captures next.
        let attacker = Piece::ALL
            .into_iter()
            .find(|&p| !(ours & board.pieces(p)).is_empty())
            .unwrap_or(Piece::King);
        if let Some(from) = (ours & board.pieces(attacker)).next_square() {
            occupied ^= from.bitboard();
        }
        // Sliders behind the piece that just captured join in (x-rays).
        if matches!(attacker, Piece::Pawn | Piece::Bishop | Piece::Queen) {
            attackers |= get_bishop_moves(mv.to, occupied) & bishops;
        }
        if matches!(attacker, Piece::Rook | Piece::Queen) {
            attackers |= get_rook_moves(mv.to, occupied) & rooks;
        }
        attackers &= occupied;
        side = !side;
        balance = -balance - 1 - piece_value(attacker);
        if balance >= 0 {
            // A king may only capture if the square is no longer defended.
            if attacker == Piece::King && !(attackers & board.colors(side)).is_empty() {
                side = !side;
            }
            break;
        }
    }
    side != us
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::parse_fen;

    fn see(fen: &str, mv: &str, t: i32) -> bool {
        let b = parse_fen(fen).unwrap();
        see_ge(&b, crate::chess::parse_uci_move(&b, mv).unwrap(), t)
    }

    #[test]
    fn simple_exchanges() {
        // Pawn takes undefended knight.
        assert!(see("4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1", "e4d5", 300));
        // Queen takes a pawn defended by a pawn: loses.
        assert!(!see("4k3/8/2p5/3p4/8/8/8/3QK3 w - - 0 1", "d1d5", 0));
        // Rook takes defended rook: even trade.
        assert!(see("3rk3/3r4/8/8/8/8/8/3RK3 w - - 0 1", "d1d7", 0));
        assert!(!see("3rk3/3r4/8/8/8/8/8/3RK3 w - - 0 1", "d1d7", 1));
        // X-ray: doubled rooks win the defended pawn.
        assert!(see("4k3/4r3/8/4p3/8/8/4R3/4R1K1 w - - 0 1", "e2e5", 0));
    }
}

//! A move's tactical class: what it captures, whether its destination is safe, whether
//! the piece is escaping a threat, whether it checks. The class is a fourth embedding row
//! of the self-play policy ([`super::policy_net`]), so a small net need not learn from
//! the piece-square inputs alone that a knight attacked by a pawn should move or that a
//! queen should not land where a bishop takes it. Bitboard tests only (no exchange
//! evaluation): one pass over the pieces per position, a few tests per move.

use cozy_chess::{
    get_bishop_moves, get_king_moves, get_knight_moves, get_pawn_attacks, get_rook_moves, BitBoard,
    Board, Color, Move, Piece,
};

use super::moves::MOVE_ROWS;
use crate::chess::{is_castle, CheckInfo};

/// Victim classes: none, pawn, knight or bishop, rook, queen.
const VICTIMS: usize = 5;
/// Destination: not attacked; attacked but defended by no cheaper piece; unsafe.
const DESTINATIONS: usize = 3;
/// Rows of the tactical block.
pub const TACTIC_ROWS: usize = VICTIMS * DESTINATIONS * 2 * 2;
/// First row of the tactical block, after the three blocks of `moves`.
pub const TACTIC: usize = MOVE_ROWS;

/// Who attacks what in a position, from the side to move's view.
pub struct Threats {
    /// Squares an enemy pawn attacks.
    by_pawn: BitBoard,
    /// Squares an enemy pawn, knight or bishop attacks.
    by_minor: BitBoard,
    /// Squares any enemy piece but the queen and king attacks.
    by_rook: BitBoard,
    /// Squares any enemy piece attacks.
    by_any: BitBoard,
    /// Squares at least one, and at least two, of the mover's pieces attack.
    defended: BitBoard,
    defended_twice: BitBoard,
    in_check: bool,
    checks: CheckInfo,
}

/// The attack sets of `color`'s pieces of kind `piece`, one per piece.
pub fn attacks(board: &Board, color: Color, piece: Piece) -> impl Iterator<Item = BitBoard> + '_ {
    let occupied = board.occupied();
    board
        .colored_pieces(color, piece)
        .into_iter()
        .map(move |sq| match piece {
            Piece::Pawn => get_pawn_attacks(sq, color),
            Piece::Knight => get_knight_moves(sq),
            Piece::Bishop => get_bishop_moves(sq, occupied),
            Piece::Rook => get_rook_moves(sq, occupied),
            Piece::Queen => get_bishop_moves(sq, occupied) | get_rook_moves(sq, occupied),
            Piece::King => get_king_moves(sq),
        })
}

impl Threats {
    pub fn new(board: &Board) -> Threats {
        let us = board.side_to_move();
        let them = !us;
        let union = |piece| attacks(board, them, piece).fold(BitBoard::EMPTY, |a, b| a | b);
        let by_pawn = union(Piece::Pawn);
        let by_minor = by_pawn | union(Piece::Knight) | union(Piece::Bishop);
        let by_rook = by_minor | union(Piece::Rook);
        let by_any = by_rook | union(Piece::Queen) | union(Piece::King);
        let (mut defended, mut defended_twice) = (BitBoard::EMPTY, BitBoard::EMPTY);
        for piece in Piece::ALL {
            for a in attacks(board, us, piece) {
                defended_twice |= defended & a;
                defended |= a;
            }
        }
        Threats {
            by_pawn,
            by_minor,
            by_rook,
            by_any,
            defended,
            defended_twice,
            in_check: !board.checkers().is_empty(),
            checks: CheckInfo::new(board),
        }
    }

    /// Squares where the mover's `piece` can be taken by a cheaper enemy piece.
    fn cheaper_attackers(&self, piece: Piece) -> BitBoard {
        match piece {
            Piece::Pawn | Piece::King => BitBoard::EMPTY,
            Piece::Knight | Piece::Bishop => self.by_pawn,
            Piece::Rook => self.by_minor,
            Piece::Queen => self.by_rook,
        }
    }

    /// 0: no enemy attacks the square; 1: attacked, defended and no cheaper attacker;
    /// 2: attacked by a cheaper piece or undefended. `defenders` are the squares counted
    /// as defended (without the piece itself when it defends the square it moves to).
    fn safety(&self, piece: Piece, sq: cozy_chess::Square, defenders: BitBoard) -> usize {
        if !self.by_any.has(sq) {
            0
        } else if self.cheaper_attackers(piece).has(sq) || !defenders.has(sq) {
            2
        } else {
            1
        }
    }

    /// The tactical row (an index into the policy's embedding table) of a legal move.
    pub fn row(&self, board: &Board, mv: Move) -> u16 {
        let piece = board.piece_on(mv.from).unwrap_or(Piece::Pawn);
        let castle = is_castle(board, mv);
        let enemy = board.colors(!board.side_to_move());
        let captured = if enemy.has(mv.to) {
            board.piece_on(mv.to)
        } else if piece == Piece::Pawn && mv.from.file() != mv.to.file() {
            Some(Piece::Pawn) // en passant
        } else {
            None
        };
        let victim = match captured {
            None => 0,
            Some(Piece::Pawn) => 1,
            Some(Piece::Knight | Piece::Bishop) => 2,
            Some(Piece::Rook) => 3,
            Some(_) => 4,
        };
        let moved = mv.promotion.unwrap_or(piece);
        // The moving piece attacked its destination before the move (a capture, or any
        // piece move but a pawn push), so it counted once among the defenders there.
        let attacks_destination = piece != Piece::Pawn || captured.is_some();
        let defenders = if attacks_destination {
            self.defended_twice
        } else {
            self.defended
        };
        let destination = if castle {
            0
        } else {
            self.safety(moved, mv.to, defenders)
        };
        let escaping = if piece == Piece::King {
            self.in_check
        } else {
            self.safety(piece, mv.from, self.defended) == 2
        };
        let en_passant = captured.is_some() && !enemy.has(mv.to);
        let check = if mv.promotion.is_none() && !castle && !en_passant {
            self.checks.simple_move_gives_check(piece, mv)
        } else {
            let mut after = board.clone();
            after.play_unchecked(mv);
            !after.checkers().is_empty()
        };
        let class =
            ((victim * DESTINATIONS + destination) * 2 + escaping as usize) * 2 + check as usize;
        (TACTIC + class) as u16
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::{legal_moves, parse_fen, parse_uci_move};

    /// (victim, destination, escaping, check) of a move.
    fn class(fen: &str, mv: &str) -> (usize, usize, bool, bool) {
        let board = parse_fen(fen).unwrap();
        let mv = parse_uci_move(&board, mv).unwrap();
        let c = Threats::new(&board).row(&board, mv) as usize - TACTIC;
        (c / 12, c / 4 % 3, c / 2 % 2 == 1, c % 2 == 1)
    }

    #[test]
    fn captures_safety_escapes_and_checks_are_told_apart() {
        // A pawn takes an undefended queen: victim queen, destination not attacked, and
        // the pawn, attacked by the queen and undefended, is escaping.
        assert_eq!(
            class("4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1", "e4d5"),
            (4, 0, true, false)
        );
        // The knight on c3, attacked by the b4 pawn, escapes to a safe square.
        assert_eq!(
            class("4k3/8/8/8/1p6/2N5/8/4K3 w - - 0 1", "c3e4"),
            (0, 0, true, false)
        );
        // A rook walks onto a square a bishop attacks: unsafe.
        assert_eq!(
            class("7k/8/8/6b1/8/R7/8/4K3 w - - 0 1", "a3e3"),
            (0, 2, false, false)
        );
        // A back-rank check.
        assert_eq!(
            class("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "a1a8"),
            (0, 0, false, true)
        );
        // A queen takes a pawn the rook defends: unsafe (the rook is cheaper).
        assert_eq!(
            class("3rk3/8/8/3p4/8/8/8/3QK3 w - - 0 1", "d1d5"),
            (1, 2, false, false)
        );
        // A pawn pushes to a square an enemy pawn attacks and its neighbour defends.
        assert_eq!(
            class("4k3/8/8/2p5/8/3PP3/8/4K3 w - - 0 1", "d3d4"),
            (0, 1, false, false)
        );
        // The same push, undefended.
        assert_eq!(
            class("4k3/8/8/2p5/8/3P4/8/4K3 w - - 0 1", "d3d4"),
            (0, 2, false, false)
        );
    }

    #[test]
    fn every_row_of_every_move_is_in_the_block() {
        let fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
        let board = parse_fen(fen).unwrap();
        let threats = Threats::new(&board);
        for mv in legal_moves(&board) {
            let r = threats.row(&board, mv) as usize;
            assert!((TACTIC..TACTIC + TACTIC_ROWS).contains(&r), "{mv}: {r}");
        }
    }
}

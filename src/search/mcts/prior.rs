//! The prior over a node's legal moves: where PUCT looks first.
//!
//! For now it is hand-written: a softmax over cheap move features. A policy network
//! replaces it later by implementing [`Prior`]; nothing else in the tree search knows
//! where priors come from.

use cozy_chess::{get_pawn_attacks, BitBoard, Board, Color, Move, Piece};

use super::params::*;
use crate::chess::{is_castle, CheckInfo};
use crate::policy::policy_net::softmax_in_place;
use crate::search::movepick::captured_piece;
use crate::search::see::{piece_value, see_ge};

/// Gives each legal move of a position a probability. Implementations must be cheap
/// (called once per expanded node) and shareable between search threads.
pub trait Prior: Send + Sync {
    /// Writes one probability per move of `moves` into `out` (cleared first); they sum
    /// to 1.
    fn priors(&self, board: &Board, moves: &[Move], out: &mut Vec<f32>);
}

/// Softmax over hand-picked features: good captures by victim value, promotions,
/// checks, escapes of attacked pieces, and penalties for moving into a pawn's attack or
/// for losing exchanges.
pub struct HandWritten;

impl Prior for HandWritten {
    fn priors(&self, board: &Board, moves: &[Move], out: &mut Vec<f32>) {
        out.clear();
        let checks = CheckInfo::new(board);
        let them = !board.side_to_move();
        let pawn_attacks = pawn_attacks(board, them);
        for &mv in moves {
            out.push(logit(board, mv, &checks, pawn_attacks));
        }
        softmax_in_place(out, PRIOR_TEMPERATURE);
    }
}

/// The squares the pawns of `color` attack.
fn pawn_attacks(board: &Board, color: Color) -> BitBoard {
    let mut attacks = BitBoard::EMPTY;
    for sq in board.colored_pieces(color, Piece::Pawn) {
        attacks |= get_pawn_attacks(sq, color);
    }
    attacks
}

fn logit(board: &Board, mv: Move, checks: &CheckInfo, pawn_attacks: BitBoard) -> f32 {
    let Some(piece) = board.piece_on(mv.from) else {
        return 0.0;
    };
    if is_castle(board, mv) {
        return PRIOR_CASTLE;
    }
    let mut logit = 0.0;
    let captured = captured_piece(board, mv);
    let gives_check = match (captured, mv.promotion) {
        (None, None) => checks.simple_move_gives_check(piece, mv),
        _ => {
            let mut after = board.clone();
            after.play_unchecked(mv);
            !after.checkers().is_empty()
        }
    };
    if gives_check {
        logit += PRIOR_CHECK;
    }
    match mv.promotion {
        Some(Piece::Queen) => logit += PRIOR_QUEEN_PROMOTION,
        Some(_) => logit += PRIOR_UNDERPROMOTION,
        None => {}
    }
    let safe = see_ge(board, mv, 0);
    if let Some(victim) = captured {
        let gain = piece_value(victim) as f32 / 100.0;
        logit += if safe {
            PRIOR_GOOD_CAPTURE + PRIOR_CAPTURE_PER_PAWN * gain
        } else {
            PRIOR_BAD_CAPTURE
        };
    } else if !safe {
        logit += PRIOR_UNSAFE_QUIET;
    }
    if piece != Piece::Pawn && piece != Piece::King {
        if pawn_attacks.has(mv.to) {
            logit += PRIOR_INTO_PAWN_ATTACK;
        }
        if pawn_attacks.has(mv.from) {
            logit += PRIOR_ESCAPE_PAWN_ATTACK;
        }
    }
    logit
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::{legal_moves, parse_fen, parse_uci_move};

    fn prior_of(fen: &str, mv: &str) -> (f32, f32) {
        let board = parse_fen(fen).unwrap();
        let moves = legal_moves(&board);
        let mut out = Vec::new();
        HandWritten.priors(&board, &moves, &mut out);
        let sum: f32 = out.iter().sum();
        assert!((sum - 1.0).abs() < 1e-4);
        let target = parse_uci_move(&board, mv).unwrap();
        let i = moves.iter().position(|&m| m == target).unwrap();
        (out[i], out.iter().copied().fold(0.0, f32::max))
    }

    #[test]
    fn a_free_queen_and_a_mating_check_are_favoured() {
        // Pawn takes an undefended queen: the top move.
        let (p, max) = prior_of("4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1", "e4d5");
        assert_eq!(p, max);
        // The back-rank check is among the likeliest moves.
        let (p, max) = prior_of("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "a1a8");
        assert_eq!(p, max);
    }

    #[test]
    fn walking_into_a_pawn_attack_is_discouraged() {
        // Nc3-b5 lands on a square the a6 pawn attacks; Nc3-e4 does not.
        let fen = "4k3/8/p7/8/8/2N5/8/4K3 w - - 0 1";
        assert!(prior_of(fen, "c3b5").0 < prior_of(fen, "c3e4").0);
    }
}

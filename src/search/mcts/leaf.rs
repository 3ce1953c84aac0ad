//! What a playout learns at a node it reaches for the first time: an exact result
//! (mate, stalemate, a draw rule, a tablebase verdict) or the value net's judgement,
//! after resolving hanging captures, turned into an expected result by the WDL model.

use cozy_chess::{Board, Move, Piece};

use super::tree::Proof;
use crate::chess::insufficient_material;
use crate::eval::Evaluator;
use crate::search::alphabeta::TablebaseLimits;
use crate::search::movepick::captured_piece;
use crate::search::see::{piece_value, see_ge};
use crate::search::wdl;
use crate::tablebase;

/// The exact result of `board` for its side to move when the game is over there.
/// `hashes` holds the game and the playout's path, `board` last: one earlier occurrence
/// of the position counts as a draw (as in alpha-beta).
pub fn game_over(board: &Board, hashes: &[u64]) -> Option<Proof> {
    if !board.generate_moves(|_| true) {
        return Some(if board.checkers().is_empty() {
            Proof::Draw
        } else {
            Proof::Loss(0)
        });
    }
    if board.halfmove_clock() >= 100 || insufficient_material(board) {
        return Some(Proof::Draw);
    }
    let n = hashes.len();
    let reach = (board.halfmove_clock() as usize).min(n - 1);
    if (4..=reach)
        .step_by(2)
        .any(|back| hashes[n - 1 - back] == hashes[n - 1])
    {
        return Some(Proof::Draw);
    }
    None
}

/// The tables' verdict on `board` for its side to move, when they hold it.
pub fn tablebase_result(board: &Board, tb: &TablebaseLimits) -> Option<Proof> {
    // The tables assume a fresh fifty-move counter: probe right after a capture or pawn move.
    if tb.pieces > 0 && board.halfmove_clock() == 0 && board.occupied().len() <= tb.pieces {
        return Some(match tablebase::probe_wdl(board)?.in_game(tb.rule50) {
            tablebase::Wdl::Win => Proof::TablebaseWin,
            tablebase::Wdl::Loss => Proof::TablebaseLoss,
            _ => Proof::Draw,
        });
    }
    None
}

/// The expected result (0..1) for the side to move of `board`, which `eval` has been
/// pushed to, after resolving captures for up to `capture_plies` plies.
pub fn value(eval: &mut Evaluator, board: &Board, capture_plies: usize) -> f64 {
    let score = if capture_plies > 0 {
        let limit = crate::eval::EVAL_LIMIT;
        quiescence(eval, board, -limit, limit, capture_plies)
    } else {
        eval.evaluate(board)
    };
    wdl::expected_score(score, wdl::material(board))
}

/// A small fail-soft quiescence search over captures that do not lose material (SEE),
/// most valuable victim first. In check it stands pat too: the tree handles checks.
fn quiescence(eval: &mut Evaluator, board: &Board, mut alpha: i32, beta: i32, plies: usize) -> i32 {
    let stand_pat = eval.evaluate(board);
    if plies == 0 || stand_pat >= beta || !board.checkers().is_empty() {
        return stand_pat;
    }
    alpha = alpha.max(stand_pat);
    let mut best = stand_pat;
    let them = board.colors(!board.side_to_move());
    let mut captures: Vec<(i32, Move)> = Vec::new();
    board.generate_moves(|mut moves| {
        moves.to &= them;
        for mv in moves {
            if see_ge(board, mv, 0) {
                let victim = captured_piece(board, mv).map_or(0, piece_value);
                let promotion = (mv.promotion == Some(Piece::Queen)) as i32 * 1000;
                captures.push((victim + promotion, mv));
            }
        }
        false
    });
    captures.sort_unstable_by_key(|&(key, _)| -key);
    for (_, mv) in captures {
        let mut after = board.clone();
        after.play_unchecked(mv);
        eval.push(board, mv, &after);
        let score = -quiescence(eval, &after, -beta, -alpha, plies - 1);
        eval.pop();
        if score > best {
            best = score;
            if score >= beta {
                break;
            }
            alpha = alpha.max(score);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::parse_fen;

    fn exact(fen: &str) -> Option<Proof> {
        let board = parse_fen(fen).unwrap();
        game_over(&board, &[board.hash()])
    }

    #[test]
    fn game_ends_are_exact() {
        // Back-rank mate, stalemate, bare kings, fifty moves.
        assert_eq!(
            exact("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1"),
            Some(Proof::Loss(0))
        );
        assert_eq!(exact("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"), Some(Proof::Draw));
        assert_eq!(exact("8/8/4k3/8/8/3K4/8/8 w - - 0 1"), Some(Proof::Draw));
        assert_eq!(
            exact("8/8/4k3/8/8/3K4/8/R7 w - - 100 90"),
            Some(Proof::Draw)
        );
        assert_eq!(exact("8/8/4k3/8/8/3K4/8/R7 w - - 10 90"), None);
    }

    #[test]
    fn a_repeated_position_is_a_draw() {
        let board = parse_fen("8/8/4k3/8/8/3K4/8/R7 w - - 8 90").unwrap();
        let h = board.hash();
        assert_eq!(game_over(&board, &[h, 1, 2, 3, h]), Some(Proof::Draw));
        assert_eq!(game_over(&board, &[h, 1, 2, h]), None);
    }

    #[test]
    fn a_hanging_queen_is_counted_as_lost() {
        // White to move can take the queen (and Black then the a1 rook): resolving the
        // captures turns a lost-looking leaf (a queen down) into a better one.
        let board = parse_fen("r3k3/8/8/3q4/4P3/8/8/R3K2R w - - 0 1").unwrap();
        let mut eval = Evaluator::new();
        eval.reset(&board);
        let raw = wdl::expected_score(eval.evaluate(&board), wdl::material(&board));
        let resolved = value(&mut eval, &board, super::super::params::LEAF_QSEARCH_PLIES);
        assert!(raw < 0.4 && resolved > raw + 0.2, "{raw} {resolved}");
    }
}

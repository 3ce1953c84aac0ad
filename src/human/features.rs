//! What the human model knows about each legal move: the prior's opinion, Rookery's
//! search at each depth (as the expected result the move gives up against the best one,
//! so a lost pawn weighs more in a level position than in a won one), and cheap facts a
//! player sees at a glance (a capture, a check, a piece left en prise, which piece moves
//! and how far). One definition for the trainer and the engine.

use cozy_chess::{Board, Move, Piece};

use super::scores::MoveScores;
use crate::chess::is_castle;
use crate::search::see::{piece_value, see_ge};
use crate::search::wdl::{material, VALUE};
use crate::search::DECISIVE;

/// The search depths the model reads, shallowest first. The deepest sets the cost of a
/// prediction (docs/human.md measures it).
pub const DEPTHS: [i32; 3] = [1, 3, 5];
/// Features of one move: prior log-probability; per depth the expected result lost
/// against the best move and whether it is the best; capture value, a check, losing
/// material on the exchange, six piece kinds, distance, queen and under-promotion,
/// castling. (Context features — the prior's favourite, the best expected result, being
/// in check, the number of moves — were tried and did not lower the validation loss.)
pub const MOVE_FEATURES: usize = 1 + 2 * DEPTHS.len() + 3 + 6 + 4;

/// Expected result (0..1) for the side to move of a search score.
pub fn expected_result(score: i32, material: i32) -> f32 {
    if score >= DECISIVE {
        return 1.0;
    }
    if score <= -DECISIVE {
        return 0.0;
    }
    let (w, d, _) = VALUE.wdl(score, material);
    (w as f32 + d as f32 / 2.0) / 1000.0
}

/// The feature rows of every legal move (in `scores.moves` order), given the prior's
/// log-probabilities in the same order.
pub fn move_features(
    board: &Board,
    prior_log: &[f32],
    scores: &MoveScores,
) -> Vec<[f32; MOVE_FEATURES]> {
    let m = material(board);
    let expected: Vec<Vec<f32>> = scores
        .scores
        .iter()
        .map(|s| s.iter().map(|&x| expected_result(x, m)).collect())
        .collect();
    let best: Vec<f32> = (0..scores.depths.len())
        .map(|d| expected.iter().map(|e| e[d]).fold(0.0, f32::max))
        .collect();
    let them = board.colors(!board.side_to_move());
    scores
        .moves
        .iter()
        .enumerate()
        .map(|(i, &mv)| {
            let mut f = [0.0f32; MOVE_FEATURES];
            f[0] = prior_log[i].max(-20.0);
            let mut k = 1;
            for d in 0..DEPTHS.len() {
                let e = expected[i].get(d).copied().unwrap_or(0.0);
                let b = best.get(d).copied().unwrap_or(0.0);
                f[k] = b - e;
                f[k + 1] = if b - e <= 1e-6 { 1.0 } else { 0.0 };
                k += 2;
            }
            let piece = board.piece_on(mv.from).unwrap_or(Piece::Pawn);
            let castle = is_castle(board, mv);
            let victim = if castle || !them.has(mv.to) {
                None
            } else {
                board.piece_on(mv.to)
            };
            f[k] = victim.map_or(0.0, |v| {
                piece_value(v) as f32 / piece_value(Piece::Queen) as f32
            });
            f[k + 1] = gives_check(board, mv) as u8 as f32;
            f[k + 2] = (!castle && !see_ge(board, mv, 0)) as u8 as f32;
            k += 3;
            f[k + piece as usize] = 1.0;
            k += 6;
            f[k] = distance(mv) as f32 / 7.0;
            f[k + 1] = (mv.promotion == Some(Piece::Queen)) as u8 as f32;
            f[k + 2] = matches!(mv.promotion, Some(p) if p != Piece::Queen) as u8 as f32;
            f[k + 3] = castle as u8 as f32;
            f
        })
        .collect()
}

fn gives_check(board: &Board, mv: Move) -> bool {
    let mut after = board.clone();
    after.play_unchecked(mv);
    !after.checkers().is_empty()
}

/// Chebyshev distance a piece travels (castling counts the king's two squares).
fn distance(mv: Move) -> u32 {
    let df = (mv.from.file() as i32 - mv.to.file() as i32).unsigned_abs();
    let dr = (mv.from.rank() as i32 - mv.to.rank() as i32).unsigned_abs();
    df.max(dr).min(7)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn features_say_what_the_move_is() {
        let board = crate::chess::parse_fen("4k3/8/8/4p3/3Q4/8/8/4K3 w - - 0 1").unwrap();
        let moves = crate::chess::legal_moves(&board);
        let n = moves.len();
        let scores = MoveScores {
            moves: moves.clone(),
            depths: DEPTHS.to_vec(),
            scores: moves
                .iter()
                .map(|m| vec![if m.to_string() == "d4e5" { 300 } else { -600 }; 3])
                .collect(),
            nodes: 0,
        };
        let f = move_features(&board, &vec![-(n as f32).ln(); n], &scores);
        let at = |uci: &str| &f[moves.iter().position(|m| m.to_string() == uci).unwrap()];
        let take = at("d4e5");
        assert_eq!(take[1], 0.0, "the best move loses nothing");
        assert_eq!(take[2], 1.0, "and is the best");
        assert!(
            (take[7] - 1.0 / 9.0).abs() < 0.05,
            "captures a pawn: {}",
            take[7]
        );
        assert_eq!(take[8], 1.0, "Qxe5+ gives check");
        let walk = at("e1e2");
        assert!(
            walk[1] > 0.3,
            "leaving the queen en prise loses: {}",
            walk[1]
        );
        assert_eq!(walk[10 + Piece::King as usize], 1.0);
        assert_eq!(at("d4f4")[9], 1.0, "Qf4 walks into the pawn's capture");
        assert!((at("d4a7")[16] - 3.0 / 7.0).abs() < 1e-6);
    }
}

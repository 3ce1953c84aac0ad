//! What a playout learns at a node it reaches for the first time: an exact result
//! (mate, stalemate, a draw rule, a tablebase verdict) or a score turned into an
//! expected result by the WDL model. The score comes from alpha-beta's own search
//! (`SearchThread::leaf_score`, by default its quiescence search) or, with
//! `MCTS_LEAF_DEPTH` −1, from the value net after the small capture resolution here.

use cozy_chess::{Board, Move, Piece};

use super::tree::{Proof, Tree};
use crate::chess::{insufficient_material, CheckInfo};
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

/// Whether `mv` (legal in `board`) gives check: told by `checks`, except for promotions,
/// castling (the king takes its own rook) and en passant, which are played.
fn gives_check(board: &Board, checks: &CheckInfo, piece: Piece, mv: Move) -> bool {
    let enemy = board.colors(!board.side_to_move());
    let special = mv.promotion.is_some()
        || board.colors(board.side_to_move()).has(mv.to)
        || (piece == Piece::Pawn && mv.from.file() != mv.to.file() && !enemy.has(mv.to));
    if !special {
        return checks.simple_move_gives_check(piece, mv);
    }
    let mut after = board.clone();
    after.play_unchecked(mv);
    !after.checkers().is_empty()
}

/// Whether `board` is mate (its side to move is in check and has no move).
fn is_mate(board: &Board) -> bool {
    !board.checkers().is_empty() && !board.generate_moves(|_| true)
}

/// Whether the side to move of `board` has a move that mates.
pub fn has_mate_in_one(board: &Board) -> bool {
    let checks = CheckInfo::new(board);
    board.generate_moves(|moves| {
        moves.into_iter().any(|mv| {
            gives_check(board, &checks, moves.piece, mv) && {
                let mut after = board.clone();
                after.play_unchecked(mv);
                is_mate(&after)
            }
        })
    })
}

/// Whether the last of `path` followed by `next` occurred before (as in [`game_over`]),
/// `halfmove` being that position's fifty-move counter.
fn repeats(path: &[u64], next: &[u64], halfmove: usize) -> bool {
    let n = path.len() + next.len();
    let at = |i: usize| {
        if i < path.len() {
            path[i]
        } else {
            next[i - path.len()]
        }
    };
    let last = at(n - 1);
    (4..=halfmove.min(n - 1))
        .step_by(2)
        .any(|back| at(n - 1 - back) == last)
}

/// The moves of `moves` (legal in `board`) that give check, by index, each with what is
/// proven about the position after it: `Loss(0)` when it mates, `Loss(2)` when every
/// reply allows a mate in one (a checks-only mate-in-two search, the shallow solver of
/// MCTS-minimax hybrids), else `Unknown`. Exact under this search's rules: a position
/// of the line that repeats one of `hashes` (the game and the path, `board` last) or
/// reaches the fifty-move limit is a draw, so such lines prove nothing. Cheap: only
/// checks are played, and a check is given up at its first reply without a mate in one.
pub fn checking_moves(
    board: &Board,
    moves: &[Move],
    hashes: &[u64],
    out: &mut Vec<(usize, Proof)>,
) {
    out.clear();
    let checks = CheckInfo::new(board);
    for (i, &mv) in moves.iter().enumerate() {
        let Some(piece) = board.piece_on(mv.from) else {
            continue;
        };
        if !gives_check(board, &checks, piece, mv) {
            continue;
        }
        let mut after = board.clone();
        after.play_unchecked(mv);
        let proof = if is_mate(&after) {
            Proof::Loss(0)
        } else if mates_after_every_reply(&after, hashes) {
            Proof::Loss(2)
        } else {
            Proof::Unknown
        };
        out.push((i, proof));
    }
}

/// Whether every legal reply of `board` (the defender to move, in check) allows a mate
/// in one, no position on the way being drawn by repetition or the fifty-move rule.
fn mates_after_every_reply(board: &Board, hashes: &[u64]) -> bool {
    // The mating side moves next at the counter + 1; 100 would be a draw first.
    if board.halfmove_clock() >= 99
        || insufficient_material(board)
        || repeats(hashes, &[board.hash()], board.halfmove_clock() as usize)
    {
        return false;
    }
    let mut all = true;
    board.generate_moves(|moves| {
        for mv in moves {
            let mut after = board.clone();
            after.play_unchecked(mv);
            let drawn = repeats(
                hashes,
                &[board.hash(), after.hash()],
                after.halfmove_clock() as usize,
            );
            if drawn || insufficient_material(&after) || !has_mate_in_one(&after) {
                all = false;
                return true;
            }
        }
        false
    });
    all
}

/// Proves the children of `index` (just expanded from `moves`) that mate at once or in
/// two by checks: such mates are known at once,
/// not when PUCT first tries the move (a sacrificial check or a quiet mate with a
/// small prior could wait thousands of visits). Returns whether a child was proven.
pub fn prove_mates_by_checks(
    tree: &Tree,
    index: usize,
    board: &Board,
    moves: &[Move],
    hashes: &[u64],
    scratch: &mut Vec<(usize, Proof)>,
) -> bool {
    let range = tree.node(index).child_range();
    if range.len() != moves.len() {
        return false;
    }
    checking_moves(board, moves, hashes, scratch);
    let mut proven = false;
    for &(i, proof) in scratch.iter() {
        if proof != Proof::Unknown {
            tree.node(range.start + i).set_proof(proof);
            proven = true;
        }
    }
    proven
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
    expected_result(score, board)
}

/// The expected result (0..1) for the side to move of `board` of a score in centipawns
/// (mate scores saturate to 0 or 1).
pub fn expected_result(score: i32, board: &Board) -> f64 {
    wdl::VALUE.expected_score(score, wdl::material(board))
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
    fn mates_in_one_are_found_among_all_kinds_of_moves() {
        for (fen, mates) in [
            // Back rank (quiet), none, a capture that mates (Qxf7#), promotions that
            // mate, none with en passant and castling on the board.
            ("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", vec!["a1a8"]),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                vec![],
            ),
            (
                "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
                vec!["h5f7"],
            ),
            ("k7/1p6/1K6/8/8/8/8/2R5 w - - 0 1", vec!["c1c8"]),
            ("k7/2P5/1K6/8/8/8/8/8 w - - 0 1", vec!["c7c8q", "c7c8r"]),
            ("6rk/6pp/8/3pP3/8/8/8/4K2R w K d6 0 1", vec![]),
        ] {
            let board = parse_fen(fen).unwrap();
            let moves = crate::chess::legal_moves(&board);
            let mut found = Vec::new();
            checking_moves(&board, &moves, &[board.hash()], &mut found);
            let mut found: Vec<String> = found
                .iter()
                .filter(|&&(_, proof)| proof == Proof::Loss(0))
                .map(|&(i, _)| crate::chess::move_to_uci(&board, moves[i], false))
                .collect();
            found.sort();
            // Brute force agrees: a move mates iff the position after it is mate.
            let mut brute: Vec<String> = moves
                .iter()
                .filter(|&&mv| {
                    let mut after = board.clone();
                    after.play_unchecked(mv);
                    game_over(&after, &[after.hash()]) == Some(Proof::Loss(0))
                })
                .map(|&mv| crate::chess::move_to_uci(&board, mv, false))
                .collect();
            brute.sort();
            assert_eq!(found, brute, "{fen}");
            assert_eq!(found, mates, "{fen}");
        }
    }

    #[test]
    fn mates_in_two_by_checks_are_found_unless_a_draw_comes_first() {
        let mate_in_two = |fen: &str, hashes: &[u64]| {
            let board = parse_fen(fen).unwrap();
            let moves = crate::chess::legal_moves(&board);
            let mut found = Vec::new();
            let mut hashes = hashes.to_vec();
            hashes.push(board.hash());
            checking_moves(&board, &moves, &hashes, &mut found);
            let mut found: Vec<String> = found
                .iter()
                .filter(|&&(_, proof)| proof == Proof::Loss(2))
                .map(|&(i, _)| crate::chess::move_to_uci(&board, moves[i], false))
                .collect();
            found.sort();
            found
        };
        // Legal's pattern: Nf6+ gxf6, Bxf7#.
        let legal = "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 10";
        assert_eq!(mate_in_two(legal, &[]), vec!["d5f6"]);
        // ...Qb6+ Kd5, Qd6# (from the Bc5+ mate of tests/mcts.rs).
        let queen = "r1b1k2r/pppp1ppp/5q2/2K1n3/4P3/2N3PN/PPP4P/R1BQ1B1R b kq - 0 2";
        assert_eq!(mate_in_two(queen, &[]), vec!["f6b6"]);
        // The same at the fifty-move limit: the mating move would come too late.
        let late = "r1b1k2r/pppp1ppp/5q2/2K1n3/4P3/2N3PN/PPP4P/R1BQ1B1R b kq - 98 60";
        assert!(mate_in_two(late, &[]).is_empty());
        // The position after the reply occurred before: a draw by this search's rules
        // (the fifty-move counter must let the repetition reach back).
        let queen = "r1b1k2r/pppp1ppp/5q2/2K1n3/4P3/2N3PN/PPP4P/R1BQ1B1R b kq - 10 20";
        let mut after = parse_fen(queen).unwrap();
        for mv in ["f6b6", "c5d5"] {
            after.play_unchecked(crate::chess::parse_uci_move(&after, mv).unwrap());
        }
        assert!(mate_in_two(queen, &[after.hash(), 1, 2, 3]).is_empty());
        assert_eq!(mate_in_two(queen, &[after.hash(), 1, 2]), vec!["f6b6"]);
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
        let raw = wdl::VALUE.expected_score(eval.evaluate(&board), wdl::material(&board));
        let resolved = value(&mut eval, &board, super::super::params::LEAF_QSEARCH_PLIES);
        assert!(raw < 0.4 && resolved > raw + 0.2, "{raw} {resolved}");
    }
}

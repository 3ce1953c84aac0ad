//! Move picker tests: every legal move exactly once and in stage order, quiescence's
//! generator against cozy-chess's, and pruned quiets dropped without changing the order.

use super::generate::{is_noisy, legal_noisy_moves};
use super::*;
use crate::chess::legal_moves as legal;
use std::collections::HashSet;

const FENS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    // Kiwipete: castling both ways, captures of every kind, pins.
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    // Promotions with and without capture, en passant available.
    "r3k3/1P6/8/3pP3/8/8/6p1/4K2R w Kq d6 0 2",
    "4k3/8/8/8/8/8/1p6/R1N1K3 b - - 0 1",
    // In check: evasions only.
    "4k3/8/8/8/8/8/3q4/4K3 w - - 0 1",
];

fn handed_out(board: &Board, tt: Option<Move>, noisy_only: bool) -> Vec<ScoredMove> {
    let history = History::default();
    let ctx = OrderingContext {
        history: &history,
        killers: [None, None],
        conts: [None, None],
        policy: None,
    };
    let mut picker = MovePicker::new(board, tt, noisy_only);
    std::iter::from_fn(|| picker.next_move(&ctx)).collect()
}

#[test]
fn every_legal_move_once_tt_move_first() {
    for fen in FENS {
        let board: Board = fen.parse().unwrap();
        let all = legal(&board);
        for tt in [None, all.last().copied()] {
            let out = handed_out(&board, tt, false);
            let got: Vec<Move> = out.iter().map(|s| s.mv).collect();
            let unique: HashSet<Move> = got.iter().copied().collect();
            assert_eq!(got.len(), all.len(), "{fen}: a move twice or missing");
            assert_eq!(unique, all.iter().copied().collect(), "{fen}");
            if let Some(tt) = tt {
                assert_eq!(got[0], tt, "{fen}: TT move first");
            }
            for s in &out {
                assert_eq!(s.captured, captured_piece(&board, s.mv), "{fen} {}", s.mv);
            }
            // Stages in order: after the TT move, scores never rise except where a
            // losing capture follows the quiets (it was set aside in stage 2).
            let classes: Vec<u8> = out[tt.is_some() as usize..]
                .iter()
                .map(|s| match s.score {
                    x if x >= GOOD_CAPTURE => 0,
                    x if x > BAD_CAPTURE / 2 => 1,
                    x if x >= UNDER_PROMOTION
                        && s.mv.promotion.is_some()
                        && s.captured.is_none() =>
                    {
                        2
                    }
                    _ => 3,
                })
                .collect();
            assert!(
                classes.windows(2).all(|w| w[0] <= w[1]),
                "{fen}: {classes:?}"
            );
            for s in &out {
                if s.score >= GOOD_CAPTURE && s.score < TT_SCORE && s.captured.is_some() {
                    assert!(
                        see_ge(&board, s.mv, 0),
                        "{fen}: {} is not a good capture",
                        s.mv
                    );
                }
                if MovePicker::is_bad_capture(s.score) && s.captured.is_some() {
                    assert!(!see_ge(&board, s.mv, 0), "{fen}: {} is not losing", s.mv);
                }
            }
        }
    }
}

#[test]
fn quiescence_gets_noisy_moves_or_every_evasion() {
    for fen in FENS {
        let board: Board = fen.parse().unwrap();
        let got: HashSet<Move> = handed_out(&board, None, true)
            .iter()
            .map(|s| s.mv)
            .collect();
        let expected: HashSet<Move> = legal(&board)
            .into_iter()
            .filter(|&mv| !board.checkers().is_empty() || is_noisy(captured_piece(&board, mv), mv))
            .collect();
        assert_eq!(got, expected, "{fen}");
    }
}

#[test]
fn no_moves_is_empty() {
    let mate: Board = "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1".parse().unwrap();
    assert!(MovePicker::new(&mate, None, false).is_empty());
    let start = Board::default();
    assert!(!MovePicker::new(&start, None, false).is_empty());
}

/// Quiescence's generator lists exactly the noisy moves of cozy-chess's full
/// generator, in the same order, on positions from random games (captures,
/// promotions, en passant, pins and castling rights all come up), and on positions
/// chosen for en passant into a pin and a king that can capture only a guarded piece.
#[test]
fn legal_noisy_moves_match_the_full_generator() {
    use rand::seq::SliceRandom;
    use rand::SeedableRng;
    let noisy_of = |board: &Board, pms: Vec<PieceMoves>| -> Vec<Move> {
        pms.into_iter()
            .flatten()
            .filter(|&mv| is_noisy(captured_piece(board, mv), mv))
            .collect()
    };
    let mut boards: Vec<Board> = [
        "8/8/8/KPp4r/8/8/8/4k3 w - c6 0 2",
        "8/8/3k4/8/2pP4/8/8/K5B1 b - d3 0 1",
        "4k3/8/8/8/8/3r4/3n4/4K3 w - - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "1r2k3/P1P5/8/8/8/8/5p1p/K5R1 w - - 0 1",
    ]
    .iter()
    .map(|f| f.parse().unwrap())
    .collect();
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    for _ in 0..60 {
        let mut board = Board::default();
        for _ in 0..200 {
            let Some(&mv) = legal(&board).choose(&mut rng) else {
                break;
            };
            board.play_unchecked(mv);
            boards.push(board.clone());
        }
    }
    let (mut compared, mut with_noisy) = (0, 0);
    for board in boards.iter().filter(|b| b.checkers().is_empty()) {
        let mut full = Vec::new();
        board.generate_moves(|pm| {
            full.push(pm);
            false
        });
        let mut fast = Vec::new();
        legal_noisy_moves(board, |pm| fast.push(pm));
        let (expected, got) = (noisy_of(board, full), noisy_of(board, fast.clone()));
        assert_eq!(got, expected, "{board}");
        // Nothing else either: every listed move is legal and noisy or a promotion.
        for mv in fast.into_iter().flatten() {
            assert!(board.is_legal(mv), "{board}: {mv} is not legal");
            assert!(
                is_noisy(captured_piece(board, mv), mv) || mv.promotion.is_some(),
                "{board}: {mv} is quiet"
            );
        }
        compared += 1;
        with_noisy += !expected.is_empty() as usize;
    }
    assert!(
        compared > 5_000 && with_noisy > 2_000,
        "{compared} / {with_noisy}"
    );
}

/// After `skip_quiets`, the picker hands out exactly the moves the search would not
/// have skipped, in the same order: quiet checks, castling and under-promotions among
/// the quiets left, then the losing captures.
#[test]
fn skip_quiets_keeps_checks_castling_and_order() {
    let fens = [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "r3k2r/8/8/3n4/8/2B5/1q1PP3/R3K2R w KQkq - 0 1",
        "4k3/1P6/8/8/3Q4/8/6N1/R3K3 w Q - 0 1",
        "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 2 3",
    ];
    let history = History::default();
    let ctx = OrderingContext {
        history: &history,
        killers: [None, None],
        conts: [None, None],
        policy: None,
    };
    let (mut checked_some, mut kept_quiet_check) = (false, false);
    for fen in fens {
        let board: Board = fen.parse().unwrap();
        let checks = CheckInfo::new(&board);
        let kept = |s: &ScoredMove| {
            let quiet = s.captured.is_none() && s.mv.promotion.is_none();
            let gives_check = {
                let mut child = board.clone();
                child.play_unchecked(s.mv);
                !child.checkers().is_empty()
            };
            !quiet || gives_check || crate::chess::is_castle(&board, s.mv)
        };
        let full = handed_out(&board, None, false);
        let is_quiet_stage =
            |s: &ScoredMove| s.score < GOOD_CAPTURE && !MovePicker::is_bad_capture(s.score);
        for skip_after in 1..6 {
            let mut picker = MovePicker::new(&board, None, false);
            let mut got = Vec::new();
            let mut quiets = 0;
            while let Some(s) = picker.next_move(&ctx) {
                got.push(s.mv);
                if is_quiet_stage(&s) && s.mv.promotion.is_none() {
                    quiets += 1;
                    if quiets == skip_after {
                        picker.skip_quiets(&checks);
                        break;
                    }
                }
            }
            let n = got.len();
            got.extend(std::iter::from_fn(|| picker.next_move(&ctx)).map(|s| s.mv));
            let expected: Vec<Move> = full[..n]
                .iter()
                .map(|s| s.mv)
                .chain(full[n..].iter().filter(|s| kept(s)).map(|s| s.mv))
                .collect();
            checked_some |= full[n..].iter().any(|s| !kept(s));
            kept_quiet_check |= full[n..]
                .iter()
                .any(|s| kept(s) && s.captured.is_none() && s.mv.promotion.is_none());
            assert_eq!(got, expected, "{fen}, skipping after {skip_after} quiets");
        }
    }
    assert!(checked_some, "no position had a quiet move to skip");
    assert!(
        kept_quiet_check,
        "no position kept a quiet check or castling"
    );
}

/// Sorting the rest of the quiets after a few picks hands them out in exactly the
/// order that picking the first best each time would (so search results do not
/// depend on where the switch happens).
#[test]
fn sorted_rest_matches_repeated_selection() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let moves: Vec<Move> = legal(
        &"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
            .parse::<Board>()
            .unwrap(),
    );
    for _ in 0..200 {
        let n = rng.gen_range(0..moves.len());
        // Few distinct scores, so ties are common.
        let list: Vec<ScoredMove> = moves[..n]
            .iter()
            .map(|&mv| ScoredMove {
                mv,
                score: rng.gen_range(-3..3),
                captured: None,
            })
            .collect();
        let mut selected = Vec::new();
        let mut rest = list.clone();
        while !rest.is_empty() {
            let best =
                (1..rest.len()).fold(0, |b, i| if rest[i].score > rest[b].score { i } else { b });
            selected.push(rest.remove(best).mv);
        }
        let mut sorted = list.clone();
        sort_descending_stable(&mut sorted);
        let sorted: Vec<Move> = sorted.iter().map(|m| m.mv).collect();
        assert_eq!(sorted, selected);
    }
}

#[test]
fn with_the_policy_every_move_comes_once_and_fresh_quiets_follow_its_logits() {
    let net = crate::policy::default_policy();
    let history = History::default();
    let ctx = OrderingContext {
        history: &history,
        killers: [None, None],
        conts: [None, None],
        policy: Some(&net),
    };
    for fen in FENS {
        let board: Board = fen.parse().unwrap();
        let mut picker = MovePicker::new(&board, None, false);
        let out: Vec<ScoredMove> = std::iter::from_fn(|| picker.next_move(&ctx)).collect();
        let got: HashSet<Move> = out.iter().map(|s| s.mv).collect();
        assert_eq!(out.len(), got.len(), "{fen}: a move twice");
        assert_eq!(got, legal(&board).into_iter().collect(), "{fen}");
        // With an empty history a quiet's score is its scaled logit alone, so the quiet
        // stage hands them out by the policy's preference.
        let prepared = net.prepare(&board);
        let logits: Vec<f32> = out
            .iter()
            .filter(|s| s.captured.is_none() && s.mv.promotion.is_none())
            .map(|s| net.prepared_logit(&prepared, &board, s.mv))
            .collect();
        assert!(!logits.is_empty(), "{fen}: no quiet move");
        let scale = crate::search::params::POLICY_ORDER_SCALE() as f32;
        for pair in logits.windows(2) {
            assert!(
                pair[0] + 1.0 / scale >= pair[1],
                "{fen}: quiets out of the policy's order {pair:?}"
            );
        }
    }
}

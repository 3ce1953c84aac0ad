//! The human model and the levels built on it (issue 56 items 2–3): the embedded model
//! gives every legal move and nothing else a probability, summing to 1; a level draws
//! a legal move, the same one for the same seed; through UCI a human level answers
//! with a legal move and its `Show Human Moves` line, the lowest level is accepted and
//! one below it refused with the previous level kept; the top human level is guarded,
//! says so, and plays legal moves.

mod common;

use std::time::Duration;

use common::{bestmove_of, resolve_move, Engine};
use cozy_chess::Board;
use rookery::chess::{legal_moves, Position};
use rookery::human::levels::{HumanLevel, HUMAN_MAX_ELO, HUMAN_MIN_ELO};
use rookery::human::model::HumanModel;
use rookery::policy::PriorQuery;
use rookery::search::Searcher;

const POSITIONS: [&str; 4] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "8/P5k1/8/8/8/8/6K1/8 w - - 0 60",
    "r3k2r/ppp2ppp/2n1bn2/3qp3/3P4/2N1BN2/PPP1QPPP/R3K2R b KQkq - 3 9",
];

fn query(rating: u16) -> PriorQuery {
    PriorQuery {
        mover_rating: rating,
        opponent_rating: rating,
        time_bucket: 2,
    }
}

#[test]
fn the_model_covers_the_legal_moves_and_sums_to_one() {
    let model = HumanModel::default();
    let mut searcher = Searcher::new(4, 1);
    for fen in POSITIONS {
        let board: Board = fen.parse().unwrap();
        let pos = Position::new(board.clone());
        for rating in [800, 1500, 2300] {
            let p = model
                .predict(&mut searcher, &pos, &query(rating), None)
                .expect("a position with moves");
            let mut moves = p.moves.clone();
            let mut legal = legal_moves(&board);
            moves.sort_by_key(|m| m.to_string());
            legal.sort_by_key(|m| m.to_string());
            assert_eq!(moves, legal, "{fen}");
            let sum: f32 = p.probabilities.iter().sum();
            assert!((sum - 1.0).abs() < 1e-4, "{fen} at {rating}: sum {sum}");
            assert!(p.probabilities.iter().all(|&x| (0.0..=1.0).contains(&x)));
        }
    }
    // A finished game has no prediction.
    let mate: Board = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"
        .parse()
        .unwrap();
    assert!(model
        .predict(&mut searcher, &Position::new(mate), &query(1500), None)
        .is_none());
}

#[test]
fn the_model_sees_a_mate_in_one_at_every_rating() {
    // Scholar's mate: Qxf7#. The prior alone gives it about one in six at 1200 (the
    // queen is attacked, and a retreat is what it expects); the search makes it the
    // favourite at every rating, more surely the stronger the player.
    let board: Board = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"
        .parse()
        .unwrap();
    let model = HumanModel::default();
    let mut searcher = Searcher::new(4, 1);
    let mut last = 0.0;
    for rating in [800, 1200, 1900] {
        let p = model
            .predict(
                &mut searcher,
                &Position::new(board.clone()),
                &query(rating),
                None,
            )
            .unwrap();
        let (top, prob) = p.top().unwrap();
        assert_eq!(top.to_string(), "h5f7", "at {rating}");
        assert!(prob > 0.4, "Qxf7# only {prob} at {rating}");
        assert!(prob > last, "Qxf7# {prob} at {rating}, {last} below it");
        last = prob;
    }
}

#[test]
fn a_level_draws_a_legal_move_and_repeats_it_for_a_seed() {
    let model = HumanModel::default();
    let mut searcher = Searcher::new(4, 1);
    let level = HumanLevel::from_elo(1200).unwrap();
    for fen in POSITIONS {
        let board: Board = fen.parse().unwrap();
        let p = model
            .predict(
                &mut searcher,
                &Position::new(board.clone()),
                &query(level.model_rating),
                None,
            )
            .unwrap();
        for seed in 0..20 {
            let mv = level.choose(&p, seed).unwrap();
            assert!(board.is_legal(mv), "{fen}: {mv}");
            assert_eq!(level.choose(&p, seed), Some(mv));
        }
    }
}

#[test]
fn a_human_level_plays_legal_moves_through_uci() {
    let mut e = Engine::ready();
    e.send("setoption name UCI_LimitStrength value true");
    e.send(&format!("setoption name UCI_Elo value {HUMAN_MIN_ELO}"));
    let lines = e.sync();
    assert!(
        lines
            .iter()
            .any(|l| l.contains(&format!("playing at about {HUMAN_MIN_ELO} Elo"))),
        "{lines:?}"
    );
    e.send(&format!(
        "setoption name UCI_Elo value {}",
        HUMAN_MIN_ELO - 1
    ));
    assert!(e.sync().iter().any(|l| l.starts_with("info string error")));
    e.send("setoption name Show Human Moves value true");
    e.send("setoption name Human Timing value false");
    let mut moves: Vec<&str> = Vec::new();
    let mut played = Vec::new();
    for _ in 0..6 {
        let board = common::board_after(rookery::chess::STARTPOS_FEN, &moves);
        e.send(&format!("position startpos moves {}", moves.join(" ")));
        let (info, best) = e.go(
            "go wtime 30000 btime 30000 winc 300 binc 300",
            Duration::from_secs(20),
        );
        let mv = bestmove_of(&best).to_string();
        resolve_move(&board, &mv, false).unwrap_or_else(|err| panic!("{err}: {best}"));
        // Still the lowest level: the line names it.
        assert!(
            info.iter()
                .any(|l| l.starts_with(&format!("info string human {HUMAN_MIN_ELO}: "))),
            "{info:?}"
        );
        played.push(mv);
        moves = played.iter().map(String::as_str).collect();
    }
}

#[test]
fn the_top_human_level_is_guarded_and_plays_legal_moves_through_uci() {
    let mut e = Engine::ready();
    e.send("setoption name UCI_LimitStrength value true");
    e.send(&format!("setoption name UCI_Elo value {HUMAN_MAX_ELO}"));
    let lines = e.sync();
    assert!(
        lines.iter().any(|l| l.contains(&format!(
            "playing at about {HUMAN_MAX_ELO} Elo: moves drawn from the human model"
        )) && l.contains("guard")),
        "{lines:?}"
    );
    // The calibration option sets the guard's depth, and only the depth.
    e.send("setoption name Human Guard Depth value 7");
    let lines = e.sync();
    assert!(
        lines
            .iter()
            .any(|l| l.contains("guard ") && l.contains("at depth 7")),
        "{lines:?}"
    );
    e.send("setoption name Human Guard Depth value 0");
    // Past the top human level the node-limited levels play.
    e.send(&format!(
        "setoption name UCI_Elo value {}",
        HUMAN_MAX_ELO + 1
    ));
    assert!(
        e.sync().iter().any(|l| l.contains("nodes per move")),
        "the level above the human range is node-limited"
    );
    e.send(&format!("setoption name UCI_Elo value {HUMAN_MAX_ELO}"));
    e.send("setoption name Human Timing value false");
    for fen in POSITIONS {
        let board: Board = fen.parse().unwrap();
        e.send(&format!("position fen {fen}"));
        let (_, best) = e.go(
            "go wtime 30000 btime 30000 winc 300 binc 300",
            Duration::from_secs(20),
        );
        let mv = bestmove_of(&best).to_string();
        resolve_move(&board, &mv, false).unwrap_or_else(|err| panic!("{fen}: {err}: {best}"));
    }
}

#[test]
fn a_file_that_is_not_a_combiner_is_refused_with_a_reason() {
    use rookery::human::combiner::Combiner;
    let garbage = Combiner::from_bytes(b"not a net").err().expect("refused");
    assert!(garbage.contains("not a safetensors"), "{garbage}");
    let prior = Combiner::from_bytes(rookery::policy::DEFAULT_PRIOR)
        .err()
        .expect("the prior is not a combiner");
    assert!(prior.contains("not a human-model combiner"), "{prior}");
    let missing = Combiner::load(std::path::Path::new("/nonexistent/c.safetensors"))
        .err()
        .expect("missing file refused");
    assert!(missing.contains("cannot read combiner"), "{missing}");
}

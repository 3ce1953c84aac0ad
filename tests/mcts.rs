//! The MCTS mode (`SearchMode mcts`): mates found by playouts, legal answers from many
//! random positions, and whole UCI sessions (mode switches, `stop`, `isready`, pondering,
//! forced moves, Chess960 castling, `info` fields). Limits are playouts except where the
//! protocol itself is under test.

mod common;
mod uci_support;

use std::time::{Duration, Instant};

use common::{bestmove_of, board_after, Engine, WAIT};
use rand::{rngs::StdRng, Rng, SeedableRng};
use rookery::chess::{legal_moves, move_to_uci, parse_fen, Position, STARTPOS_FEN};
use rookery::search::{score_to_uci, SearchLimits, SearchMode, SearchOptions, Searcher, Silent};
use uci_support::{assert_legal, infos, position_cmd};

const SHORT: Duration = Duration::from_millis(500);

fn mcts(threads: usize) -> Searcher {
    let mut s = Searcher::new(64, threads);
    s.set_mode(SearchMode::Mcts).expect("memory for the tree");
    s
}

/// Searches `fen` with `playouts` and checks the score text and the first move.
fn assert_mate(fen: &str, playouts: u64, mate: &str, first: &str) {
    let board = parse_fen(fen).unwrap();
    let limits = SearchLimits {
        nodes: Some(playouts),
        ..Default::default()
    };
    let result = mcts(1).search(
        &Position::new(board.clone()),
        &limits,
        &SearchOptions::default(),
        &Silent,
    );
    let best = result.best_move.expect("a move");
    assert_eq!(score_to_uci(result.score), mate, "{fen}");
    assert_eq!(move_to_uci(&board, best, false), first, "{fen}");
}

#[test]
fn mates_in_one() {
    assert_mate("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", 2_000, "mate 1", "a1a8");
    assert_mate(
        "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2",
        2_000,
        "mate 1",
        "d8h4",
    );
    assert_mate(
        "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
        2_000,
        "mate 1",
        "h5f7",
    );
}

#[test]
fn mates_in_two() {
    assert_mate(
        "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 10",
        100_000,
        "mate 2",
        "d5f6",
    );
    assert_mate(
        "6k1/pp4p1/2p5/2bp4/8/P5Pb/1P3rrP/2BRRN1K b - - 0 1",
        100_000,
        "mate 2",
        "g2g1",
    );
}

#[test]
fn mates_in_three() {
    assert_mate(
        "r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1",
        300_000,
        "mate 3",
        "f6a6",
    );
    assert_mate(
        "r1b1kb1r/pppp1ppp/5q2/4n3/3KP3/2N3PN/PPP4P/R1BQ1B1R b kq - 0 1",
        300_000,
        "mate 3",
        "f8c5",
    );
}

#[test]
fn bestmove_is_legal_in_many_random_positions() {
    let mut rng = StdRng::seed_from_u64(57);
    let mut searcher = mcts(2);
    for game in 0..12 {
        let mut pos = Position::default();
        for _ply in 0..rng.gen_range(10..120) {
            let moves = legal_moves(&pos.board);
            if moves.is_empty() {
                break;
            }
            pos.play(moves[rng.gen_range(0..moves.len())]);
            if rng.gen_bool(0.15) {
                let limits = SearchLimits {
                    nodes: Some(rng.gen_range(1..400)),
                    ..Default::default()
                };
                let result = searcher.search(&pos, &limits, &SearchOptions::default(), &Silent);
                let legal = legal_moves(&pos.board);
                match result.best_move {
                    Some(mv) => assert!(legal.contains(&mv), "game {game}: {} {mv}", pos.board),
                    None => assert!(legal.is_empty(), "game {game}: no move in {}", pos.board),
                }
            }
        }
        if game % 4 == 3 {
            searcher.clear();
        }
    }
}

fn mcts_engine() -> Engine {
    let mut e = Engine::ready();
    e.send("setoption name SearchMode value mcts");
    e.sync();
    e
}

#[test]
fn search_mode_switches_mid_session() {
    let mut e = Engine::ready();
    e.send("position startpos moves e2e4 e7e5");
    let board = board_after(STARTPOS_FEN, &["e2e4", "e7e5"]);
    let (lines, best) = e.go("go depth 4", WAIT);
    assert_legal(&board, &best, false);
    assert!(infos(&lines).iter().any(|i| i.fields["depth"] == "4"));
    e.send("setoption name SearchMode value mcts");
    e.send("setoption name UCI_ShowWDL value true");
    let (lines, best) = e.go("go nodes 500", WAIT);
    assert_legal(&board, &best, false);
    let last = infos(&lines).pop().expect("an info line");
    assert_eq!(last.fields["nodes"], "500");
    assert!(last.score.starts_with("cp "), "{}", last.score);
    assert!(last.fields.contains_key("wdl") && last.fields.contains_key("seldepth"));
    assert_eq!(last.pv[0], bestmove_of(&best));
    e.send("setoption name SearchMode value alphabeta");
    let (lines, best) = e.go("go depth 3", WAIT);
    assert_legal(&board, &best, false);
    assert!(infos(&lines).iter().any(|i| i.fields["depth"] == "3"));
}

#[test]
fn stop_ends_go_infinite_at_once_and_isready_is_answered_meanwhile() {
    let mut e = mcts_engine();
    e.send("setoption name Threads value 2");
    e.send("position startpos moves d2d4");
    e.send("go infinite");
    e.expect_silence("bestmove", SHORT);
    let during = e.sync();
    assert!(during.iter().all(|l| !l.starts_with("bestmove")));
    let start = Instant::now();
    e.send("stop");
    let best = e.expect("bestmove");
    assert!(
        start.elapsed() < Duration::from_secs(1),
        "{:?}",
        start.elapsed()
    );
    assert_legal(&board_after(STARTPOS_FEN, &["d2d4"]), &best, false);
}

#[test]
fn quit_during_go_infinite_exits_promptly() {
    let mut e = mcts_engine();
    e.send("position startpos");
    e.send("go infinite");
    e.expect_silence("bestmove", SHORT);
    e.send("quit");
    assert!(
        e.wait_exit(Duration::from_secs(2)),
        "still running after quit"
    );
}

#[test]
fn ponder_waits_for_ponderhit_and_the_clock_is_kept() {
    let mut e = mcts_engine();
    let moves = ["e2e4", "c7c5"];
    e.send(&position_cmd(STARTPOS_FEN, &moves));
    e.send("go ponder wtime 2000 btime 2000");
    e.expect_silence("bestmove", SHORT);
    e.send("ponderhit");
    let best = e.expect_line("bestmove", Duration::from_secs(2));
    assert_legal(&board_after(STARTPOS_FEN, &moves), &best, false);
    let start = Instant::now();
    let (_, best) = e.go("go wtime 1000 btime 1000 winc 10 binc 10", WAIT);
    assert!(start.elapsed() < Duration::from_millis(900));
    assert_legal(&board_after(STARTPOS_FEN, &moves), &best, false);
}

#[test]
fn movetime_is_kept() {
    let mut e = mcts_engine();
    // A tree that fills long before the time is up: a fixed movetime is still spent.
    e.send("setoption name Hash value 1");
    e.send("position startpos moves e2e4");
    let start = Instant::now();
    let (lines, best) = e.go("go movetime 300", WAIT);
    let took = start.elapsed();
    assert!(
        took >= Duration::from_millis(250) && took < Duration::from_millis(1000),
        "{took:?}"
    );
    assert_legal(&board_after(STARTPOS_FEN, &["e2e4"]), &best, false);
    let nodes: u64 = infos(&lines).last().unwrap().fields["nodes"]
        .parse()
        .unwrap();
    assert!(nodes > 100, "{nodes} playouts in 300 ms");
}

#[test]
fn a_forced_move_is_answered_at_once() {
    let mut e = mcts_engine();
    let fen = "k7/8/1K6/8/8/8/8/R7 b - - 0 1";
    e.send(&format!("position fen {fen}"));
    let start = Instant::now();
    let (_, best) = e.go("go wtime 60000 btime 60000", WAIT);
    assert!(start.elapsed() < Duration::from_millis(500));
    assert_eq!(bestmove_of(&best), "a8b8");
}

#[test]
fn chess960_castling_and_searchmoves_as_in_alphabeta() {
    let mut e = mcts_engine();
    e.send("setoption name UCI_Chess960 value true");
    let fen = "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 1";
    e.send(&format!("position fen {fen}"));
    let board = parse_fen(fen).unwrap();
    for mv in ["b1h1", "b1a1"] {
        let (lines, best) = e.go(&format!("go nodes 200 searchmoves {mv}"), WAIT);
        assert_eq!(bestmove_of(&best), mv);
        assert_eq!(infos(&lines).last().unwrap().pv[0], mv);
        assert_legal(&board, &best, true);
    }
    e.send("setoption name UCI_Chess960 value false");
    let fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";
    e.send(&format!("position fen {fen}"));
    let (_, best) = e.go("go nodes 200 searchmoves e1h1", WAIT);
    assert_eq!(bestmove_of(&best), "e1g1");
}

#[test]
fn a_tiny_hash_and_multipv_are_survived_over_uci() {
    let mut e = mcts_engine();
    e.send("setoption name Hash value 1");
    e.send("setoption name MultiPV value 3");
    e.send("position startpos");
    let (lines, best) = e.go("go nodes 60000", Duration::from_secs(60));
    assert_legal(&board_after(STARTPOS_FEN, &[]), &best, false);
    let last: Vec<_> = infos(&lines).into_iter().rev().take(3).collect();
    assert_eq!(
        last.iter()
            .map(|i| i.fields["multipv"].as_str())
            .collect::<Vec<_>>(),
        ["3", "2", "1"]
    );
    // The 1 MB tree fills every few thousand playouts and is pruned to grow on: every
    // playout asked for is played.
    let hashfull = last[0].fields["hashfull"].parse::<u32>().unwrap();
    assert!((1..=1000).contains(&hashfull), "hashfull {hashfull}");
    assert_eq!(last[0].fields["nodes"], "60000");
    // `go depth` waits for the mean playout length.
    e.send("setoption name Hash value 16");
    let (lines, _) = e.go("go depth 3", WAIT);
    assert!(infos(&lines).iter().any(|i| i.fields["depth"] == "3"));
}

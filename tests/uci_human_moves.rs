//! `Show Human Moves` (issue 56 item 4) through a UCI session: when on, each `go`
//! prints `info string human <rating>: <move> <p>% …` before any search output, with
//! legal moves in the engine's notation and percentages summing to at most 100; the
//! rating follows `UCI_Elo` under `UCI_LimitStrength`; off, or in a finished game,
//! there is no such line.

mod common;

use std::time::Duration;

use common::{resolve_move, Engine};
use cozy_chess::Board;

const GO: &str = "go depth 2";
const WAIT: Duration = Duration::from_secs(30);

/// Runs one search and returns its `info string human` lines (checking that they come
/// before any other `info` line) and the `bestmove` line.
fn human_lines(engine: &mut Engine) -> (Vec<String>, String) {
    let (lines, best) = engine.go(GO, WAIT);
    let first_search = lines
        .iter()
        .position(|l| l.starts_with("info") && !l.starts_with("info string"))
        .unwrap_or(lines.len());
    let human: Vec<(usize, String)> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.starts_with("info string human "))
        .map(|(i, l)| (i, l.clone()))
        .collect();
    for (i, l) in &human {
        assert!(*i < first_search, "human line after search output: {l}");
    }
    (human.into_iter().map(|(_, l)| l).collect(), best)
}

/// Checks one line against `board`: the rating, five legal moves (distinct, strict
/// notation), percentages in (0, 100] falling, summing to at most 100.
fn check_line(line: &str, board: &Board, rating: u16, chess960: bool) -> Vec<String> {
    let rest = line
        .strip_prefix(&format!("info string human {rating}: "))
        .unwrap_or_else(|| panic!("unexpected prefix: {line}"));
    let words: Vec<&str> = rest.split_whitespace().collect();
    assert_eq!(words.len(), 10, "five moves with percentages: {line}");
    let mut moves = Vec::new();
    let mut total = 0.0;
    let mut last = f64::INFINITY;
    for pair in words.chunks(2) {
        resolve_move(board, pair[0], chess960).unwrap_or_else(|e| panic!("{e}: {line}"));
        let p: f64 = pair[1]
            .strip_suffix('%')
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("bad percentage '{}': {line}", pair[1]));
        assert!(p > 0.0 && p <= 100.0 && p <= last, "{line}");
        assert!(
            !moves.contains(&pair[0].to_string()),
            "repeated move: {line}"
        );
        moves.push(pair[0].to_string());
        total += p;
        last = p;
    }
    assert!(total <= 100.0 + 0.25, "percentages sum to {total}: {line}");
    moves
}

#[test]
fn on_each_go_lists_five_legal_moves_for_the_level_rating() {
    let mut e = Engine::ready();
    e.send("setoption name Show Human Moves value true");
    e.send("position startpos moves e2e4 c7c5");
    let (lines, _) = human_lines(&mut e);
    assert_eq!(lines.len(), 1, "{lines:?}");
    let board = common::board_after(rookery::chess::STARTPOS_FEN, &["e2e4", "c7c5"]);
    check_line(&lines[0], &board, rookery::policy::shape::TOP_RATING, false);

    e.send("setoption name UCI_LimitStrength value true");
    e.send("setoption name UCI_Elo value 1200");
    let (lines, _) = human_lines(&mut e);
    assert_eq!(lines.len(), 1, "{lines:?}");
    check_line(&lines[0], &board, 1200, false);
}

#[test]
fn chess960_castling_is_printed_as_the_engine_prints_it() {
    // The Italian game's fourth move, where people castle more often than not.
    let fen = "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";
    let board: Board = fen.parse().expect("valid fen");
    for (chess960, castle) in [(false, "e1g1"), (true, "e1h1")] {
        let mut e = Engine::ready();
        e.send("setoption name Show Human Moves value true");
        e.send(&format!("setoption name UCI_Chess960 value {chess960}"));
        e.send(&format!("position fen {fen}"));
        let (lines, _) = human_lines(&mut e);
        assert_eq!(lines.len(), 1, "{lines:?}");
        let moves = check_line(
            &lines[0],
            &board,
            rookery::policy::shape::TOP_RATING,
            chess960,
        );
        assert!(
            moves.iter().any(|m| m == castle),
            "{castle} missing: {lines:?}"
        );
    }
}

#[test]
fn off_or_in_a_finished_game_there_is_no_line() {
    let mut e = Engine::ready();
    e.send("position startpos moves e2e4");
    let (lines, best) = human_lines(&mut e);
    assert!(lines.is_empty(), "option off: {lines:?}");
    assert_ne!(best, "bestmove 0000");

    e.send("setoption name Show Human Moves value true");
    e.send("position startpos moves f2f3 e7e5 g2g4 d8h4");
    let (lines, best) = human_lines(&mut e);
    assert!(lines.is_empty(), "checkmated: {lines:?}");
    assert_eq!(best, "bestmove 0000");
}

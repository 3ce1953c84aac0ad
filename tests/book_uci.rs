//! The engine plays from its embedded opening book through UCI: instantly, legally,
//! with the opening named, and never in analysis mode.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Sends `commands`, then reads until a `bestmove` line; returns (all lines, time to bestmove).
fn run(commands: &[&str]) -> (Vec<String>, Duration) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rookery"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start rookery");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut reader = BufReader::new(child.stdout.take().expect("stdout"));
    let mut lines = Vec::new();
    // Load the book before timing (the first use parses the embedded file).
    writeln!(stdin, "isready").unwrap();
    let mut line = String::new();
    while reader.read_line(&mut line).unwrap() > 0 && !line.starts_with("readyok") {
        line.clear();
    }
    let start = Instant::now();
    for c in commands {
        writeln!(stdin, "{c}").unwrap();
    }
    stdin.flush().unwrap();
    let elapsed = loop {
        line.clear();
        if reader.read_line(&mut line).unwrap() == 0 {
            panic!("engine exited before bestmove; got {lines:?}");
        }
        lines.push(line.trim().to_string());
        if line.starts_with("bestmove") {
            break start.elapsed();
        }
    };
    writeln!(stdin, "quit").unwrap();
    let _ = child.wait();
    (lines, elapsed)
}

#[test]
fn replies_from_the_book_at_once_with_the_opening_name() {
    let (lines, elapsed) = run(&["position startpos", "go wtime 60000 btime 60000"]);
    let info = lines
        .iter()
        .find(|l| l.starts_with("info string book move"))
        .expect("book info line");
    let best = lines.last().unwrap();
    let mv = best.split_whitespace().nth(1).unwrap();
    // The book samples its moves by weight, so any of the start position's entries
    // (rare ones such as b2b4 included) is a right answer.
    let start = cozy_chess::Board::default();
    let book_moves: Vec<String> = rookery::book::default_book()
        .probe(&start)
        .iter()
        .map(|b| b.mv.to_string())
        .collect();
    assert!(book_moves.len() >= 4, "start position book: {book_moves:?}");
    assert!(
        book_moves.iter().any(|b| b == mv),
        "{mv} is not among the book moves {book_moves:?}"
    );
    assert!(
        info.contains(mv) && info.contains('('),
        "book line should name the opening: {info}"
    );
    assert!(
        !lines.iter().any(|l| l.starts_with("info depth")),
        "a book move needs no search"
    );
    assert!(
        elapsed < Duration::from_millis(300),
        "book reply took {elapsed:?}"
    );
}

#[test]
fn book_reply_after_e4_is_a_main_line() {
    let (lines, _) = run(&[
        "setoption name BookTemperature value 0",
        "position startpos moves e2e4",
        "go movetime 1000",
    ]);
    let best = lines.last().unwrap();
    let mv = best.split_whitespace().nth(1).unwrap();
    assert!(
        mv == "c7c5" || mv == "e7e5",
        "heaviest reply to 1.e4 was {best}"
    );
}

#[test]
fn analysis_and_disabled_book_search_instead() {
    let (lines, _) = run(&["position startpos", "go depth 3"]);
    assert!(lines.iter().any(|l| l.starts_with("info depth 3")));
    assert!(!lines.iter().any(|l| l.contains("book move")));
    let (lines, _) = run(&[
        "setoption name OwnBook value false",
        "position startpos",
        "go movetime 100",
    ]);
    assert!(!lines.iter().any(|l| l.contains("book move")));
}

#[test]
fn searchmoves_outside_the_book_force_a_search() {
    let (lines, _) = run(&["position startpos", "go movetime 100 searchmoves h2h3"]);
    assert!(
        lines.last().unwrap().starts_with("bestmove h2h3"),
        "{:?}",
        lines.last()
    );
}

#[test]
fn bad_book_file_keeps_the_embedded_book() {
    let (lines, _) = run(&[
        "setoption name BookFile value /nonexistent/book.bin",
        "position startpos",
        "go wtime 1000 btime 1000",
    ]);
    assert!(lines
        .iter()
        .any(|l| l.starts_with("info string error") && l.contains("book")));
    assert!(lines.iter().any(|l| l.starts_with("info string book move")));
}

/// A book move names the book's main reply as the ponder move, so lichess-bot and GUIs
/// can ponder from the first move (Polyglot keys and legality checked via the library).
#[test]
fn book_move_comes_with_the_book_reply_to_ponder_on() {
    let (lines, _) = run(&["position startpos moves e2e4", "go wtime 60000 btime 60000"]);
    let best = lines.last().unwrap();
    let words: Vec<&str> = best.split_whitespace().collect();
    assert_eq!(words.len(), 4, "expected 'bestmove X ponder Y': {best}");
    assert_eq!(words[2], "ponder");
    let mut board = cozy_chess::Board::default();
    let e4 = rookery::chess::parse_uci_move(&board, "e2e4").unwrap();
    board.play(e4);
    let reply = rookery::chess::parse_uci_move(&board, words[1]).expect("legal book move");
    board.play(reply);
    let ponder = rookery::chess::parse_uci_move(&board, words[3]).expect("legal ponder move");
    let main_line = rookery::book::default_book().probe(&board);
    assert_eq!(Some(ponder), main_line.first().map(|b| b.mv), "{best}");
}

#[test]
fn chess960_games_use_the_book_only_from_the_standard_start() {
    // UCI_Chess960 on, standard start: the book still answers.
    let (lines, _) = run(&[
        "setoption name UCI_Chess960 value true",
        "position startpos",
        "go wtime 60000 btime 60000",
    ]);
    assert!(
        lines.iter().any(|l| l.starts_with("info string book move")),
        "{lines:?}"
    );
    // A Chess960 start (#0, BBQNNRKR): the game searches, even after moves that are
    // also legal in the standard game.
    let (lines, _) = run(&[
        "setoption name UCI_Chess960 value true",
        "position fen bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1 moves e2e4",
        "go wtime 60000 btime 60000",
    ]);
    assert!(
        !lines.iter().any(|l| l.starts_with("info string book move")),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("info depth")),
        "{lines:?}"
    );
}

//! `genfens`, as OpenBench's datagen calls it: `rookery "genfens N seed S book B" quit`,
//! answered with `info string genfens <FEN>` lines.

use std::collections::HashSet;
use std::io::Write;
use std::process::{Command, Output, Stdio};

use rookery::chess::{legal_moves, parse_fen};

fn run_args(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rookery"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run rookery")
}

/// The output of a run that reported an error: it must end with exit status 1 (so that
/// OpenBench's client stops at once) and without a panic.
fn failed_stdout_of(output: &Output) -> String {
    assert_eq!(output.status.code(), Some(1), "expected exit status 1");
    assert!(
        !String::from_utf8_lossy(&output.stderr).contains("panicked"),
        "rookery panicked"
    );
    String::from_utf8(output.stdout.clone()).expect("UTF-8 output")
}

fn stdout_of(output: &Output) -> String {
    assert!(
        output.status.success(),
        "rookery failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).expect("UTF-8 output")
}

/// The FENs of the `info string genfens` lines.
fn fens_of(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("info string genfens "))
        .map(str::to_string)
        .collect()
}

fn genfens(count: usize, seed: u64, book: &str) -> Vec<String> {
    let command = format!("genfens {count} seed {seed} book {book}");
    fens_of(&stdout_of(&run_args(&[&command, "quit"])))
}

#[test]
fn gives_n_distinct_legal_positions_with_moves_left() {
    let fens = genfens(24, 1, "None");
    assert_eq!(fens.len(), 24, "{fens:?}");
    let distinct: HashSet<&String> = fens.iter().collect();
    assert_eq!(distinct.len(), fens.len(), "repeated FENs in {fens:?}");
    for fen in &fens {
        assert_eq!(fen.split_whitespace().count(), 6, "not a full FEN: {fen}");
        let board = parse_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        assert!(!legal_moves(&board).is_empty(), "game over in {fen}");
        assert!(board.fullmove_number() >= 5, "{fen} is not 8+ plies deep");
    }
}

#[test]
fn same_seed_same_openings_other_seed_other_openings() {
    let first = genfens(8, 42, "None");
    assert_eq!(first, genfens(8, 42, "None"));
    let other = genfens(8, 43, "None");
    assert_eq!(other.len(), 8);
    assert_ne!(first, other);
}

#[test]
fn works_inside_the_uci_loop_too() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rookery"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn rookery");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"genfens 5 seed 9 book None\nquit\n")
        .expect("write commands");
    let output = child.wait_with_output().expect("wait for rookery");
    assert_eq!(fens_of(&stdout_of(&output)), genfens(5, 9, "None"));
}

#[test]
fn book_openings_start_from_the_books_lines() {
    let dir = std::env::temp_dir().join(format!("rookery-genfens-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let book = dir.join("two-lines.epd");
    // One line as OpenBench's EPD books write them, one bare four-field EPD.
    std::fs::write(
        &book,
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - hmvc 0; fmvn 1;\n\
         \n\
         r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq -\n",
    )
    .expect("write book");
    let fens = genfens(6, 3, book.to_str().expect("UTF-8 path"));
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(fens.len(), 6, "{fens:?}");
    for fen in &fens {
        let board = parse_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        // Two or three random plies after the book's first line (one ply in, its move
        // counters say so) or its second (no counters: counted from move 1).
        let plies = 2 * (board.fullmove_number() as usize - 1)
            + (board.side_to_move() == cozy_chess::Color::Black) as usize;
        assert!((2..=4).contains(&plies), "{fen} is {plies} plies deep");
    }
}

#[test]
fn pgn_books_give_the_final_positions_of_their_games() {
    let dir = std::env::temp_dir().join(format!("rookery-genfens-pgn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let book = dir.join("two-games.pgn");
    std::fs::write(
        &book,
        "[Event \"?\"]\n[Result \"*\"]\n\n1. d4 d5 2. c4 {Queen's Gambit} e6 *\n\n\
         [Event \"?\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n\n1. e4 Kd7 *\n",
    )
    .expect("write book");
    let fens = genfens(6, 5, book.to_str().expect("UTF-8 path"));
    let bad = dir.join("bad.pgn");
    std::fs::write(&bad, "[Event \"?\"]\n\n1. e4 e5 2. Qxf7 *\n").expect("write book");
    let bad_output = failed_stdout_of(&run_args(&[
        &format!("genfens 2 seed 1 book {}", bad.display()),
        "quit",
    ]));
    std::fs::remove_dir_all(&dir).ok();
    assert!(!fens.is_empty() && fens.len() <= 6, "{fens:?}");
    for fen in &fens {
        let board = parse_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        let pieces = board.occupied().len();
        // Either game's pieces, less captures in the two or three random plies.
        assert!(pieces >= 29 || pieces <= 3, "{fen} comes from neither game");
        assert!(
            board.fullmove_number() >= 3,
            "{fen} is before the books' last moves"
        );
    }
    assert!(
        bad_output.contains("info string error: genfens: book") && bad_output.contains("Qxf7"),
        "{bad_output}"
    );
}

#[test]
fn a_missing_book_is_a_clear_error_not_a_panic() {
    let output = run_args(&["genfens 4 seed 1 book /nonexistent/book.epd", "quit"]);
    let stdout = failed_stdout_of(&output);
    assert!(fens_of(&stdout).is_empty(), "{stdout}");
    assert!(
        stdout.contains("info string error: genfens: cannot read book '/nonexistent/book.epd'"),
        "{stdout}"
    );
}

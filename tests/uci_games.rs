//! UCI sessions with the `rookery` binary over pipes, beyond single searches: bad input
//! that must be reported without losing the position, two search threads, rapid
//! `go`/`stop` cycles and short self-play games checked move by move. Every wait has a
//! deadline.

mod common;
mod uci_support;

use std::time::{Duration, Instant};

use common::{bestmove_of, board_after, resolve_move, Engine, WAIT};
use cozy_chess::{Board, GameStatus};
use rookery::chess::{parse_fen, STARTPOS_FEN};
use uci_support::{assert_legal, displayed_fen, infos, position_cmd};

/// Sends `cmd` and asserts it produced an `info string` error and no bestmove.
fn expect_error(e: &mut Engine, cmd: &[u8]) {
    e.send_bytes(cmd);
    e.send_bytes(b"\n");
    let out = e.sync();
    let shown = String::from_utf8_lossy(cmd);
    assert!(
        out.iter()
            .any(|l| l.starts_with("info string") && l.to_lowercase().contains("error")),
        "no error reported for '{shown}': {out:?}"
    );
    assert!(out.iter().all(|l| !l.starts_with("bestmove")), "{out:?}");
}

#[test]
fn bad_input_is_reported_and_the_last_position_kept() {
    let mut e = Engine::ready();
    let good = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1";
    e.send(&format!("position fen {good}"));
    let board = parse_fen(good).unwrap();
    let bad: [&[u8]; 15] = [
        b"xyzzy",
        b"position fen garbage",
        b"position fen",
        b"position",
        // Castling right without a rook; side not to move in check; impossible ep square.
        b"position fen 4k3/8/8/8/8/8/8/4K3 w K - 0 1",
        b"position fen 4k3/4R3/8/8/8/8/8/4K3 w - - 0 1",
        b"position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1",
        b"position startpos moves e2e5",
        b"go depth abc",
        b"go wtime",
        b"setoption name Hash value 99999999",
        b"setoption name Nope value 1",
        b"setoption name UCI_Chess960 value maybe",
        b"\xff\xfe\x00\x01garbage \xc3\x28",
        b"\x1b[A\x07",
    ];
    for cmd in bad {
        expect_error(&mut e, cmd);
        assert_eq!(
            displayed_fen(&mut e),
            good,
            "position changed by '{}'",
            String::from_utf8_lossy(cmd)
        );
        let (_, best) = e.go("go depth 3", WAIT);
        assert_legal(&board, &best, false);
    }
    // An empty or blank line is silently ignored.
    e.send("");
    e.send("   \t ");
    assert!(e.sync().is_empty());
    // Negative clocks count as zero: the engine still moves, at once.
    let start = Instant::now();
    let (_, best) = e.go("go wtime -100 btime -100", WAIT);
    assert!(start.elapsed() < Duration::from_secs(2));
    assert_legal(&board, &best, false);
    // A halfmove clock above 100 is accepted and clamped.
    e.send("position fen 4k3/8/8/8/8/8/4P3/4K3 w - - 150 80");
    assert!(
        e.sync().is_empty(),
        "halfmove 150 should be accepted quietly"
    );
    assert_eq!(displayed_fen(&mut e), "4k3/8/8/8/8/8/4P3/4K3 w - - 100 80");
    let (_, best) = e.go("go depth 3", WAIT);
    assert_legal(&board, &best, false);
}

#[test]
fn go_without_position_uses_the_start_position() {
    let mut e = Engine::ready();
    let (_, best) = e.go("go depth 4", WAIT);
    assert_legal(&Board::default(), &best, false);
}

#[test]
fn two_threads_search_gives_legal_moves() {
    let mut e = Engine::ready();
    e.send("setoption name Threads value 2");
    let moves = ["e2e4", "e7e5", "g1f3"];
    e.send(&position_cmd(STARTPOS_FEN, &moves));
    let board = board_after(STARTPOS_FEN, &moves);
    let (lines, best) = e.go("go depth 7", WAIT);
    assert_legal(&board, &best, false);
    assert!(!infos(&lines).is_empty());
    let (lines, best) = e.go("go movetime 300", WAIT);
    assert_legal(&board, &best, false);
    assert!(
        !infos(&lines).is_empty(),
        "movetime: no search info: {lines:?}"
    );
    let (_, best) = e.go("go nodes 20000", WAIT);
    assert_legal(&board, &best, false);
}

/// Why a self-play game ended.
fn game_over(board: &Board, seen: &[u64]) -> Option<&'static str> {
    match board.status() {
        GameStatus::Won => return Some("checkmate"),
        GameStatus::Drawn if board.halfmove_clock() >= 100 => return Some("fifty moves"),
        GameStatus::Drawn => return Some("stalemate"),
        GameStatus::Ongoing => {}
    }
    if seen.iter().filter(|&&h| h == board.hash()).count() >= 3 {
        return Some("threefold");
    }
    if rookery::chess::insufficient_material(board) {
        return Some("insufficient material");
    }
    None
}

/// Plays one engine-vs-engine game through UCI, checking every bestmove; returns the
/// number of plies and why it ended.
fn self_play(e: &mut Engine, fen: &str, opening: &[String], chess960: bool) -> (usize, String) {
    e.send("ucinewgame");
    let mut board = parse_fen(fen).unwrap();
    let mut moves: Vec<String> = Vec::new();
    let mut seen = vec![board.hash()];
    for text in opening {
        let mv = resolve_move(&board, text, chess960).unwrap();
        board.play(mv);
        seen.push(board.hash());
        moves.push(text.clone());
    }
    for _ in 0..150 {
        if let Some(why) = game_over(&board, &seen) {
            return (moves.len(), why.to_string());
        }
        let refs: Vec<&str> = moves.iter().map(String::as_str).collect();
        e.send(&position_cmd(fen, &refs));
        let (_, best) = e.go("go nodes 2000", WAIT);
        let text = bestmove_of(&best).to_string();
        let mv = resolve_move(&board, &text, chess960)
            .unwrap_or_else(|err| panic!("game {fen} moves {}: {err}", moves.join(" ")));
        board.play(mv);
        seen.push(board.hash());
        moves.push(text);
    }
    (moves.len(), "150 plies".into())
}

/// A random legal opening of `plies` moves (standard notation), seeded.
fn random_opening(seed: u64, plies: usize) -> Vec<String> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut board = Board::default();
    let mut out = Vec::new();
    for _ in 0..plies {
        let moves = rookery::chess::legal_moves(&board);
        if moves.is_empty() {
            break;
        }
        let mv = moves[rng.gen_range(0..moves.len())];
        out.push(rookery::chess::move_to_uci(&board, mv, false));
        board.play(mv);
    }
    out
}

#[test]
fn self_play_games_are_legal() {
    let mut e = Engine::ready();
    let mut results = Vec::new();
    for opening in [vec![], random_opening(1, 6), random_opening(2, 8)] {
        results.push(self_play(&mut e, STARTPOS_FEN, &opening, false));
    }
    // One Chess960 game: king b1, rooks a1/h1, castling rights on both wings.
    e.send("setoption name UCI_Chess960 value true");
    let fen960 = "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 1";
    results.push(self_play(&mut e, fen960, &[], true));
    eprintln!("self-play results (plies, end): {results:?}");
    for (plies, _) in &results {
        assert!(*plies > 0, "{results:?}");
    }
}

#[test]
fn rapid_go_stop_cycles_give_one_bestmove_each() {
    // Races between `stop` and a search that is just starting or just ending must still
    // yield exactly one legal bestmove per go.
    let mut e = Engine::ready();
    e.send("setoption name Threads value 2");
    e.send("position startpos moves e2e4");
    let board = board_after(STARTPOS_FEN, &["e2e4"]);
    const CYCLES: usize = 60;
    for i in 0..CYCLES {
        e.send(if i % 3 == 0 {
            "go movetime 5"
        } else {
            "go infinite"
        });
        if i % 2 == 1 {
            std::thread::sleep(Duration::from_millis(2));
        }
        e.send("stop");
    }
    let lines = e.sync();
    let best: Vec<&String> = lines.iter().filter(|l| l.starts_with("bestmove")).collect();
    assert_eq!(best.len(), CYCLES, "{best:?}");
    for line in best {
        assert_legal(&board, line, false);
    }
}

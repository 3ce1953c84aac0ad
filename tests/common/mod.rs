//! Helpers shared by the integration tests: the perft EPD reader and `Engine`, a UCI
//! session with the `rookery` binary over pipes where every wait has a deadline.

#![allow(dead_code)] // each test binary uses a different subset

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use cozy_chess::{Board, Move, Piece, Square};

/// One line of a perft EPD file: the FEN and the (depth, nodes) pairs it lists.
pub struct PerftCase {
    pub fen: String,
    pub counts: Vec<(u32, u64)>,
}

/// Reads `perft/<name>` from the crate root (`FEN ;D1 20 ;D2 400 ...` per line).
pub fn read_epd(name: &str) -> Vec<PerftCase> {
    let path = format!("{}/perft/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let mut parts = line.split(';');
            let fen = parts.next().unwrap().trim().to_string();
            let counts = parts
                .map(|p| {
                    let (d, n) = p
                        .trim()
                        .split_once(' ')
                        .unwrap_or_else(|| panic!("bad field '{p}' in {line}"));
                    let depth = d.trim_start_matches('D').parse().expect("depth");
                    (depth, n.trim().parse().expect("node count"))
                })
                .collect();
            PerftCase { fen, counts }
        })
        .collect()
}

/// Default deadline for a single expected line.
pub const WAIT: Duration = Duration::from_secs(10);

/// A running `rookery` process speaking UCI. Every line it prints is kept in `seen`
/// (in order) so failures can show the whole transcript. Killed on drop.
pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    pub seen: Vec<String>,
}

impl Engine {
    pub fn start() -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_rookery"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn rookery");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Engine {
            stdin: child.stdin.take(),
            child,
            lines: rx,
            seen: Vec::new(),
        }
    }

    /// Starts an engine with the opening book off and completes the `uci` / `isready`
    /// handshake. With the book on, opening positions would be answered from it and the
    /// test would never reach the search, the time manager or pondering.
    pub fn ready() -> Engine {
        let mut e = Engine::start();
        e.send("uci");
        e.expect("uciok");
        e.send("setoption name OwnBook value false");
        e.sync();
        e
    }

    /// Starts an engine with its default options (opening book on) and completes the
    /// handshake: for the tests of the book itself.
    pub fn ready_with_book() -> Engine {
        let mut e = Engine::start();
        e.send("uci");
        e.expect("uciok");
        e.sync();
        e
    }

    pub fn send(&mut self, line: &str) {
        self.send_bytes(format!("{line}\n").as_bytes());
    }

    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write to engine");
        stdin.flush().expect("flush engine stdin");
    }

    /// Closes the engine's stdin (end of input).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    fn transcript(&self) -> String {
        let tail = self.seen.len().saturating_sub(40);
        self.seen[tail..].join("\n")
    }

    /// The next line within `timeout`, or None.
    pub fn next_line(&mut self, timeout: Duration) -> Option<String> {
        match self.lines.recv_timeout(timeout) {
            Ok(line) => {
                self.seen.push(line.clone());
                Some(line)
            }
            Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => None,
        }
    }

    /// All lines up to and including the first one starting with `prefix`; panics with the
    /// transcript if it does not arrive within `timeout`.
    pub fn collect_until(&mut self, prefix: &str, timeout: Duration) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut out = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next_line(left) {
                Some(line) => {
                    let done = line.starts_with(prefix);
                    out.push(line);
                    if done {
                        return out;
                    }
                }
                None => panic!(
                    "no line starting with '{prefix}' within {timeout:?}; last lines:\n{}",
                    self.transcript()
                ),
            }
        }
    }

    /// The first line starting with `prefix` within `timeout` (skipping others).
    pub fn expect_line(&mut self, prefix: &str, timeout: Duration) -> String {
        self.collect_until(prefix, timeout).pop().unwrap()
    }

    pub fn expect(&mut self, prefix: &str) -> String {
        self.expect_line(prefix, WAIT)
    }

    /// Sends `isready` and returns everything printed before `readyok`.
    pub fn sync(&mut self) -> Vec<String> {
        self.send("isready");
        let mut lines = self.collect_until("readyok", WAIT);
        lines.pop();
        lines
    }

    /// Asserts that no line starting with `prefix` arrives during `period`; returns the
    /// lines that did arrive.
    pub fn expect_silence(&mut self, prefix: &str, period: Duration) -> Vec<String> {
        let deadline = Instant::now() + period;
        let mut out = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return out;
            }
            if let Some(line) = self.next_line(left) {
                assert!(
                    !line.starts_with(prefix),
                    "unexpected '{line}' within {period:?}; last lines:\n{}",
                    self.transcript()
                );
                out.push(line);
            }
        }
    }

    /// Searches and returns (info lines, bestmove line); asserts exactly one bestmove by
    /// syncing afterwards.
    pub fn go(&mut self, go: &str, timeout: Duration) -> (Vec<String>, String) {
        self.send(go);
        let mut lines = self.collect_until("bestmove", timeout);
        let best = lines.pop().unwrap();
        let after = self.sync();
        assert!(
            after.iter().all(|l| !l.starts_with("bestmove")),
            "second bestmove after '{go}': {after:?}"
        );
        (lines, best)
    }

    /// Waits for the process to exit; true if it did within `timeout`.
    pub fn wait_exit(&mut self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        false
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The move of a `bestmove <m> [ponder <p>]` line.
pub fn bestmove_of(line: &str) -> &str {
    let mut words = line.split_whitespace();
    assert_eq!(
        words.next(),
        Some("bestmove"),
        "not a bestmove line: {line}"
    );
    words
        .next()
        .unwrap_or_else(|| panic!("empty bestmove: {line}"))
}

/// Resolves a UCI move text to a legal cozy-chess move, checking the notation strictly:
/// in standard mode castling must be king-to-destination (e1g1), in Chess960 mode
/// king-takes-rook (e1h1). Independent of rookery's own move parser.
pub fn resolve_move(board: &Board, text: &str, chess960: bool) -> Result<Move, String> {
    let parsed: Move = text
        .parse()
        .map_err(|_| format!("'{text}' is not a move"))?;
    let king_move = board.piece_on(parsed.from) == Some(Piece::King)
        && board.color_on(parsed.from) == Some(board.side_to_move());
    if king_move && !chess960 {
        // A standard-notation castle: king moves two files along the back rank.
        let castles = board.castle_rights(board.side_to_move());
        let dist = parsed.to.file() as i32 - parsed.from.file() as i32;
        if parsed.to.rank() == parsed.from.rank() && dist.abs() == 2 {
            let rook = if dist > 0 {
                castles.short
            } else {
                castles.long
            }
            .ok_or_else(|| format!("'{text}': castling without the right"))?;
            let mv = Move {
                from: parsed.from,
                to: Square::new(rook, parsed.from.rank()),
                promotion: None,
            };
            return board
                .is_legal(mv)
                .then_some(mv)
                .ok_or_else(|| format!("'{text}': illegal castle in {board}"));
        }
        if board.colors(board.side_to_move()).has(parsed.to) {
            return Err(format!(
                "'{text}': king-takes-rook castling printed in standard mode"
            ));
        }
    }
    if board.is_legal(parsed) {
        Ok(parsed)
    } else {
        Err(format!("'{text}' is illegal in {board}"))
    }
}

/// Plays a list of UCI moves (standard notation) from a FEN.
pub fn board_after(fen: &str, moves: &[&str]) -> Board {
    let mut board = rookery::chess::parse_fen(fen).expect("valid fen");
    for m in moves {
        let mv = resolve_move(&board, m, false).unwrap();
        board.play(mv);
    }
    board
}

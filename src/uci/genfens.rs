//! `genfens N seed S book <file|None>`: opening positions for OpenBench's datagen mode.
//! OpenBench runs `rookery "genfens N seed S book B [extra]" quit` and collects the lines
//! `info string genfens <FEN>`; the same seed must give the same openings on every worker.
//!
//! Each opening is a few random legal plies from the start position (or from a random
//! position of an EPD or PGN book), kept only when the game goes on and a short search
//! finds it balanced, so that datagen games do not start decided.

use std::collections::HashSet;

use cozy_chess::Board;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

use crate::book::san::{parse_san, san_tokens};
use crate::chess::{legal_moves, parse_fen, Position};
use crate::search::{SearchLimits, SearchOptions, Searcher, Silent};

/// Random plies played from the start position (one more for half the openings, so that
/// both sides get to move first).
const RANDOM_PLIES_FROM_START: usize = 8;
/// Random plies played after a book line (books already give variety).
const RANDOM_PLIES_AFTER_BOOK: usize = 2;
/// Nodes of the search that judges whether an opening is balanced.
const CHECK_NODES: u64 = 5000;
/// Openings whose checked score is beyond this (internal units) are discarded.
const MAX_OPENING_SCORE: i32 = 400;
/// Tries per requested opening before giving up (a tiny book may not have N).
const TRIES_PER_OPENING: usize = 200;

/// A parsed `genfens` request.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub count: usize,
    pub seed: u64,
    /// An EPD/FEN or PGN book (see [`read_book`]); `None` for the start position.
    pub book: Option<String>,
}

/// Parses the words after `genfens`: `N seed S book <file|None>`, in this order as
/// OpenBench sends them; trailing extra words (OpenBench's per-engine extras) are ignored.
pub fn parse(tokens: &[&str]) -> Result<Request, String> {
    let usage = "usage: genfens N seed S book <file|None>";
    let count = tokens
        .first()
        .and_then(|t| t.parse::<usize>().ok())
        .ok_or_else(|| format!("genfens needs a count; {usage}"))?;
    let mut seed = None;
    let mut book = None;
    let mut i = 1;
    while i < tokens.len() {
        match (tokens[i], tokens.get(i + 1)) {
            ("seed", Some(s)) => {
                seed = Some(
                    s.parse::<u64>()
                        .map_err(|_| format!("genfens: bad seed '{s}'; {usage}"))?,
                )
            }
            ("book", Some(b)) => book = (!b.eq_ignore_ascii_case("none")).then(|| b.to_string()),
            _ => break,
        }
        i += 2;
    }
    let seed = seed.ok_or_else(|| format!("genfens needs a seed; {usage}"))?;
    Ok(Request { count, seed, book })
}

/// The starting positions of a book file: the final position of each game of a PGN
/// book (a file whose first text is a `[` tag), else one EPD or FEN per line (its first
/// four fields, plus the move counters when they are there; blank and `#` lines skipped).
pub fn read_book(path: &str) -> Result<Vec<Board>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("genfens: cannot read book '{path}': {e}"))?;
    let boards = if text.trim_start().starts_with('[') {
        read_pgn_book(&text)
    } else {
        read_epd_book(&text)
    }
    .map_err(|e| format!("genfens: book '{path}' {e}"))?;
    if boards.is_empty() {
        return Err(format!("genfens: book '{path}' holds no positions"));
    }
    Ok(boards)
}

fn read_epd_book(text: &str) -> Result<Vec<Board>, String> {
    let mut boards = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let board_fields = fields[..fields.len().min(4)].join(" ");
        let board_fields = board_fields.trim_end_matches(';');
        let counters: Vec<&str> = fields
            .iter()
            .skip(4)
            .take(2)
            .copied()
            .take_while(|f| f.parse::<u32>().is_ok())
            .collect();
        let fen = match counters.as_slice() {
            [half, full] => format!("{board_fields} {half} {full}"),
            _ => format!("{board_fields} 0 1"),
        };
        boards.push(parse_fen(&fen).map_err(|e| format!("line {}: {e}", number + 1))?);
    }
    Ok(boards)
}

/// Games of a PGN file, each replayed from the start position (or its `FEN` tag);
/// `{comments}` are skipped.
fn read_pgn_book(text: &str) -> Result<Vec<Board>, String> {
    let mut boards = Vec::new();
    let mut start = Board::default();
    let mut movetext = String::new();
    let mut in_tags = true;
    for line in text.lines().chain(std::iter::once("[End]")) {
        let line = line.trim();
        if line.starts_with('[') {
            if !in_tags {
                let game = boards.len() + 1;
                boards.push(replay(&start, &movetext).map_err(|e| format!("game {game}: {e}"))?);
                start = Board::default();
                movetext.clear();
                in_tags = true;
            }
            if let Some(fen) = line
                .strip_prefix("[FEN \"")
                .and_then(|rest| rest.strip_suffix("\"]"))
            {
                start = parse_fen(fen).map_err(|e| format!("game {}: {e}", boards.len() + 1))?;
            }
        } else if !line.is_empty() {
            in_tags = false;
            movetext.push_str(line);
            movetext.push(' ');
        }
    }
    Ok(boards)
}

/// The position after the SAN moves of `movetext` from `start`.
fn replay(start: &Board, movetext: &str) -> Result<Board, String> {
    let mut without_comments = String::with_capacity(movetext.len());
    let mut depth = 0usize;
    for c in movetext.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            _ if depth == 0 => without_comments.push(c),
            _ => {}
        }
    }
    let mut board = start.clone();
    for san in san_tokens(&without_comments) {
        let mv = parse_san(&board, san).map_err(|e| format!("'{san}': {e}"))?;
        board.play_unchecked(mv);
    }
    Ok(board)
}

/// `request.count` distinct, balanced opening FENs, the same for the same request.
pub fn generate(request: &Request) -> Result<Vec<String>, String> {
    let book = match &request.book {
        Some(path) => Some(read_book(path)?),
        None => None,
    };
    let mut rng = StdRng::seed_from_u64(request.seed);
    let mut searcher = Searcher::new(1, 1);
    let mut seen = HashSet::new();
    let mut fens = Vec::with_capacity(request.count);
    let mut tries = 0;
    while fens.len() < request.count {
        tries += 1;
        if tries > request.count.saturating_mul(TRIES_PER_OPENING).max(1000) {
            return Err(format!(
                "genfens: found only {} distinct balanced openings of the {} asked for",
                fens.len(),
                request.count
            ));
        }
        let (start, plies) = match &book {
            Some(lines) => (
                lines
                    .choose(&mut rng)
                    .expect("a read book is never empty")
                    .clone(),
                RANDOM_PLIES_AFTER_BOOK,
            ),
            None => (Board::default(), RANDOM_PLIES_FROM_START),
        };
        let plies = plies + rng.gen_range(0..2);
        let Some(pos) = random_walk(start, plies, &mut rng) else {
            continue;
        };
        let fen = pos.board.to_string();
        if seen.contains(&fen) || !balanced(&mut searcher, &pos) {
            continue;
        }
        seen.insert(fen.clone());
        fens.push(fen);
    }
    Ok(fens)
}

/// `plies` random legal moves from `start`; `None` when the game ends on the way or at
/// the end.
fn random_walk(start: Board, plies: usize, rng: &mut StdRng) -> Option<Position> {
    let mut pos = Position::new(start);
    for _ in 0..plies {
        let mv = *legal_moves(&pos.board).choose(rng)?;
        pos.play(mv);
    }
    (!legal_moves(&pos.board).is_empty()).then_some(pos)
}

/// Whether a short search scores the position within [`MAX_OPENING_SCORE`].
fn balanced(searcher: &mut Searcher, pos: &Position) -> bool {
    searcher.clear();
    let limits = SearchLimits {
        nodes: Some(CHECK_NODES),
        ..Default::default()
    };
    let result = searcher.search(pos, &limits, &SearchOptions::default(), &Silent);
    result.score.abs() <= MAX_OPENING_SCORE
}

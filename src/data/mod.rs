//! Self-play training data: the game format ([`format`]), the generator
//! ([`datagen`], `rookery datagen`, its start positions in [`start_position`]) and the `rookery data` tools (statistics and
//! conversion from and to the `FEN | score | result` text format the trainer also reads).
//! Rated human games (`rookery human-data`) live in [`human`]. MCTS self-play
//! (`datagen --mode mcts`, [`mcts_selfplay`]) writes root visit counts ([`visits`]).

pub mod datagen;
pub mod format;
mod game_runner;
pub mod human;
pub mod mcts_selfplay;
pub mod start_position;
pub mod visits;

use std::io::{BufRead, Write};
use std::path::PathBuf;

use format::Game;

#[derive(clap::Subcommand, Debug)]
pub enum DataCommand {
    /// Positions, games, results and a score histogram of game files.
    Stats { files: Vec<PathBuf> },
    /// Game file -> text lines `FEN | score_cp_white | result_white` (training positions
    /// only; Shredder FEN for Chess960 castling rights).
    ToText { input: PathBuf, output: PathBuf },
    /// Text lines (plain or gzip) -> game file, each position stored as a one-position game.
    FromText { input: PathBuf, output: PathBuf },
}

/// Everything `data stats` reports about a set of files.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Stats {
    pub games: u64,
    pub moves: u64,
    /// Training positions (see [`format::samples`]).
    pub positions: u64,
    pub white_wins: u64,
    pub draws: u64,
    pub black_wins: u64,
    pub bytes: u64,
    /// Positions per score band: < −1000, −1000..−300, −300..−100, −100..100, 100..300,
    /// 300..1000, ≥ 1000 (White's view, cp).
    pub histogram: [u64; 7],
    /// Files that are not whole: the first error of each.
    pub errors: Vec<String>,
}

const BANDS: [(i32, &str); 7] = [
    (-1000, "< -1000"),
    (-300, "-1000..-300"),
    (-100, "-300..-100"),
    (100, "-100..100"),
    (300, "100..300"),
    (1000, "300..1000"),
    (i32::MAX, ">= 1000"),
];

impl Stats {
    fn add(&mut self, game: &Game) {
        self.games += 1;
        self.moves += game.moves.len() as u64;
        match game.wdl {
            2 => self.white_wins += 1,
            0 => self.black_wins += 1,
            _ => self.draws += 1,
        }
        for s in format::samples(game) {
            self.positions += 1;
            let band = BANDS
                .iter()
                .position(|&(upper, _)| (s.score_white as i32) < upper)
                .unwrap_or(BANDS.len() - 1);
            self.histogram[band] += 1;
        }
    }

    /// An MCTS game: every position is a training position (its target is the visits),
    /// and there are no scores.
    fn add_visit_game(&mut self, game: &visits::VisitGame) {
        self.games += 1;
        self.moves += game.plies.len() as u64;
        self.positions += game.plies.len() as u64;
        match game.wdl {
            2 => self.white_wins += 1,
            0 => self.black_wins += 1,
            _ => self.draws += 1,
        }
    }
}

/// Reads game files (`.vf`, or `.mcv` visit files by their extension); errors
/// (truncation, corruption) are collected with file and offset, and the readable games
/// before them still count.
pub fn stats(files: &[PathBuf]) -> Result<Stats, String> {
    let mut st = Stats::default();
    for path in files {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        st.bytes += bytes.len() as u64;
        let error = if path.extension().is_some_and(|e| e == visits::EXTENSION) {
            match visits::read_games(&bytes) {
                Ok((games, error)) => {
                    games.iter().for_each(|g| st.add_visit_game(g));
                    error.map(|e| e.to_string())
                }
                Err(e) => Some(e.to_string()),
            }
        } else {
            let (games, error) = format::read_games(&bytes);
            games.iter().for_each(|g| st.add(g));
            error.map(|e| e.to_string())
        };
        if let Some(e) = error {
            st.errors.push(format!("{}: {e}", path.display()));
        }
    }
    Ok(st)
}

pub fn run(cmd: DataCommand) -> Result<(), String> {
    match cmd {
        DataCommand::Stats { files } => {
            let st = stats(&files)?;
            println!("files      {}", files.len());
            println!("games      {}", st.games);
            println!("moves      {}", st.moves);
            println!(
                "positions  {} (training: not in check, quiet best move, no mate score)",
                st.positions
            );
            println!(
                "results    White {} / draw {} / Black {}",
                st.white_wins, st.draws, st.black_wins
            );
            println!(
                "size       {} bytes, {:.2} bytes per position",
                st.bytes,
                st.bytes as f64 / st.positions.max(1) as f64
            );
            // Visit files have no scores.
            let scored = st.histogram.iter().any(|&n| n > 0);
            if scored {
                println!("scores (White's view, cp):");
            }
            for ((_, label), n) in BANDS.iter().zip(st.histogram).filter(|_| scored) {
                let share = n as f64 / st.positions.max(1) as f64;
                println!(
                    "  {label:>12} {n:>10}  {}",
                    "#".repeat((share * 60.0).round() as usize)
                );
            }
            for e in &st.errors {
                eprintln!("error: {e}");
            }
            if st.errors.is_empty() {
                Ok(())
            } else {
                Err(format!(
                    "{} file(s) not whole (the games before each error were counted)",
                    st.errors.len()
                ))
            }
        }
        DataCommand::ToText { input, output } => {
            let bytes = std::fs::read(&input).map_err(|e| format!("{}: {e}", input.display()))?;
            let (games, error) = format::read_games(&bytes);
            let file =
                std::fs::File::create(&output).map_err(|e| format!("{}: {e}", output.display()))?;
            let mut out = std::io::BufWriter::new(file);
            let mut n = 0u64;
            for g in &games {
                for s in format::samples(g) {
                    writeln!(
                        out,
                        "{} | {} | {:.1}",
                        crate::chess::fen(&s.board),
                        s.score_white,
                        s.result_white
                    )
                    .map_err(|e| format!("{}: {e}", output.display()))?;
                    n += 1;
                }
            }
            out.flush()
                .map_err(|e| format!("{}: {e}", output.display()))?;
            println!(
                "{n} positions from {} games -> {}",
                games.len(),
                output.display()
            );
            match error {
                Some(e) => Err(format!(
                    "{}: {e} (the games before it were converted)",
                    input.display()
                )),
                None => Ok(()),
            }
        }
        DataCommand::FromText { input, output } => {
            let file =
                std::fs::File::open(&input).map_err(|e| format!("{}: {e}", input.display()))?;
            let reader: Box<dyn BufRead> = if input.extension().is_some_and(|e| e == "gz") {
                Box::new(std::io::BufReader::new(flate2::read::MultiGzDecoder::new(
                    file,
                )))
            } else {
                Box::new(std::io::BufReader::new(file))
            };
            let mut buf = Vec::new();
            let (mut n, mut bad) = (0u64, 0u64);
            for line in reader.lines() {
                let line = line.map_err(|e| format!("{}: {e}", input.display()))?;
                match parse_text_line(&line) {
                    Some(game) => {
                        format::write_game(&mut buf, &game);
                        n += 1;
                    }
                    None if line.trim().is_empty() => {}
                    None => bad += 1,
                }
            }
            std::fs::write(&output, &buf).map_err(|e| format!("{}: {e}", output.display()))?;
            println!(
                "{n} positions ({bad} bad lines skipped) -> {}",
                output.display()
            );
            Ok(())
        }
    }
}

/// `FEN | score_cp_white | result_white` as a game of one position. The format stores a
/// score with a move, so the position gets a quiet legal move (a capture or promotion
/// only if there is nothing else; [`format::samples`] then leaves it out, as it leaves
/// out such positions of self-play games).
fn parse_text_line(line: &str) -> Option<Game> {
    let mut parts = line.split('|');
    let board = crate::chess::parse_fen(parts.next()?.trim()).ok()?;
    let cp: f32 = parts.next()?.trim().parse().ok()?;
    let result: f32 = parts.next()?.trim().parse().ok()?;
    let wdl = match result {
        1.0 => 2,
        0.5 => 1,
        0.0 => 0,
        _ => return None,
    };
    let moves = crate::chess::legal_moves(&board);
    let them = board.colors(!board.side_to_move());
    let quiet = |m: &&cozy_chess::Move| {
        m.promotion.is_none()
            && !them.has(m.to)
            && !(board.piece_on(m.from) == Some(cozy_chess::Piece::Pawn)
                && m.from.file() != m.to.file())
    };
    let mv = *moves.iter().find(quiet).or(moves.first())?;
    let score = cp.round().clamp(
        -(format::MATE_SCORE as f32) + 1.0,
        format::MATE_SCORE as f32 - 1.0,
    ) as i16;
    Some(Game {
        start: board,
        moves: vec![(mv, score)],
        wdl,
    })
}

//! `rookery human-data samples`: every (position, move played) of `.rkh` files as one
//! tab-separated line, so that scripts (e.g. `scripts/human_match.py`) read the games
//! through this decoder instead of needing a second one.

use std::io::Write;
use std::path::PathBuf;

use super::format::{game_key, read_file, HumanGame, HumanSample, Split, TimeClass};
use crate::chess::move_to_uci;

/// The `--split` argument.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum SplitArg {
    Train,
    Validation,
}

impl From<SplitArg> for Split {
    fn from(arg: SplitArg) -> Split {
        match arg {
            SplitArg::Train => Split::Train,
            SplitArg::Validation => Split::Validation,
        }
    }
}

/// Which samples `samples` prints.
#[derive(Debug, Clone, Default)]
pub struct SampleFilter {
    /// Only games of this split (`None`: both).
    pub split: Option<Split>,
    /// Only positions with at least this many plies played before them.
    pub min_ply: u16,
    /// Drop bullet and ultrabullet games.
    pub exclude_bullet: bool,
}

impl SampleFilter {
    fn keeps_game(&self, game: &HumanGame) -> bool {
        self.split.is_none_or(|s| s == game.split)
            && !(self.exclude_bullet
                && matches!(
                    game.time_control.class,
                    TimeClass::Bullet | TimeClass::UltraBullet
                ))
    }
}

/// The column names of a sample line, in order (printed as `#`-comment by `--header`).
pub const COLUMNS: [&str; 8] = [
    "fen",
    "played_uci",
    "mover_elo",
    "opponent_elo",
    "scale",
    "time_class",
    "ply",
    "game",
];

/// One sample as a line: FEN, the played move in standard UCI (castling as e1g1), the
/// mover's and the opponent's rating, the scale, the time class, the plies played before
/// the position (0 for the first move) and the game's key (16 hex digits, the same for
/// every position of a game, so callers can group or stratify by game).
pub fn sample_line(sample: &HumanSample, key: u64) -> String {
    format!(
        "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{key:016x}",
        sample.board,
        move_to_uci(&sample.board, sample.played, false),
        sample.mover_rating,
        sample.opponent_rating,
        sample.scale.name(),
        sample.time_control.class.name(),
        sample.ply,
    )
}

/// Writes the kept samples of `games` to `out`; returns how many lines it wrote.
pub fn write_samples(
    out: &mut impl Write,
    games: &[HumanGame],
    filter: &SampleFilter,
) -> Result<u64, String> {
    let mut lines = 0;
    for game in games.iter().filter(|g| filter.keeps_game(g)) {
        let key = game_key(&game.moves, game.white_rating, game.black_rating);
        for sample in game.samples() {
            if sample.ply < filter.min_ply {
                continue;
            }
            writeln!(out, "{}", sample_line(&sample, key)).map_err(|e| e.to_string())?;
            lines += 1;
        }
    }
    Ok(lines)
}

/// The CLI: reads each file (an error names the file) and prints its samples in order.
pub fn run(files: &[PathBuf], filter: &SampleFilter, header: bool) -> Result<(), String> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if header {
        writeln!(out, "#{}", COLUMNS.join("\t")).map_err(|e| e.to_string())?;
    }
    for path in files {
        let games = read_file(path)?;
        write_samples(&mut out, &games, filter)?;
    }
    out.flush().map_err(|e| e.to_string())
}

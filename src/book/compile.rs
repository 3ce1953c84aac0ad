//! The book compiler behind `rookery book build`: replays the named opening lines
//! (Lichess `chess-openings` TSV files) and a CSV of games, aggregates move statistics
//! per Polyglot key and writes a sorted Polyglot book plus an opening-name index.
//!
//! Weight of a move (see `docs/book.md` for the reasoning):
//! - games count only for the side whose rating is at least `min_rating`, only up to
//!   `max_ply` plies, each game once per (position, move) and each game id once;
//! - game points are `2 * wins + draws` from the mover's view (the classic Polyglot
//!   formula), used only if the move was played in at least `min_games` qualifying games
//!   and scored at least `min_score` (wins + draws / 2 over games);
//! - every move of a named theory line gets `theory_weight` on top, so theory is never
//!   dropped (and weighs at least 1);
//! - if a position's heaviest move exceeds 65535, all its weights are scaled down
//!   proportionally (rounded, at least 1).
//!
//! Data errors (broken rows, illegal SAN) are counted and sampled, never fatal.

use super::key::{encode_move, polyglot_key};
use super::san::{parse_san, san_tokens};
use super::{Book, Entry, OpeningNames};
use cozy_chess::Board;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// How many error messages a summary keeps verbatim.
const MAX_ERROR_SAMPLES: usize = 10;

/// Default theory lines: lichess-org/chess-openings' TSV files (CC0), committed with the
/// book so that a clone rebuilds it (book/sources/SOURCE.md).
pub const DEFAULT_OPENINGS_SOURCE: &str = "book/sources/lichess-openings";
/// Default games: the Kaggle Lichess games CSV (CC0), gzip'd beside the openings.
pub const DEFAULT_GAMES_SOURCE: &str = "book/sources/lichess-games.csv.gz";

/// Inputs, outputs and weighting parameters of the compiler.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// Opening TSV files (`eco<TAB>name<TAB>pgn`), or directories whose `*.tsv` files are read.
    pub openings: Vec<PathBuf>,
    /// Game CSV files (Lichess/Kaggle format; see `docs/book.md`).
    pub games: Vec<PathBuf>,
    /// Output Polyglot book.
    pub out: PathBuf,
    /// Output name index; `None` = `<out stem>-names.tsv` next to the book.
    pub names_out: Option<PathBuf>,
    /// Minimum rating of the side to move for its moves to count.
    pub min_rating: u32,
    /// Only the first `max_ply` plies of each game are used.
    pub max_ply: usize,
    /// A move needs at least this many qualifying games to get a game weight.
    pub min_games: u32,
    /// A move's score (mover's view, 0..1) must reach this to get a game weight.
    pub min_score: f64,
    /// Use only games with `rated` = true.
    pub rated_only: bool,
    /// Base weight of every move of a named theory line.
    pub theory_weight: u32,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            openings: vec![PathBuf::from(DEFAULT_OPENINGS_SOURCE)],
            games: vec![PathBuf::from(DEFAULT_GAMES_SOURCE)],
            out: PathBuf::from("book/lichess.bin"),
            names_out: None,
            min_rating: 1600,
            max_ply: 20,
            min_games: 2,
            min_score: 0.3,
            rated_only: false,
            theory_weight: 1,
        }
    }
}

impl BuildOptions {
    /// The name index path: `names_out`, or `<out stem>-names.tsv` next to the book.
    pub fn names_path(&self) -> PathBuf {
        if let Some(p) = &self.names_out {
            return p.clone();
        }
        let stem = self
            .out
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "book".into());
        self.out.with_file_name(format!("{stem}-names.tsv"))
    }
}

/// What the compiler read, skipped and wrote.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BuildSummary {
    /// Theory lines replayed successfully.
    pub lines: usize,
    /// Theory lines rejected (broken row, illegal SAN).
    pub line_errors: usize,
    /// Data rows in the game files.
    pub game_rows: usize,
    /// Distinct valid games in which at least one side passed the rating threshold.
    pub games_used: usize,
    /// Rows skipped because their id was already seen.
    pub duplicates_skipped: usize,
    /// Valid games skipped by the filters (unrated with `rated_only`, both ratings too low).
    pub games_filtered: usize,
    /// Game rows rejected (broken row, bad field, illegal SAN).
    pub game_errors: usize,
    /// Game moves seen but dropped (too rare or scored too badly, not theory).
    pub moves_dropped: usize,
    /// Distinct positions (keys) in the book.
    pub positions: usize,
    /// Entries (position, move) in the book.
    pub entries: usize,
    /// Entries that belong to a named theory line.
    pub theory_entries: usize,
    /// Deepest ply (1-based) at which a book move was recorded.
    pub max_ply: usize,
    /// Positions in the name index.
    pub names: usize,
    /// Size of the book file in bytes.
    pub bytes: usize,
    /// The first few error messages.
    pub error_samples: Vec<String>,
}

impl BuildSummary {
    /// All counted data errors.
    pub fn errors(&self) -> usize {
        self.line_errors + self.game_errors
    }

    fn error(&mut self, msg: String) {
        if self.error_samples.len() < MAX_ERROR_SAMPLES {
            self.error_samples.push(msg);
        }
    }
}

impl std::fmt::Display for BuildSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "theory lines:       {} ({} errors)",
            self.lines, self.line_errors
        )?;
        writeln!(
            f,
            "games:              {} used of {} rows ({} duplicate ids skipped, {} filtered, {} errors)",
            self.games_used, self.game_rows, self.duplicates_skipped, self.games_filtered, self.game_errors
        )?;
        writeln!(
            f,
            "moves dropped:      {} (rare or scored badly)",
            self.moves_dropped
        )?;
        writeln!(f, "positions:          {}", self.positions)?;
        writeln!(
            f,
            "entries:            {} ({} from theory lines)",
            self.entries, self.theory_entries
        )?;
        writeln!(f, "max ply:            {}", self.max_ply)?;
        writeln!(f, "named positions:    {}", self.names)?;
        writeln!(f, "book size:          {} bytes", self.bytes)?;
        write!(f, "errors:             {}", self.errors())?;
        for e in &self.error_samples {
            write!(f, "\n  {e}")?;
        }
        Ok(())
    }
}

#[derive(Default)]
struct MoveStat {
    theory: bool,
    wins: u32,
    draws: u32,
    losses: u32,
    max_ply: usize,
}

/// Accumulates statistics; turned into a book by [`Compiler::finish`].
struct Compiler<'a> {
    opts: &'a BuildOptions,
    stats: HashMap<(u64, u16), MoveStat>,
    /// Final position key → (plies, eco, name) of the deepest named line ending there.
    names: HashMap<u64, (usize, String, String)>,
    seen_ids: HashSet<String>,
    summary: BuildSummary,
}

/// Replays SAN moves from the start position; returns (key before move, move) pairs
/// and the final key.
fn replay(sans: &[&str]) -> Result<(Vec<(u64, u16)>, u64), String> {
    let mut board = Board::default();
    let mut path = Vec::with_capacity(sans.len());
    for (i, san) in sans.iter().enumerate() {
        let mv = parse_san(&board, san).map_err(|e| format!("ply {}: {e}", i + 1))?;
        path.push((polyglot_key(&board), encode_move(mv)));
        board.play_unchecked(mv);
    }
    Ok((path, polyglot_key(&board)))
}

impl<'a> Compiler<'a> {
    fn new(opts: &'a BuildOptions) -> Self {
        Compiler {
            opts,
            stats: HashMap::new(),
            names: HashMap::new(),
            seen_ids: HashSet::new(),
            summary: BuildSummary::default(),
        }
    }

    /// Adds one TSV file of named lines (`eco<TAB>name<TAB>pgn`, optional header).
    fn add_openings(&mut self, source: &str, text: &str) {
        for (i, line) in text.lines().enumerate() {
            let line = line.trim_end_matches('\r');
            if line.trim().is_empty() || (i == 0 && line.starts_with("eco\t")) {
                continue;
            }
            let fields: Vec<&str> = line.split('\t').collect();
            let where_ = format!("{source}:{}", i + 1);
            if fields.len() != 3 || fields[2].trim().is_empty() {
                self.summary.line_errors += 1;
                self.summary
                    .error(format!("{where_}: expected eco<TAB>name<TAB>pgn"));
                continue;
            }
            let (eco, name, pgn) = (fields[0].trim(), fields[1].trim(), fields[2]);
            let sans = san_tokens(pgn);
            match replay(&sans) {
                Ok((path, final_key)) => {
                    self.summary.lines += 1;
                    for (ply, (key, mv)) in path.into_iter().enumerate() {
                        let stat = self.stats.entry((key, mv)).or_default();
                        stat.theory = true;
                        stat.max_ply = stat.max_ply.max(ply + 1);
                    }
                    let deeper = self
                        .names
                        .get(&final_key)
                        .is_none_or(|(plies, _, _)| sans.len() > *plies);
                    if deeper {
                        self.names
                            .insert(final_key, (sans.len(), eco.to_string(), name.to_string()));
                    }
                }
                Err(e) => {
                    self.summary.line_errors += 1;
                    self.summary.error(format!("{where_}: {e}"));
                }
            }
        }
    }

    /// Adds one CSV file of games (header with at least id, rated, winner, white_rating,
    /// black_rating, moves). Fails only if the header lacks a required column.
    fn add_games(&mut self, source: &str, text: &str) -> Result<(), String> {
        let mut records = parse_csv(text).into_iter();
        let Some((_, header)) = records.next() else {
            return Ok(());
        };
        let col = |name: &str| {
            header
                .iter()
                .position(|h| h.trim() == name)
                .ok_or_else(|| format!("{source}: header has no '{name}' column"))
        };
        let (c_id, c_rated, c_winner) = (col("id")?, col("rated")?, col("winner")?);
        let (c_wr, c_br, c_moves) = (col("white_rating")?, col("black_rating")?, col("moves")?);
        for (line, row) in records {
            self.summary.game_rows += 1;
            let where_ = format!("{source}:{line}");
            if row.len() != header.len() {
                self.summary.game_errors += 1;
                self.summary.error(format!(
                    "{where_}: expected {} fields, found {}",
                    header.len(),
                    row.len()
                ));
                continue;
            }
            let id = row[c_id].trim();
            if id.is_empty() {
                self.summary.game_errors += 1;
                self.summary.error(format!("{where_}: empty id"));
                continue;
            }
            if !self.seen_ids.insert(id.to_string()) {
                self.summary.duplicates_skipped += 1;
                continue;
            }
            if let Err(e) = self.add_game(
                &row[c_rated],
                &row[c_winner],
                &row[c_wr],
                &row[c_br],
                &row[c_moves],
            ) {
                self.summary.game_errors += 1;
                self.summary.error(format!("{where_} (id {id}): {e}"));
            }
        }
        Ok(())
    }

    fn add_game(
        &mut self,
        rated: &str,
        winner: &str,
        white: &str,
        black: &str,
        moves: &str,
    ) -> Result<(), String> {
        let rated = match rated.trim().to_ascii_lowercase().as_str() {
            "true" | "1" => true,
            "false" | "0" => false,
            other => return Err(format!("bad rated value '{other}'")),
        };
        // Points for White (2 win, 1 draw, 0 loss); Black gets 2 - that.
        let white_points: u32 = match winner.trim().to_ascii_lowercase().as_str() {
            "white" => 2,
            "draw" => 1,
            "black" => 0,
            other => return Err(format!("bad winner '{other}'")),
        };
        let rating = |s: &str| {
            s.trim()
                .parse::<u32>()
                .map_err(|_| format!("bad rating '{s}'"))
        };
        let ratings = [rating(white)?, rating(black)?];
        let sans: Vec<&str> = moves.split_whitespace().collect();
        if sans.is_empty() {
            return Err("no moves".into());
        }
        // Replay the whole game so that corrupt move lists are caught.
        let (path, _) = replay(&sans)?;
        let counts = [
            ratings[0] >= self.opts.min_rating,
            ratings[1] >= self.opts.min_rating,
        ];
        if (self.opts.rated_only && !rated) || !(counts[0] || counts[1]) {
            self.summary.games_filtered += 1;
            return Ok(());
        }
        self.summary.games_used += 1;
        let mut seen_here = HashSet::new();
        for (ply, (key, mv)) in path.into_iter().take(self.opts.max_ply).enumerate() {
            let side = ply % 2;
            if !counts[side] || !seen_here.insert((key, mv)) {
                continue;
            }
            let points = if side == 0 {
                white_points
            } else {
                2 - white_points
            };
            let stat = self.stats.entry((key, mv)).or_default();
            match points {
                2 => stat.wins += 1,
                1 => stat.draws += 1,
                _ => stat.losses += 1,
            }
            stat.max_ply = stat.max_ply.max(ply + 1);
        }
        Ok(())
    }

    /// Applies the weight formula and produces the book and the name index.
    fn finish(mut self) -> (Book, OpeningNames, BuildSummary) {
        let opts = self.opts;
        let mut by_key: HashMap<u64, Vec<(u16, u64, usize, bool)>> = HashMap::new();
        for ((key, mv), s) in &self.stats {
            let games = s.wins + s.draws + s.losses;
            let score = if games == 0 {
                0.0
            } else {
                (f64::from(s.wins) + f64::from(s.draws) / 2.0) / f64::from(games)
            };
            let games_ok = games > 0 && games >= opts.min_games && score >= opts.min_score;
            let mut weight = if games_ok {
                2 * u64::from(s.wins) + u64::from(s.draws)
            } else {
                0
            };
            if s.theory {
                weight = (weight + u64::from(opts.theory_weight)).max(1);
            }
            if weight == 0 {
                self.summary.moves_dropped += 1;
                continue;
            }
            by_key
                .entry(*key)
                .or_default()
                .push((*mv, weight, s.max_ply, s.theory));
        }
        let mut entries = Vec::new();
        for (key, moves) in by_key {
            let max = moves.iter().map(|m| m.1).max().unwrap_or(1);
            for (mv, w, ply, theory) in moves {
                let weight = if max > u64::from(u16::MAX) {
                    ((w as f64 * f64::from(u16::MAX) / max as f64).round() as u64).max(1)
                } else {
                    w
                };
                self.summary.max_ply = self.summary.max_ply.max(ply);
                self.summary.theory_entries += usize::from(theory);
                entries.push(Entry {
                    key,
                    raw_move: mv,
                    weight: weight.min(u64::from(u16::MAX)) as u16,
                    learn: 0,
                });
            }
        }
        let book = Book::from_entries(entries);
        let names = OpeningNames::from_entries(
            self.names
                .into_iter()
                .map(|(k, (_, eco, name))| (k, eco, name))
                .collect(),
        );
        self.summary.entries = book.len();
        self.summary.positions = book.positions();
        self.summary.names = names.len();
        self.summary.bytes = book.len() * super::ENTRY_SIZE;
        (book, names, self.summary)
    }
}

/// Compiles in memory: `openings` and `games` are (source name, file text) pairs.
pub fn compile_texts(
    openings: &[(String, String)],
    games: &[(String, String)],
    opts: &BuildOptions,
) -> Result<(Book, OpeningNames, BuildSummary), String> {
    let mut c = Compiler::new(opts);
    for (name, text) in openings {
        c.add_openings(name, text);
    }
    for (name, text) in games {
        c.add_games(name, text)?;
    }
    Ok(c.finish())
}

/// A text file, gunzipped when its name ends in `.gz`.
fn read_text(path: &Path) -> Result<String, String> {
    let err = |e: std::io::Error| format!("cannot read '{}': {e}", path.display());
    let bytes = std::fs::read(path).map_err(err)?;
    let bytes = if path.extension().is_some_and(|e| e == "gz") {
        let mut out = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut out)
            .map_err(err)?;
        out
    } else {
        bytes
    };
    String::from_utf8(bytes).map_err(|e| format!("'{}' is not UTF-8: {e}", path.display()))
}

/// Expands directories to their `*.tsv` files (sorted by name).
fn opening_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            out.extend(crate::files::with_extension(p, "tsv")?);
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

/// Reads the inputs named in `opts`, compiles, writes the book and the name index, and
/// returns the summary. Unreadable inputs or outputs are errors; bad data rows are not.
pub fn build_book(opts: &BuildOptions) -> Result<BuildSummary, String> {
    if opts.max_ply == 0 && opts.openings.is_empty() {
        return Err("nothing to build: no openings and max_ply 0".into());
    }
    if let Some(missing) = opts
        .openings
        .iter()
        .chain(&opts.games)
        .find(|p| !p.exists())
    {
        return Err(format!(
            "book source not found: '{}'. The book's source data (Lichess opening lines and \
             games) is in book/sources/ (run from the repository root); see docs/book.md, \
             or pass --openings DIR|FILE and --games FILE (or --no-games)",
            missing.display()
        ));
    }
    let mut openings = Vec::new();
    for f in opening_files(&opts.openings)? {
        openings.push((f.display().to_string(), read_text(&f)?));
    }
    let mut games = Vec::new();
    for f in &opts.games {
        games.push((f.display().to_string(), read_text(f)?));
    }
    let (book, names, summary) = compile_texts(&openings, &games, opts)?;
    if book.is_empty() {
        return Err(format!("the book would be empty\n{summary}"));
    }
    let names_path = opts.names_path();
    for p in [&opts.out, &names_path] {
        if let Some(dir) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create '{}': {e}", dir.display()))?;
        }
    }
    std::fs::write(&opts.out, book.to_bytes())
        .map_err(|e| format!("cannot write '{}': {e}", opts.out.display()))?;
    std::fs::write(&names_path, names.to_tsv())
        .map_err(|e| format!("cannot write '{}': {e}", names_path.display()))?;
    Ok(summary)
}

/// Minimal RFC 4180 CSV reader: quoted fields may hold commas, doubled quotes and line
/// breaks; CRLF or LF line ends. Returns (1-based line number of the record start, fields);
/// blank lines are skipped.
pub fn parse_csv(text: &str) -> Vec<(usize, Vec<String>)> {
    let mut records = Vec::new();
    let mut fields: Vec<String> = Vec::new();
    let mut field = String::new();
    let mut in_quotes = false;
    let mut line = 1;
    let mut start_line = 1;
    let mut chars = text.chars().peekable();
    let mut end_record = |fields: &mut Vec<String>, field: &mut String, start: usize| {
        fields.push(std::mem::take(field));
        let rec = std::mem::take(fields);
        if !(rec.len() == 1 && rec[0].is_empty()) {
            records.push((start, rec));
        }
    };
    while let Some(c) = chars.next() {
        if in_quotes {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => in_quotes = false,
                '\n' => {
                    line += 1;
                    field.push(c);
                }
                _ => field.push(c),
            }
            continue;
        }
        match c {
            '"' if field.is_empty() => in_quotes = true,
            ',' => fields.push(std::mem::take(&mut field)),
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' => {
                end_record(&mut fields, &mut field, start_line);
                line += 1;
                start_line = line;
            }
            _ => field.push(c),
        }
    }
    if !field.is_empty() || !fields.is_empty() {
        end_record(&mut fields, &mut field, start_line);
    }
    records
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_and_crlf() {
        let recs = parse_csv("a,b,c\r\n1,\"x, y\",\"say \"\"hi\"\"\"\r\n\r\n2,3\n");
        assert_eq!(recs.len(), 3);
        assert_eq!(recs[1].1, vec!["1", "x, y", "say \"hi\""]);
        assert_eq!(recs[2], (4, vec!["2".to_string(), "3".to_string()]));
    }
}

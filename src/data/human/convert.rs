//! Conversion of rated human games (Kaggle `games.csv`, PGN files, plain or gzip'd) into
//! [`HumanGame`]s: every move checked legal, bad records counted by reason and skipped
//! with a message, duplicates dropped, single-player archives capped, and each game
//! assigned to train or validation by a hash of the game (never by position).

use std::collections::{BTreeMap, HashSet};
use std::io::Read;
use std::path::Path;

use cozy_chess::{Board, Move};
use indicatif::{ProgressBar, ProgressStyle};

use super::csv::{read_rows, KaggleRow};
use super::format::{
    game_key, split_for, GameResult, HumanGame, Scale, Source, Split, TimeClass, TimeControl,
};
use super::pgn::{move_tokens, split_games, PgnGame};
use crate::chess::san::parse_san;

/// Why a record was not converted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SkipReason {
    /// A row or game that cannot be read at all (missing columns, no movetext).
    Malformed,
    IllegalMove,
    MissingRating,
    /// A `Variant` other than Standard, or a set-up start position (`FEN`/`SetUp`).
    UnknownVariant,
    /// Casual games: the rating did not count, so it says less about the mover.
    Unrated,
    NoMoves,
    /// Same moves and same ratings as a game already converted.
    Duplicate,
    /// Beyond the cap on games from one single-player archive.
    SinglePlayerCap,
}

impl SkipReason {
    pub fn name(self) -> &'static str {
        match self {
            SkipReason::Malformed => "malformed record",
            SkipReason::IllegalMove => "illegal move",
            SkipReason::MissingRating => "missing rating",
            SkipReason::UnknownVariant => "unknown variant or set-up start",
            SkipReason::Unrated => "unrated (casual) game",
            SkipReason::NoMoves => "no moves",
            SkipReason::Duplicate => "duplicate game",
            SkipReason::SinglePlayerCap => "over the single-player cap",
        }
    }
}

/// Settings of a conversion.
#[derive(Debug, Clone)]
pub struct ConvertOptions {
    /// Share of games put in validation, per mille (100 = 10 %).
    pub validation_per_mille: u64,
    /// Most games kept from each single-player archive (chosen by game hash).
    pub single_player_cap: usize,
    /// Messages printed per skip reason and input before only counting.
    pub messages_per_reason: usize,
    pub progress: bool,
    /// Keys ([`game_key`]) of games already stored elsewhere: these count as duplicates.
    pub known_games: HashSet<u64>,
}

impl Default for ConvertOptions {
    fn default() -> Self {
        ConvertOptions {
            validation_per_mille: 100,
            single_player_cap: 1500,
            messages_per_reason: 3,
            progress: false,
            known_games: HashSet::new(),
        }
    }
}

/// What a conversion did: games kept, records skipped by reason, and the messages.
#[derive(Debug, Default, Clone)]
pub struct ConvertReport {
    pub records: u64,
    pub kept: u64,
    pub skipped: BTreeMap<SkipReason, u64>,
    /// Up to `messages_per_reason` messages per reason and input.
    pub messages: Vec<String>,
    pub input_bytes: u64,
}

impl ConvertReport {
    pub fn skipped_total(&self) -> u64 {
        self.skipped.values().sum()
    }
}

/// Guesses the source from the file name (SOURCE.md's names); other PGNs are
/// [`Source::OtherPgn`] with the scale read per game from `Site`.
pub fn source_of(path: &Path) -> Source {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    let known = [
        ("lichess_arenas", Source::LichessArenas),
        ("lichess_elite", Source::LichessElite),
        ("lichess_fgf", Source::LichessFgf),
        (
            "lichess_user_jishanshaikh4",
            Source::LichessUserJishanshaikh4,
        ),
        (
            "lichess_user_drnykterstein",
            Source::LichessUserDrNykterstein,
        ),
        ("chesscom_user_apuzanov", Source::ChessComUserApuzanov),
        ("twic_otb", Source::TwicOtb),
    ];
    known
        .iter()
        .find(|(prefix, _)| name.starts_with(prefix))
        .map(|&(_, s)| s)
        .unwrap_or(if name.ends_with(".csv") || name.ends_with(".csv.gz") {
            Source::KaggleLichess
        } else {
            Source::OtherPgn
        })
}

/// The input as text: gunzipped when it starts with the gzip magic; bytes that are not
/// UTF-8 (older PGN exports are Latin-1) become U+FFFD, which only names can contain.
fn read_text(path: &Path) -> Result<String, String> {
    let mut bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut plain = Vec::new();
        flate2::read::MultiGzDecoder::new(&bytes[..])
            .read_to_end(&mut plain)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        bytes = plain;
    }
    let text = String::from_utf8_lossy(&bytes);
    Ok(text.strip_prefix('\u{feff}').unwrap_or(&text).to_string())
}

/// A rating as stored: a positive integer below 65535.
fn parse_rating(text: Option<&str>) -> Option<u16> {
    let value: u32 = text?.trim().parse().ok()?;
    (1..u16::MAX as u32)
        .contains(&value)
        .then_some(value as u16)
}

/// PGN `TimeControl`: `base+inc` in seconds, `-` or `1/n` for correspondence.
fn pgn_time_control(tag: Option<&str>, source: Source) -> TimeControl {
    if source == Source::TwicOtb {
        return TimeControl {
            class: TimeClass::OtbStandard,
            ..TimeControl::UNKNOWN
        };
    }
    match tag.map(str::trim) {
        Some("-") => TimeControl {
            class: TimeClass::Correspondence,
            ..TimeControl::UNKNOWN
        },
        Some(t) if t.starts_with("1/") => TimeControl {
            class: TimeClass::Correspondence,
            ..TimeControl::UNKNOWN
        },
        Some(t) => match t.split_once('+') {
            Some((base, inc)) => match (base.parse(), inc.parse()) {
                (Ok(b), Ok(i)) => TimeControl::from_seconds(b, i),
                _ => TimeControl::UNKNOWN,
            },
            None => t
                .parse()
                .map_or(TimeControl::UNKNOWN, |b| TimeControl::from_seconds(b, 0)),
        },
        None => TimeControl::UNKNOWN,
    }
}

fn result_of(text: Option<&str>) -> GameResult {
    match text.map(str::trim) {
        Some("1-0") | Some("white") => GameResult::WhiteWin,
        Some("0-1") | Some("black") => GameResult::BlackWin,
        Some("1/2-1/2") | Some("draw") => GameResult::Draw,
        _ => GameResult::Unknown,
    }
}

fn scale_of_pgn(game: &PgnGame, source: Source) -> Scale {
    if let Some(scale) = source.scale() {
        return scale;
    }
    let site = game.tag("Site").unwrap_or("").to_lowercase();
    if site.contains("lichess.org") {
        Scale::Lichess
    } else if site.contains("chess.com") {
        Scale::ChessCom
    } else if game.tag("WhiteFideId").is_some() || game.tag("BlackFideId").is_some() {
        Scale::Fide
    } else {
        Scale::Unknown
    }
}

/// Plays SAN tokens from the start position; the first bad one is an illegal move.
fn play_sans<'a>(sans: impl Iterator<Item = &'a str>) -> Result<Vec<Move>, String> {
    let mut board = Board::default();
    let mut moves = Vec::new();
    for san in sans {
        let mv = parse_san(&board, san).map_err(|e| format!("ply {}: {e}", moves.len() + 1))?;
        board.play_unchecked(mv);
        moves.push(mv);
    }
    Ok(moves)
}

/// A game with where it was found (for messages), or why it was skipped.
type Converted = Result<(HumanGame, String), (SkipReason, String)>;

fn from_kaggle_row(row: &KaggleRow) -> Converted {
    let at = format!("line {} (id {})", row.line, row.id);
    if !row.rated.trim().eq_ignore_ascii_case("true") {
        return Err((SkipReason::Unrated, format!("{at}: rated={}", row.rated)));
    }
    let (Some(white), Some(black)) = (
        parse_rating(Some(&row.white_rating)),
        parse_rating(Some(&row.black_rating)),
    ) else {
        return Err((
            SkipReason::MissingRating,
            format!("{at}: no integer rating"),
        ));
    };
    // increment_code is minutes+seconds ("15+2").
    let time_control = match row.increment_code.split_once('+') {
        Some((m, s)) => match (m.trim().parse::<u32>(), s.trim().parse::<u32>()) {
            (Ok(m), Ok(s)) => TimeControl::from_seconds(m.saturating_mul(60), s),
            _ => TimeControl::UNKNOWN,
        },
        None => TimeControl::UNKNOWN,
    };
    let moves = play_sans(row.moves.split_whitespace())
        .map_err(|e| (SkipReason::IllegalMove, format!("{at}: {e}")))?;
    if moves.is_empty() {
        return Err((SkipReason::NoMoves, at));
    }
    Ok((
        HumanGame {
            white_rating: white,
            black_rating: black,
            scale: Scale::Lichess,
            source: Source::KaggleLichess,
            split: Split::Train,
            result: result_of(Some(&row.winner)),
            time_control,
            moves,
            clocks: None,
        },
        at,
    ))
}

fn from_pgn_game(game: &PgnGame, source: Source) -> Converted {
    let at = format!("game at line {}", game.line);
    let variant = game.tag("Variant").unwrap_or("Standard");
    if !variant.eq_ignore_ascii_case("standard") && !variant.eq_ignore_ascii_case("chess") {
        return Err((
            SkipReason::UnknownVariant,
            format!("{at}: Variant \"{variant}\""),
        ));
    }
    if game.tag("FEN").is_some() || game.tag("SetUp") == Some("1") {
        return Err((
            SkipReason::UnknownVariant,
            format!("{at}: set-up start position"),
        ));
    }
    if game
        .tag("Event")
        .is_some_and(|e| e.to_lowercase().contains("casual"))
    {
        return Err((SkipReason::Unrated, format!("{at}: casual game")));
    }
    let (Some(white), Some(black)) = (
        parse_rating(game.tag("WhiteElo")),
        parse_rating(game.tag("BlackElo")),
    ) else {
        return Err((
            SkipReason::MissingRating,
            format!(
                "{at}: WhiteElo {:?} BlackElo {:?}",
                game.tag("WhiteElo").unwrap_or("(none)"),
                game.tag("BlackElo").unwrap_or("(none)")
            ),
        ));
    };
    let tokens = move_tokens(&game.movetext);
    let moves = play_sans(tokens.iter().map(|t| t.san.as_str()))
        .map_err(|e| (SkipReason::IllegalMove, format!("{at}: {e}")))?;
    if moves.is_empty() {
        return Err((SkipReason::NoMoves, at));
    }
    let clocks: Option<Vec<u32>> = tokens.iter().map(|t| t.clock_tenths).collect();
    Ok((
        HumanGame {
            white_rating: white,
            black_rating: black,
            scale: scale_of_pgn(game, source),
            source,
            split: Split::Train,
            result: result_of(game.tag("Result")),
            time_control: pgn_time_control(game.tag("TimeControl"), source),
            moves,
            clocks,
        },
        at,
    ))
}

/// Converts inputs into one list of games, in input order, with the report.
pub fn convert_files(
    inputs: &[impl AsRef<Path>],
    options: &ConvertOptions,
) -> Result<(Vec<HumanGame>, ConvertReport), String> {
    let mut report = ConvertReport::default();
    let mut seen = options.known_games.clone();
    let mut games = Vec::new();
    for input in inputs {
        let path = input.as_ref();
        let text = read_text(path)?;
        report.input_bytes += std::fs::metadata(path).map_or(0, |m| m.len());
        let source = source_of(path);
        let converted: Vec<Converted> = if source == Source::KaggleLichess {
            let rows = read_rows(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            let bar = progress_bar(options, rows.len(), path);
            let out = rows
                .iter()
                .map(|row| {
                    bar.inc(1);
                    match row {
                        Ok(row) => from_kaggle_row(row),
                        Err(e) => Err((SkipReason::Malformed, e.clone())),
                    }
                })
                .collect();
            bar.finish_and_clear();
            out
        } else {
            let pgn_games = split_games(&text);
            let bar = progress_bar(options, pgn_games.len(), path);
            let out = pgn_games
                .iter()
                .map(|g| {
                    bar.inc(1);
                    from_pgn_game(g, source)
                })
                .collect();
            bar.finish_and_clear();
            out
        };
        let mut per_reason_messages: BTreeMap<SkipReason, usize> = BTreeMap::new();
        let mut skip = |report: &mut ConvertReport, reason: SkipReason, message: String| {
            *report.skipped.entry(reason).or_default() += 1;
            let shown = per_reason_messages.entry(reason).or_default();
            if *shown < options.messages_per_reason {
                *shown += 1;
                report.messages.push(format!(
                    "{}: skipped ({}): {message}",
                    path.display(),
                    reason.name()
                ));
            }
        };
        let mut kept_here = Vec::new();
        for result in converted {
            report.records += 1;
            match result {
                Ok((game, at)) if game.moves.len() > u16::MAX as usize => {
                    // The format counts plies in a u16; no real game comes near it.
                    let message = format!("{at}: {} plies", game.moves.len());
                    skip(&mut report, SkipReason::Malformed, message);
                }
                Ok((mut game, at)) => {
                    let key = game_key(&game.moves, game.white_rating, game.black_rating);
                    if !seen.insert(key) {
                        let plies = game.moves.len();
                        let message = format!("{at}: {plies} plies, same moves and ratings");
                        skip(&mut report, SkipReason::Duplicate, message);
                        continue;
                    }
                    game.split = split_for(key, options.validation_per_mille);
                    kept_here.push((key, game));
                }
                Err((reason, message)) => skip(&mut report, reason, message),
            }
        }
        if source.is_single_player() && kept_here.len() > options.single_player_cap {
            let over = kept_here.len() - options.single_player_cap;
            kept_here = cap_games(kept_here, options.single_player_cap, &mut seen);
            *report
                .skipped
                .entry(SkipReason::SinglePlayerCap)
                .or_default() += over as u64;
            report.messages.push(format!(
                "{}: {over} games over the single-player cap of {} not kept",
                path.display(),
                options.single_player_cap
            ));
        }
        report.kept += kept_here.len() as u64;
        games.extend(kept_here.into_iter().map(|(_, g)| g));
    }
    Ok((games, report))
}

/// Keeps `cap` of the keyed games, a hash-chosen subset (deterministic, spread over the
/// whole archive rather than its first months), in their original order. The dropped
/// games leave `seen`, so the same game met later in another source is still kept.
fn cap_games(
    games: Vec<(u64, HumanGame)>,
    cap: usize,
    seen: &mut HashSet<u64>,
) -> Vec<(u64, HumanGame)> {
    let mut order: Vec<usize> = (0..games.len()).collect();
    order.sort_by_key(|&i| games[i].0.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut keep = vec![false; games.len()];
    for &i in order.iter().take(cap) {
        keep[i] = true;
    }
    games
        .into_iter()
        .zip(keep)
        .filter_map(|((key, game), kept)| {
            if !kept {
                seen.remove(&key);
            }
            kept.then_some((key, game))
        })
        .collect()
}

fn progress_bar(options: &ConvertOptions, len: usize, path: &Path) -> ProgressBar {
    if !options.progress {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len as u64);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} games ({per_sec}, eta {eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_message(
        path.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
    );
    bar
}

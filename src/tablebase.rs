//! Syzygy endgame tablebases, read with the `pyrrhic-rs` crate: win/draw/loss probes for
//! the search and distance-to-zero probes to pick the root move.
//!
//! The crate keeps its tables in process-wide state (one set of tables per process), so
//! this module does too: [`load`] replaces the set, probes read it under a read lock, and
//! a root probe (which the crate does not make thread-safe) takes the write lock.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::RwLock;

use cozy_chess::{BitBoard, Board, Color, Move, Piece, Square};
use pyrrhic_rs::{DtzProbeValue, EngineAdapter, TableBases, WdlProbeResult};

use crate::chess::legal_moves;

/// Attack generation for the prober, from cozy-chess's tables.
#[derive(Clone)]
struct Attacks;

impl EngineAdapter for Attacks {
    fn pawn_attacks(color: pyrrhic_rs::Color, square: u64) -> u64 {
        let color = match color {
            pyrrhic_rs::Color::White => Color::White,
            pyrrhic_rs::Color::Black => Color::Black,
        };
        cozy_chess::get_pawn_attacks(Square::index(square as usize), color).0
    }
    fn knight_attacks(square: u64) -> u64 {
        cozy_chess::get_knight_moves(Square::index(square as usize)).0
    }
    fn bishop_attacks(square: u64, occupied: u64) -> u64 {
        cozy_chess::get_bishop_moves(Square::index(square as usize), BitBoard(occupied)).0
    }
    fn rook_attacks(square: u64, occupied: u64) -> u64 {
        cozy_chess::get_rook_moves(Square::index(square as usize), BitBoard(occupied)).0
    }
    fn queen_attacks(square: u64, occupied: u64) -> u64 {
        Self::bishop_attacks(square, occupied) | Self::rook_attacks(square, occupied)
    }
    fn king_attacks(square: u64) -> u64 {
        cozy_chess::get_king_moves(Square::index(square as usize)).0
    }
}

struct Loaded {
    tables: TableBases<Attacks>,
    /// The `SyzygyPath` value the tables came from.
    path: String,
    largest: u32,
}

static TABLES: RwLock<Option<Loaded>> = RwLock::new(None);
/// Pieces (kings included) in the largest table loaded; 0 when none is. Read without
/// the lock so that a search without tables pays nothing.
static LARGEST: AtomicU32 = AtomicU32::new(0);

/// A tablebase result for the side to move. With the fifty-move rule, a `CursedWin` is a
/// win that takes too long (a draw in a game) and a `BlessedLoss` the loss that escapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Wdl {
    Loss,
    BlessedLoss,
    Draw,
    CursedWin,
    Win,
}

impl Wdl {
    /// -2 (loss) … 2 (win), as Syzygy numbers them.
    pub fn signed(self) -> i32 {
        self as i32 - 2
    }

    /// What the result is worth in a game: with `rule50`, cursed wins and blessed losses
    /// are draws.
    pub fn in_game(self, rule50: bool) -> Wdl {
        match self {
            Wdl::CursedWin if rule50 => Wdl::Draw,
            Wdl::CursedWin => Wdl::Win,
            Wdl::BlessedLoss if rule50 => Wdl::Draw,
            Wdl::BlessedLoss => Wdl::Loss,
            other => other,
        }
    }

    fn from_probe(r: WdlProbeResult) -> Wdl {
        match r {
            WdlProbeResult::Loss => Wdl::Loss,
            WdlProbeResult::BlessedLoss => Wdl::BlessedLoss,
            WdlProbeResult::Draw => Wdl::Draw,
            WdlProbeResult::CursedWin => Wdl::CursedWin,
            WdlProbeResult::Win => Wdl::Win,
        }
    }
}

/// Loads the tables in `paths` (directories separated as the platform separates `PATH`:
/// `:` on Unix, `;` on Windows), replacing the current set; `""` or `<empty>` unloads.
/// On error the previous tables stay loaded. Returns the largest table's piece count
/// and the number of table files found.
pub fn load(paths: &str) -> Result<(u32, usize), String> {
    let paths = paths.trim();
    let mut guard = TABLES.write().unwrap_or_else(|e| e.into_inner());
    if paths.is_empty() || paths == "<empty>" {
        *guard = None;
        LARGEST.store(0, Ordering::Relaxed);
        return Ok((0, 0));
    }
    let dirs: Vec<std::path::PathBuf> = std::env::split_paths(paths).collect();
    let mut files = 0;
    // The crate counts tables whose files are missing as present (pyrrhic-rs 0.2 tests
    // its file check against the wrong value), so its "largest table" is always 7: count
    // the pieces in the names of the WDL files actually there instead.
    let mut largest_found = 0;
    for dir in &dirs {
        let entries = std::fs::read_dir(dir)
            .map_err(|e| format!("SyzygyPath: cannot read '{}': {e}", dir.display()))?;
        for entry in entries.filter_map(Result::ok) {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if let Some(stem) = name.strip_suffix(".rtbw") {
                let pieces = stem.chars().filter(char::is_ascii_uppercase).count() as u32;
                largest_found = largest_found.max(pieces);
                files += 1;
            } else if name.ends_with(".rtbz") {
                files += 1;
            }
        }
        // The prober separates directories with ':' whatever the platform.
        if dir.to_string_lossy().contains(':') {
            return Err(format!(
                "SyzygyPath: '{}' contains ':', which the tablebase reader cannot handle \
                 (use a relative path)",
                dir.display()
            ));
        }
    }
    if largest_found == 0 {
        return Err(format!(
            "SyzygyPath: no Syzygy WDL files (.rtbw) in '{paths}'"
        ));
    }
    let joined = dirs
        .iter()
        .map(|d| d.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(":");
    // One set of tables per process: the old set must go before the new one loads.
    let previous = guard.take().map(|l| (l.path, l.largest));
    LARGEST.store(0, Ordering::Relaxed);
    match TableBases::<Attacks>::new(&joined) {
        Ok(tables) => {
            let largest = tables.max_pieces().min(largest_found);
            LARGEST.store(largest, Ordering::Relaxed);
            *guard = Some(Loaded {
                tables,
                path: paths.to_string(),
                largest,
            });
            Ok((largest, files))
        }
        Err(e) => {
            if let Some((old, largest)) = previous {
                let old_joined = std::env::split_paths(&old)
                    .map(|d| d.to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join(":");
                if let Ok(tables) = TableBases::<Attacks>::new(&old_joined) {
                    LARGEST.store(largest, Ordering::Relaxed);
                    *guard = Some(Loaded {
                        tables,
                        path: old,
                        largest,
                    });
                }
            }
            Err(format!(
                "SyzygyPath: could not load tables from '{paths}': {e:?}"
            ))
        }
    }
}

/// The largest number of pieces (kings included) the loaded tables cover; 0 without tables.
#[inline]
pub fn largest() -> u32 {
    LARGEST.load(Ordering::Relaxed)
}

/// The path the loaded tables came from.
pub fn loaded_path() -> Option<String> {
    TABLES
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
        .map(|l| l.path.clone())
}

/// Whether a position can be looked up at all: few enough pieces and no castling rights
/// (the tables assume none).
pub fn covers(board: &Board) -> bool {
    let pieces = board.occupied().len();
    pieces <= largest()
        && [Color::White, Color::Black].iter().all(|&c| {
            let r = board.castle_rights(c);
            r.short.is_none() && r.long.is_none()
        })
}

/// The en-passant square as the prober wants it (0 when none).
fn ep_square(board: &Board) -> u32 {
    match board.en_passant() {
        None => 0,
        Some(file) => {
            let rank = match board.side_to_move() {
                Color::White => cozy_chess::Rank::Sixth,
                Color::Black => cozy_chess::Rank::Third,
            };
            Square::new(file, rank) as u32
        }
    }
}

/// The board as the prober takes it: white, black, kings, queens, rooks, bishops,
/// knights, pawns.
fn bitboards(board: &Board) -> [u64; 8] {
    let p = |piece| board.pieces(piece).0;
    [
        board.colors(Color::White).0,
        board.colors(Color::Black).0,
        p(Piece::King),
        p(Piece::Queen),
        p(Piece::Rook),
        p(Piece::Bishop),
        p(Piece::Knight),
        p(Piece::Pawn),
    ]
}

/// The win/draw/loss result for the side to move, assuming the fifty-move counter is 0
/// (as it is just after a capture or pawn move, where the search probes). `None` when
/// the position is not covered or the tables fail.
pub fn probe_wdl(board: &Board) -> Option<Wdl> {
    if !covers(board) {
        return None;
    }
    let guard = TABLES.read().unwrap_or_else(|e| e.into_inner());
    let loaded = guard.as_ref()?;
    let [white, black, kings, queens, rooks, bishops, knights, pawns] = bitboards(board);
    loaded
        .tables
        .probe_wdl(
            white,
            black,
            kings,
            queens,
            rooks,
            bishops,
            knights,
            pawns,
            ep_square(board),
            board.side_to_move() == Color::White,
        )
        .ok()
        .map(Wdl::from_probe)
}

/// One root move as the distance-to-zero tables see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RootMove {
    pub mv: Move,
    /// The result for the side to move at the root after this move, with the root's
    /// fifty-move counter taken into account.
    pub wdl: Wdl,
    /// Plies to the next capture or pawn move (or mate) with best play after this move.
    pub dtz: u32,
}

/// The root position's DTZ probe: its own result, its distance to zeroing, and every legal
/// move's. `None` when not covered, when the root has no moves, or when the tables fail.
pub fn probe_root(board: &Board) -> Option<(Wdl, u32, Vec<RootMove>)> {
    if !covers(board) {
        return None;
    }
    // The crate's root probe is not thread-safe: hold the lock exclusively.
    let guard = TABLES.write().unwrap_or_else(|e| e.into_inner());
    let loaded = guard.as_ref()?;
    let [white, black, kings, queens, rooks, bishops, knights, pawns] = bitboards(board);
    let result = loaded
        .tables
        .probe_root(
            white,
            black,
            kings,
            queens,
            rooks,
            bishops,
            knights,
            pawns,
            board.halfmove_clock() as u32,
            ep_square(board),
            board.side_to_move() == Color::White,
        )
        .ok()?;
    let DtzProbeValue::DtzResult(root) = result.root else {
        return None; // mate or stalemate: nothing to choose
    };
    let legal = legal_moves(board);
    let mut moves = Vec::with_capacity(result.num_moves);
    for value in &result.moves[..result.num_moves] {
        let DtzProbeValue::DtzResult(r) = value else {
            return None;
        };
        let promotion = match r.promotion {
            pyrrhic_rs::Piece::Queen => Some(Piece::Queen),
            pyrrhic_rs::Piece::Rook => Some(Piece::Rook),
            pyrrhic_rs::Piece::Bishop => Some(Piece::Bishop),
            pyrrhic_rs::Piece::Knight => Some(Piece::Knight),
            _ => None,
        };
        let mv = Move {
            from: Square::index(r.from_square as usize),
            to: Square::index(r.to_square as usize),
            promotion,
        };
        if !legal.contains(&mv) {
            return None; // the tables and the board disagree: trust neither
        }
        moves.push(RootMove {
            mv,
            wdl: Wdl::from_probe(r.wdl),
            dtz: r.dtz as u32,
        });
    }
    if moves.len() != legal.len() {
        return None;
    }
    Some((Wdl::from_probe(root.wdl), root.dtz as u32, moves))
}

/// The root moves worth playing by the tables: those with the best result in a game
/// (cursed wins count as draws under `rule50`, but rank above plain draws since the
/// opponent may still zero the counter), and among winning moves only the fastest to
/// convert, so that the game makes progress (a search that only sees "won" everywhere
/// could shuffle into a fifty-move draw); among losing moves, the slowest.
pub fn best_root_moves(moves: &[RootMove], rule50: bool) -> Vec<Move> {
    let rank = |m: &RootMove| -> (i32, i64) {
        let class = if rule50 {
            m.wdl.signed()
        } else {
            m.wdl.in_game(false).signed()
        };
        let by_distance = match class {
            c if c > 0 => -(m.dtz as i64), // a win: sooner is better
            c if c < 0 => m.dtz as i64,    // a loss: later is better
            _ => 0,                        // a draw: all equal
        };
        (class, by_distance)
    };
    let Some(best) = moves.iter().map(rank).max() else {
        return Vec::new();
    };
    moves
        .iter()
        .filter(|m| rank(m) == best)
        .map(|m| m.mv)
        .collect()
}

/// `rookery tb`: probe positions from the command line (used to check the tables against
/// python-chess, and to time probes).
#[derive(clap::Args, Debug)]
pub struct ProbeArgs {
    /// Table folders, as for `SyzygyPath`.
    #[arg(long)]
    pub path: String,
    /// Probe every position this many more times and report probes per second (stderr).
    #[arg(long, default_value_t = 0)]
    pub time_rounds: usize,
}

/// Reads FENs from stdin and prints, per line, `wdl dtz best` for the side to move:
/// WDL -2..2 assuming a fresh fifty-move counter, DTZ signed as Syzygy counts it (with the
/// FEN's counter), and the move the tables recommend; `none` where the tables have no answer.
pub fn run_cli(args: &ProbeArgs) -> Result<(), String> {
    use std::io::{BufRead, Write};
    let (largest, files) = load(&args.path)?;
    eprintln!("{files} table files, up to {largest} pieces");
    let mut boards = Vec::new();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for line in std::io::stdin().lock().lines() {
        let line = line.map_err(|e| e.to_string())?;
        if line.trim().is_empty() {
            continue;
        }
        let board = crate::chess::parse_fen(line.trim())?;
        let wdl = probe_wdl(&board);
        let root = probe_root(&board);
        let text = match (wdl, root) {
            (Some(w), Some((root_wdl, dtz, moves))) => {
                let sign = root_wdl.signed().signum() as i64;
                let best = best_root_moves(&moves, true)
                    .first()
                    .map_or("none".to_string(), |m| m.to_string());
                format!("{} {} {best}", w.signed(), sign * dtz as i64)
            }
            (Some(w), None) => format!("{} none none", w.signed()),
            _ => "none none none".to_string(),
        };
        writeln!(out, "{text}").map_err(|e| e.to_string())?;
        boards.push(board);
    }
    if args.time_rounds > 0 && !boards.is_empty() {
        let start = std::time::Instant::now();
        let mut found = 0usize;
        for _ in 0..args.time_rounds {
            for board in &boards {
                found += probe_wdl(std::hint::black_box(board)).is_some() as usize;
            }
        }
        let probes = args.time_rounds * boards.len();
        let secs = start.elapsed().as_secs_f64();
        eprintln!(
            "{probes} WDL probes ({found} found) in {secs:.3} s: {:.0} probes/s",
            probes as f64 / secs
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root(mv: &str, wdl: Wdl, dtz: u32) -> RootMove {
        let board = Board::default();
        RootMove {
            mv: crate::chess::parse_uci_move(&board, mv).unwrap(),
            wdl,
            dtz,
        }
    }

    #[test]
    fn root_ranking_prefers_results_then_distance() {
        let moves = [
            root("e2e4", Wdl::Win, 9),
            root("d2d4", Wdl::Win, 3),
            root("c2c4", Wdl::Draw, 0),
            root("b2b4", Wdl::CursedWin, 1),
        ];
        let best: Vec<String> = best_root_moves(&moves, true)
            .iter()
            .map(|m| m.to_string())
            .collect();
        assert_eq!(best, ["d2d4"]);
        // Without wins, a cursed win beats a draw under the 50-move rule…
        let best = best_root_moves(&moves[2..], true);
        assert_eq!(best.len(), 1);
        assert_eq!(best[0].to_string(), "b2b4");
        // …and is a plain win without it.
        let best = best_root_moves(&[moves[0], moves[3]], false);
        assert_eq!(best[0].to_string(), "b2b4");
        // Losing: hold out longest.
        let losing = [root("e2e4", Wdl::Loss, 4), root("d2d4", Wdl::Loss, 12)];
        assert_eq!(best_root_moves(&losing, true)[0].to_string(), "d2d4");
    }
}

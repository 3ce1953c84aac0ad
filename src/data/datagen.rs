//! `rookery datagen`: self-play games at a fixed node budget, written in the game format
//! of [`super::format`].
//!
//! Game `k` of a run depends only on the seed and `k`: its start position (standard, or a
//! Chess960 one for the share `--chess960` of the games: [`super::start_position`]), its
//! opening (a few uniformly random plies from the start position, redrawn while a quick search scores it beyond
//! `--max-opening-score`), then both sides search with a fresh table and history
//! (`--nodes` as a soft limit: no new iteration after it; `--hard-nodes`, by default the
//! same budget, as a hard cap that ends the search mid-iteration). Threads take
//! game numbers in turn and the writer puts games in number order, so a seed gives the
//! same bytes with any thread count. A run appends to its output, continuing the game
//! numbers already there; a game that a killed run left half-written is cut off first.
//! `--first-game` starts a file further along a seed's sequence, so a seed's games can be
//! split over chunk files (one per round of `scripts/datagen.sh`) whose concatenation is
//! the one file that a single run would have written.
//!
//! A game ends by the rules (mate, stalemate, threefold repetition, fifty moves,
//! insufficient material) or by adjudication: a win when the score stays beyond
//! ±`--win-score` for `--win-plies` plies, a draw when it stays within ±`--draw-score` for
//! `--draw-plies` plies after ply `--draw-after`, or a draw at `--max-plies`.
//!
//! SIGINT and SIGTERM stop a run cleanly: no new games start, the games in progress are
//! finished and written, and the summary is printed as after `--time-limit`, so a script
//! that records the file afterwards (`scripts/datagen.sh`) still runs.

use std::path::PathBuf;
use std::time::Instant;

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;

use super::format::{self, Game, MATE_SCORE};
use super::game_runner;
pub use super::mcts_selfplay::{DatagenMode, MctsSelfPlayArgs};
use super::start_position::{parse_fraction, StartMix};
use crate::chess::{insufficient_material, legal_moves, sign, Position};
use crate::search::{SearchLimits, SearchOptions, SearchResult, Searcher, Silent, DECISIVE};

#[derive(clap::Args, Debug, Clone)]
pub struct DatagenArgs {
    /// Output file (appended to).
    #[arg(long)]
    pub out: PathBuf,
    /// Games played at the same time, one search thread each.
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
    /// Soft node budget per move.
    #[arg(long, default_value_t = 5000)]
    pub nodes: u64,
    /// Hard node cap per move (default: `--nodes`): a search that reaches it stops in the
    /// middle of an iteration and plays the move and score of the last one completed. A
    /// cap at the budget gave ~2.2× the positions per second of the soft budget alone (8×
    /// cap), and a net trained on them was no worse (data/README.md).
    #[arg(long)]
    pub hard_nodes: Option<u64>,
    /// Stop after this many games in the file (counting those already there).
    #[arg(long)]
    pub games: Option<u64>,
    /// Number (0-based) of the file's first game in the seed's sequence: a chunk that
    /// continues the seed after earlier chunks holding this many games.
    #[arg(long, default_value_t = 0)]
    pub first_game: u64,
    /// Stop starting new games after this many seconds.
    #[arg(long)]
    pub time_limit: Option<u64>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Random plies from the start position.
    #[arg(long, default_value_t = 8)]
    pub random_plies: usize,
    /// Share of games (0 to 1) that start from one of the 960 Chess960 positions.
    #[arg(long, default_value_t = 0.0, value_parser = parse_fraction)]
    pub chess960: f64,
    /// Share of the Chess960 games (0 to 1) whose White and Black back ranks are drawn
    /// independently (double Chess960).
    #[arg(long, default_value_t = 0.5, value_parser = parse_fraction)]
    pub double_chess960: f64,
    /// Openings a quick search scores beyond this (cp) are drawn again.
    #[arg(long, default_value_t = 400)]
    pub max_opening_score: i32,
    #[arg(long, default_value_t = 2500)]
    pub win_score: i32,
    #[arg(long, default_value_t = 6)]
    pub win_plies: usize,
    #[arg(long, default_value_t = 10)]
    pub draw_score: i32,
    #[arg(long, default_value_t = 12)]
    pub draw_plies: usize,
    #[arg(long, default_value_t = 80)]
    pub draw_after: usize,
    #[arg(long, default_value_t = 400)]
    pub max_plies: usize,
    /// Table size per thread (MB).
    #[arg(long, default_value_t = 16)]
    pub hash: usize,
    /// Play with this safetensors net instead of the embedded one (a candidate net's
    /// games without a rebuild; `scripts/datagen.sh` records its file name as the net).
    #[arg(long)]
    pub net: Option<PathBuf>,
    /// No progress bar (for logs and tests).
    #[arg(long)]
    pub quiet: bool,
    /// `alphabeta` (`.vf` games) or `mcts` (`.mcv` games with visit counts).
    #[arg(long, value_enum, default_value_t)]
    pub mode: DatagenMode,
    #[command(flatten)]
    pub mcts: MctsSelfPlayArgs,
}

/// Counters of a run.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    pub games: u64,
    pub positions: u64,
    pub white_wins: u64,
    pub draws: u64,
    pub black_wins: u64,
    /// Moves searched in the games (every ply, kept or not) and the nodes those searches
    /// took (with a hard cap above the soft budget, a move costs more than the budget).
    pub moves: u64,
    pub nodes: u64,
}

impl Tally {
    pub fn add(&mut self, game: &Game, nodes: u64) {
        self.games += 1;
        self.moves += game.moves.len() as u64;
        self.nodes += nodes;
        self.positions += format::samples(game).len() as u64;
        match game.wdl {
            2 => self.white_wins += 1,
            0 => self.black_wins += 1,
            _ => self.draws += 1,
        }
    }
}

/// The random generator of game `index`.
pub(crate) fn game_rng(seed: u64, index: u64) -> StdRng {
    StdRng::seed_from_u64(
        seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03),
    )
}

fn search(searcher: &mut Searcher, pos: &Position, args: &DatagenArgs) -> SearchResult {
    searcher.search(pos, &limits(args), &SearchOptions::default(), &Silent)
}

fn limits(args: &DatagenArgs) -> SearchLimits {
    SearchLimits {
        soft_nodes: Some(args.nodes),
        nodes: Some(args.hard_nodes.unwrap_or(args.nodes)),
        ..Default::default()
    }
}

/// A game's opening: its start position (standard or Chess960, `--chess960`), then
/// `--random-plies` uniformly random plies, drawn again while the alpha-beta search
/// (whatever the searcher's mode) scores them beyond `--max-opening-score`. Returns the
/// position with the game record starting there.
pub(crate) fn opening(args: &DatagenArgs, searcher: &mut Searcher, rng: &mut StdRng) -> Position {
    let initial = StartMix {
        chess960: args.chess960,
        double: args.double_chess960,
    }
    .choose(rng)
    .board();
    loop {
        let mut pos = Position::new(initial.clone());
        for _ in 0..args.random_plies {
            match legal_moves(&pos.board).choose(rng) {
                Some(&mv) => pos.play(mv),
                None => break,
            }
        }
        if legal_moves(&pos.board).is_empty() {
            continue;
        }
        searcher.clear();
        let score = searcher
            .search_alphabeta(&pos, &limits(args), &SearchOptions::default(), &Silent)
            .score;
        if score.abs() <= args.max_opening_score {
            return Position::new(pos.board);
        }
    }
}

/// The result (0 Black won, 1 draw, 2 White won) when the rules end the game at `pos`
/// after `plies` plies: mate, stalemate, fifty moves, insufficient material,
/// threefold repetition, or `--max-plies`.
pub(crate) fn rules_result(pos: &Position, plies: usize, max_plies: usize) -> Option<u8> {
    let board = &pos.board;
    if legal_moves(board).is_empty() {
        return Some(if board.checkers().is_empty() {
            1
        } else if board.side_to_move() == cozy_chess::Color::White {
            0
        } else {
            2
        });
    }
    if board.halfmove_clock() >= 100
        || insufficient_material(board)
        || pos.repetitions() >= 2
        || plies >= max_plies
    {
        return Some(1);
    }
    None
}

/// Adjudication on the searches' scores: the win and draw streaks so far.
#[derive(Default)]
pub(crate) struct Adjudication {
    win_streak: i32,
    draw_streak: usize,
}

impl Adjudication {
    /// Counts the score `white` (White's view, cp) of the search behind ply `plies`
    /// (1-based); the result when it ends the game.
    pub(crate) fn after_move(
        &mut self,
        args: &DatagenArgs,
        plies: usize,
        white: i32,
    ) -> Option<u8> {
        self.win_streak = if white >= args.win_score {
            self.win_streak.max(0) + 1
        } else if white <= -args.win_score {
            self.win_streak.min(0) - 1
        } else {
            0
        };
        if self.win_streak.unsigned_abs() as usize >= args.win_plies {
            return Some(if self.win_streak > 0 { 2 } else { 0 });
        }
        self.draw_streak = if plies > args.draw_after && white.abs() <= args.draw_score {
            self.draw_streak + 1
        } else {
            0
        };
        (self.draw_streak >= args.draw_plies).then_some(1)
    }
}

/// Plays game `index` of the run; also returns the nodes its moves' searches took (not
/// counting the opening's check).
pub fn play_game(args: &DatagenArgs, searcher: &mut Searcher, index: u64) -> (Game, u64) {
    let mut rng = game_rng(args.seed, index);
    let mut pos = opening(args, searcher, &mut rng);
    searcher.clear();
    let start = pos.board.clone();
    let mut moves = Vec::new();
    let mut adjudication = Adjudication::default();
    let mut nodes = 0;
    let wdl = loop {
        if let Some(wdl) = rules_result(&pos, moves.len(), args.max_plies) {
            break wdl;
        }
        let board = &pos.board;
        let found = search(searcher, &pos, args);
        nodes += found.nodes;
        let fallback = legal_moves(board)[0];
        let (mv, score) = (found.best_move.unwrap_or(fallback), found.score);
        let white = score * sign(board.side_to_move());
        let stored = if white.abs() >= DECISIVE {
            (MATE_SCORE as i32 + 1000) * white.signum()
        } else {
            white.clamp(-(MATE_SCORE as i32) + 1, MATE_SCORE as i32 - 1)
        };
        moves.push((mv, stored as i16));
        pos.play(mv);
        if let Some(wdl) = adjudication.after_move(args, moves.len(), white) {
            break wdl;
        }
    };
    (Game { start, moves, wdl }, nodes)
}

/// Whether `path` is still the file this run appends to, at the length it has written. A
/// file replaced under a running datagen (`git checkout` or `git stash` of it) would
/// otherwise swallow every later game: they would go to the old, unlinked file.
pub(crate) fn check_output_unchanged(
    path: &std::path::Path,
    file: &std::fs::File,
    written: u64,
) -> Result<(), String> {
    let on_disk = std::fs::metadata(path).map_err(|e| {
        format!(
            "{}: {e} (the output file went away while datagen ran; stopped)",
            path.display()
        )
    })?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let ours = file
            .metadata()
            .map_err(|e| format!("{}: {e}", path.display()))?;
        if (on_disk.dev(), on_disk.ino()) != (ours.dev(), ours.ino()) {
            return Err(format!(
                "{} was replaced by another file while datagen ran (it now holds {} bytes); \
                 stopped, so that no game goes where nothing reads it: run again to append \
                 to the file as it is now",
                path.display(),
                on_disk.len()
            ));
        }
    }
    #[cfg(not(unix))]
    let _ = file;
    if on_disk.len() != written {
        return Err(format!(
            "{} changed size while datagen ran ({} bytes, {written} written); stopped: \
             run again to append to the file as it is now",
            path.display(),
            on_disk.len()
        ));
    }
    Ok(())
}

/// Alpha-beta self-play games, written in the `.vf` format.
struct AlphaBetaGames<'a>(&'a DatagenArgs);

impl game_runner::GameKind for AlphaBetaGames<'_> {
    type Player = Searcher;
    type Game = (Game, u64);

    fn player(&self) -> Option<Searcher> {
        Some(Searcher::new(self.0.hash.max(1), 1))
    }

    fn play(&self, searcher: &mut Searcher, index: u64) -> (Game, u64) {
        play_game(self.0, searcher, index)
    }

    fn write(&self, buf: &mut Vec<u8>, (game, _): &(Game, u64)) -> Result<(), String> {
        format::write_game(buf, game);
        Ok(())
    }

    fn count(&self, tally: &mut Tally, (game, nodes): &(Game, u64)) {
        tally.add(game, *nodes);
    }

    fn progress(&self, tally: &Tally, secs: f64) -> String {
        format!(
            "{} positions ({:.0}/s)  W/D/L {}/{}/{}",
            tally.positions,
            tally.positions as f64 / secs,
            tally.white_wins,
            tally.draws,
            tally.black_wins
        )
    }
}

/// Runs datagen; returns the tally of the games played by this run.
pub fn run(args: &DatagenArgs) -> Result<Tally, String> {
    if args.mode == DatagenMode::Mcts {
        return super::mcts_selfplay::run(args);
    }
    if let Some(net) = &args.net {
        let description = crate::eval::load_eval_file(&net.to_string_lossy())?;
        if !args.quiet {
            eprintln!("net: {description}");
        }
    }
    let path = &args.out;
    // Cut off a game a killed run left half-written, then append.
    let existing = std::fs::read(path).unwrap_or_default();
    let whole = format::whole_games_len(&existing);
    let (games_before, _) = format::read_games(&existing[..whole]);
    let first_index = args.first_game + games_before.len() as u64;
    if whole < existing.len() {
        eprintln!(
            "{}: cutting off {} bytes of an unfinished game at byte {whole}",
            path.display(),
            existing.len() - whole
        );
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(false)
        .open(path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    file.set_len(whole as u64)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let mut file = std::io::BufWriter::new(file);
    use std::io::Seek;
    let written = file
        .seek(std::io::SeekFrom::End(0))
        .map_err(|e| format!("{}: {e}", path.display()))?;

    let started = Instant::now();
    let Some(run) = game_runner::Run::for_args(args, file, written, first_index, started) else {
        return Ok(Tally::default());
    };
    let tally = game_runner::play(&AlphaBetaGames(args), run)?;
    let secs = started.elapsed().as_secs_f64().max(1e-9);
    println!(
        "datagen: {} games, {} positions kept ({:.0} positions/s, {:.2} games/s, {:.0} % of \
         {} moves; {:.0} nodes/move, {:.0} nodes/s) W/D/L {}/{}/{} -> {}",
        tally.games,
        tally.positions,
        tally.positions as f64 / secs,
        tally.games as f64 / secs,
        100.0 * tally.positions as f64 / tally.moves.max(1) as f64,
        tally.moves,
        tally.nodes as f64 / tally.moves.max(1) as f64,
        tally.nodes as f64 / secs,
        tally.white_wins,
        tally.draws,
        tally.black_wins,
        path.display()
    );
    Ok(tally)
}

/// SIGINT/SIGTERM handling: the handler only sets a flag that the game threads read
/// between games (an async-signal-safe store). Installed with `sigaction` rather than
/// inherited dispositions, so a background job that its shell started with SIGINT
/// ignored still stops on Ctrl-C or `kill -INT`.
pub(crate) mod stop_signal {
    use std::sync::atomic::{AtomicBool, Ordering};

    static REQUESTED: AtomicBool = AtomicBool::new(false);

    pub fn requested() -> bool {
        REQUESTED.load(Ordering::Relaxed)
    }

    #[cfg(unix)]
    extern "C" fn on_signal(_: libc::c_int) {
        REQUESTED.store(true, Ordering::Relaxed);
    }

    /// Clears an earlier request (a process may run several datagen runs) and installs
    /// the handler.
    #[cfg(unix)]
    pub fn install() {
        REQUESTED.store(false, Ordering::Relaxed);
        // SAFETY: the handler only stores to an atomic, which is async-signal-safe; the
        // sigaction struct is zeroed (empty mask) before the handler is set. SA_RESTART:
        // a write the signal lands in resumes instead of failing with EINTR.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            for signal in [libc::SIGINT, libc::SIGTERM] {
                libc::sigaction(signal, &action, std::ptr::null_mut());
            }
        }
    }

    /// Elsewhere the default handling stays: the process ends at once; a game cut off
    /// mid-write is dropped by the next run (see the module notes).
    #[cfg(not(unix))]
    pub fn install() {
        REQUESTED.store(false, Ordering::Relaxed);
    }
}

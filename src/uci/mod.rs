//! The UCI front end. The main thread reads commands; a `go` hands the `Searcher` to a
//! search thread that prints `bestmove` and hands it back, so `isready`, `stop`,
//! `ponderhit` and `quit` are answered while it thinks.

pub mod command;
pub mod genfens;
pub mod human_line;
mod human_play;
pub mod options;
mod set_option;

use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use cozy_chess::{Board, Move};

use crate::book::{default_book, default_names, Book};
use crate::chess::{move_to_uci, parse_uci_move, Position, STARTPOS_FEN};
use crate::human::levels::{guard_with, HumanLevel, GUARD_DEPTH, HUMAN_MIN_ELO};
use crate::search::strength::{Candidate, Situation, Strength, FULL_STRENGTH_ELO};
use crate::search::{
    score_to_uci, Bound, Reporter, SearchControl, SearchInfo, SearchLimits, SearchMode,
    SearchOptions, SearchResult, Searcher, TablebaseOptions, TimeManager, DECISIVE,
};
use command::{Command, PositionBase};
use options::OptionId;

/// Prints one line to stdout and flushes (GUIs read line by line through pipes).
pub fn send(line: &str) {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

pub fn info_string(text: &str) {
    send(&format!("info string {text}"));
}

/// Set by every reported error, so that a command line of UCI lines (OpenBench's
/// `rookery "genfens …" quit`) can end with a failing exit status.
static ERROR_REPORTED: AtomicBool = AtomicBool::new(false);

fn error(text: &str) {
    ERROR_REPORTED.store(true, Ordering::Relaxed);
    info_string(&format!("error: {text}"));
}

/// Settings from `setoption` that the search and output need.
#[derive(Clone, Debug)]
struct Settings {
    threads: usize,
    move_overhead: u64,
    multipv: usize,
    chess960: bool,
    show_wdl: bool,
    own_book: bool,
    book_depth: usize,
    book_temperature: f64,
    tablebases: TablebaseOptions,
    limit_strength: bool,
    elo: i32,
    skill_level: i32,
    human_timing: bool,
    seed: u64,
    show_human_moves: bool,
    /// Calibration overrides of a human level's model rating, temperature, guard margin and
    /// guard depth
    /// (0: off).
    human_model_rating: u16,
    human_temperature: u16,
    human_guard: u16,
    human_guard_depth: u16,
    search_mode: SearchMode,
}

impl Settings {
    /// The defaults declared in [`options::OPTIONS`].
    fn declared_defaults() -> Self {
        use options::{check_default, spin_default, OptionId as Id};
        Settings {
            threads: spin_default(Id::Threads) as usize,
            move_overhead: spin_default(Id::MoveOverhead) as u64,
            multipv: spin_default(Id::MultiPv) as usize,
            chess960: check_default(Id::Chess960),
            show_wdl: check_default(Id::ShowWdl),
            own_book: check_default(Id::OwnBook),
            book_depth: spin_default(Id::BookDepth) as usize,
            book_temperature: set_option::book_temperature(spin_default(Id::BookTemperature)),
            tablebases: TablebaseOptions {
                probe_depth: spin_default(Id::SyzygyProbeDepth) as i32,
                probe_limit: spin_default(Id::SyzygyProbeLimit) as u32,
                rule50: check_default(Id::Syzygy50MoveRule),
            },
            limit_strength: check_default(Id::LimitStrength),
            elo: spin_default(Id::Elo) as i32,
            skill_level: spin_default(Id::SkillLevel) as i32,
            human_timing: check_default(Id::HumanTiming),
            seed: spin_default(Id::Seed) as u64,
            show_human_moves: check_default(Id::ShowHumanMoves),
            human_model_rating: spin_default(Id::HumanModelRating) as u16,
            human_temperature: spin_default(Id::HumanTemperature) as u16,
            human_guard: spin_default(Id::HumanGuard) as u16,
            human_guard_depth: spin_default(Id::HumanGuardDepth) as u16,
            search_mode: SearchMode::from_name(options::text_default(Id::SearchMode))
                .unwrap_or_default(),
        }
    }

    /// The level in force: `UCI_Elo` under `UCI_LimitStrength`, else `Skill Level`
    /// (0 is the lowest `UCI_Elo`, 20 full strength, evenly between).
    fn level(&self) -> Level {
        let elo = if self.limit_strength {
            self.elo
        } else {
            let skill = self.skill_level.clamp(0, MAX_SKILL_LEVEL);
            HUMAN_MIN_ELO + skill * (FULL_STRENGTH_ELO - HUMAN_MIN_ELO) / MAX_SKILL_LEVEL
        };
        if let Some(mut h) = HumanLevel::from_elo(elo) {
            if self.human_model_rating > 0 {
                h.model_rating = self.human_model_rating;
            }
            if self.human_temperature > 0 {
                h.temperature = self.human_temperature as f32 / 100.0;
            }
            if self.human_guard > 0 {
                let depth = h.guard.map_or(GUARD_DEPTH, |g| g.depth);
                h.guard = guard_with(self.human_guard as f64 / 100.0, depth);
            }
            if let Some(guard) = h.guard.as_mut().filter(|_| self.human_guard_depth > 0) {
                guard.depth = self.human_guard_depth as i32;
            }
            Level::Human(h)
        } else if let Some(s) = Strength::from_elo(elo) {
            Level::Limited(s)
        } else {
            Level::Full
        }
    }

    /// The node-limited level in force, if that is the kind.
    fn strength(&self) -> Option<Strength> {
        match self.level() {
            Level::Limited(s) => Some(s),
            _ => None,
        }
    }
}

/// `Skill Level` runs from 0 (the lowest `UCI_Elo`) to this (full strength).
const MAX_SKILL_LEVEL: i32 = 20;

/// How the engine plays: at full strength, at a human level (the human model), or at a
/// node-limited level between the human range and full strength.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Level {
    Full,
    Human(HumanLevel),
    Limited(Strength),
}

/// Prints `info` lines for the GUI.
struct UciReporter {
    root: Board,
    chess960: bool,
    show_wdl: bool,
    /// The best move of the first iteration (what catches the eye), for the strength limit.
    first_best: std::sync::Mutex<Option<Move>>,
}

/// Formats a line of moves, converting castling per the notation in use.
pub fn format_pv(root: &Board, pv: &[Move], chess960: bool) -> String {
    let mut board = root.clone();
    let mut parts = Vec::with_capacity(pv.len());
    for &mv in pv {
        if !board.is_legal(mv) {
            break;
        }
        parts.push(move_to_uci(&board, mv, chess960));
        board.play_unchecked(mv);
    }
    parts.join(" ")
}

impl Reporter for UciReporter {
    fn iteration(&self, info: &SearchInfo) {
        if info.depth == 1 && info.multipv == 1 && info.bound.is_none() {
            if let Ok(mut first) = self.first_best.lock() {
                *first = info.pv.first().copied();
            }
        }
        let bound = match info.bound {
            Some(Bound::Lower) => " lowerbound",
            Some(Bound::Upper) => " upperbound",
            _ => "",
        };
        let wdl = if self.show_wdl {
            let (w, d, l) = if info.score.abs() >= DECISIVE {
                if info.score > 0 {
                    (1000, 0, 0)
                } else {
                    (0, 0, 1000)
                }
            } else {
                crate::search::wdl::REPORTED
                    .wdl(info.score, crate::search::wdl::material(&self.root))
            };
            format!(" wdl {w} {d} {l}")
        } else {
            String::new()
        };
        let nps = info.nodes * 1000 / info.time_ms.max(1);
        send(&format!(
            "info depth {} seldepth {} multipv {} score {}{bound}{wdl} nodes {} nps {nps} hashfull {} tbhits {} time {} pv {}",
            info.depth,
            info.seldepth,
            info.multipv,
            score_to_uci(info.score),
            info.nodes,
            info.hashfull,
            info.tbhits,
            info.time_ms,
            format_pv(&self.root, info.pv, self.chess960)
        ));
    }
}

struct Engine {
    position: Position,
    settings: Settings,
    /// Held here while idle; owned by the search thread during a search.
    searcher: Option<Searcher>,
    running: Option<JoinHandle<Searcher>>,
    /// The running search only ends on `stop`/`ponderhit` (go infinite / go ponder).
    running_unbounded: bool,
    control: Arc<SearchControl>,
    hash_mb: usize,
    /// A book loaded with `BookFile`; `None` means the embedded default book.
    custom_book: Option<Book>,
    /// The `bestmove` line of a book reply to `go ponder`, held until `ponderhit` or
    /// `stop` (UCI forbids answering a ponder search before either).
    pending_book_reply: Option<String>,
    /// Seeds the strength limit's choices this game (`Seed`, or random per game when 0).
    game_seed: u64,
}

impl Engine {
    fn new() -> Self {
        let settings = Settings::declared_defaults();
        let hash_mb = options::spin_default(OptionId::Hash) as usize;
        let searcher = Searcher::new(hash_mb, settings.threads);
        let control = Arc::clone(&searcher.control);
        Engine {
            position: Position::default(),
            settings,
            custom_book: None,
            pending_book_reply: None,
            searcher: Some(searcher),
            running: None,
            running_unbounded: false,
            control,
            hash_mb,
            game_seed: rand::random(),
        }
    }

    /// The seed of this game's strength-limited choices.
    fn new_game_seed(&mut self) {
        self.game_seed = if self.settings.seed == 0 {
            rand::random()
        } else {
            self.settings.seed
        };
    }

    /// Waits for a running search to end (after telling it to stop) and takes the
    /// searcher back.
    fn finish_search(&mut self, stop: bool) {
        if let Some(line) = self.pending_book_reply.take() {
            send(&line);
        }
        if let Some(handle) = self.running.take() {
            if stop {
                self.control.stop.store(true, Ordering::SeqCst);
                self.control.pondering.store(false, Ordering::SeqCst);
            }
            match handle.join() {
                Ok(searcher) => self.searcher = Some(searcher),
                Err(_) => {
                    error("search thread panicked; starting with a fresh search state");
                    let mut s = self.fresh_searcher();
                    s.control = Arc::clone(&self.control);
                    self.searcher = Some(s);
                }
            }
        }
    }

    /// A new searcher with the current settings (after a lost search thread).
    fn fresh_searcher(&self) -> Searcher {
        let mut s = Searcher::new(self.hash_mb, self.settings.threads);
        if let Err(e) = s.set_mode(self.settings.search_mode) {
            error(&format!("{e}; searching with alpha-beta"));
        }
        s
    }

    fn searcher(&mut self) -> &mut Searcher {
        self.finish_search(true);
        self.searcher
            .as_mut()
            .expect("searcher is home when no search runs")
    }

    /// Handles one command; returns false on `quit`.
    fn handle(&mut self, cmd: Command) -> bool {
        match cmd {
            Command::Nothing => {}
            Command::Uci => {
                send(&format!("id name {}", crate::engine_name()));
                send("id author the Rookery developers");
                for opt in options::OPTIONS {
                    send(&opt.uci_line());
                }
                #[cfg(feature = "tune")]
                for tunable in crate::search::params::TUNABLES {
                    send(&tunable.uci_line());
                }
                send("uciok");
            }
            Command::IsReady => send("readyok"),
            Command::UciNewGame => {
                self.searcher().clear();
                self.position = Position::default();
                self.new_game_seed();
            }
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref()),
            Command::Position { base, moves } => {
                self.finish_search(true);
                let fen = match &base {
                    PositionBase::StartPos => STARTPOS_FEN.to_string(),
                    PositionBase::Fen(f) => f.clone(),
                };
                let moves: Vec<&str> = moves.iter().map(String::as_str).collect();
                match Position::from_fen_and_moves(&fen, &moves) {
                    Ok(pos) => self.position = pos,
                    Err(e) => error(&format!("{e}; keeping the previous position")),
                }
            }
            Command::Go {
                limits,
                searchmoves,
                perft,
            } => self.go(limits, searchmoves, perft),
            Command::Stop => {
                self.finish_search(true);
            }
            Command::PonderHit => match self.pending_book_reply.take() {
                Some(line) => send(&line),
                None => self.control.pondering.store(false, Ordering::SeqCst),
            },
            Command::Quit => {
                self.finish_search(true);
                return false;
            }
            Command::Display => self.display(),
            Command::Eval => {
                let internal = crate::eval::white_cp(&self.position.board);
                let cp = crate::search::wdl::normalized_cp(internal);
                send(&format!(
                    "info string eval {cp} cp (White's view; {internal} internal units)"
                ));
            }
            Command::Genfens(request) => {
                self.finish_search(true);
                match genfens::generate(&request) {
                    Ok(fens) => fens
                        .iter()
                        .for_each(|f| info_string(&format!("genfens {f}"))),
                    Err(e) => error(&e),
                }
            }
            Command::Bench { depth } => {
                self.finish_search(true);
                crate::bench::run(
                    depth.unwrap_or(crate::bench::DEFAULT_DEPTH),
                    crate::bench::HASH_MB,
                    1,
                );
            }
        }
        true
    }

    fn display(&self) {
        let board = &self.position.board;
        let mut text = String::new();
        for rank in cozy_chess::Rank::ALL.iter().rev() {
            text.push_str(" +---+---+---+---+---+---+---+---+\n |");
            for file in cozy_chess::File::ALL {
                let sq = cozy_chess::Square::new(file, *rank);
                let c = match (board.piece_on(sq), board.color_on(sq)) {
                    (Some(p), Some(cozy_chess::Color::White)) => char::from(p).to_ascii_uppercase(),
                    (Some(p), _) => char::from(p),
                    _ => ' ',
                };
                text.push_str(&format!(" {c} |"));
            }
            text.push_str(&format!(" {}\n", char::from(*rank)));
        }
        text.push_str(" +---+---+---+---+---+---+---+---+\n   a   b   c   d   e   f   g   h\n");
        print!("{text}");
        send(&format!("Fen: {board}"));
        send(&format!("Key: {:016X}", board.hash()));
    }

    fn go(&mut self, mut limits: SearchLimits, searchmoves: Vec<String>, perft: Option<u32>) {
        self.finish_search(true);
        let board = self.position.board.clone();
        if let Some(depth) = perft {
            crate::perft::report(&board, depth, true, self.settings.chess960);
            return;
        }
        let human_level = matches!(self.settings.level(), Level::Human(_));
        if self.settings.show_human_moves && !human_level {
            let rating = human_line::rating(self.settings.limit_strength, self.settings.elo);
            if let Some(text) = human_line::line(&board, rating, self.settings.chess960) {
                info_string(&text);
            }
        }
        for text in &searchmoves {
            match parse_uci_move(&board, text) {
                Some(mv) => limits.searchmoves.push(mv),
                None => error(&format!("searchmoves: '{text}' is not legal here; ignored")),
            }
        }
        let unbounded = limits.infinite || limits.ponder;
        if let Some(mv) = self.book_move(&limits) {
            let name = default_names()
                .name_for_game(
                    &self.position.start,
                    &[self.position.moves.as_slice(), &[mv]].concat(),
                )
                .map(|(eco, name)| format!(" ({eco} {name})"))
                .unwrap_or_default();
            let text = move_to_uci(&board, mv, self.settings.chess960);
            info_string(&format!("book move {text}{name}"));
            // The book's main reply is the move to ponder on, so a pondering GUI or
            // lichess-bot thinks on the opponent's time from the first move on.
            let mut after = board.clone();
            after.play_unchecked(mv);
            let line = match self.book().probe(&after).first() {
                Some(reply) => format!(
                    "bestmove {text} ponder {}",
                    move_to_uci(&after, reply.mv, self.settings.chess960)
                ),
                None => format!("bestmove {text}"),
            };
            if limits.ponder {
                // Pondering on a book position: nothing to think about; the book move
                // goes out the moment `ponderhit` (or `stop`) arrives.
                self.pending_book_reply = Some(line);
            } else {
                send(&line);
            }
            return;
        }
        let mut searcher = self.searcher.take().expect("searcher is home");
        self.control.stop.store(false, Ordering::SeqCst);
        self.control
            .pondering
            .store(limits.ponder, Ordering::SeqCst);
        let position = self.position.clone();
        let settings = self.settings.clone();
        if let Level::Human(level) = settings.level() {
            let turn = human_play::HumanTurn {
                level,
                position,
                limits,
                move_overhead: settings.move_overhead,
                human_timing: settings.human_timing,
                show_moves: settings.show_human_moves,
                chess960: settings.chess960,
                seed: self.game_seed
                    ^ board.hash().rotate_left(17)
                    ^ self.position.game_ply() as u64,
            };
            let control = Arc::clone(&self.control);
            let spawned = std::thread::Builder::new()
                .name("search".into())
                .stack_size(64 << 20)
                .spawn(move || {
                    let line = human_play::play(&mut searcher, &control, &turn);
                    send(&line);
                    searcher
                });
            self.adopt_search_thread(spawned, unbounded);
            return;
        }
        let strength = settings.strength();
        let mut multipv = settings.multipv;
        if let Some(s) = strength {
            limits.nodes = Some(limits.nodes.map_or(s.nodes(), |n| n.min(s.nodes())));
            multipv = multipv.max(s.candidates());
        }
        let reporter = UciReporter {
            root: board.clone(),
            chess960: settings.chess960,
            show_wdl: settings.show_wdl,
            first_best: std::sync::Mutex::new(None),
        };
        let options = SearchOptions {
            multipv,
            move_overhead: settings.move_overhead,
            tablebases: settings.tablebases.clone(),
        };
        let seed = self.game_seed ^ board.hash().rotate_left(17) ^ position.game_ply() as u64;
        let control = Arc::clone(&self.control);
        let handle = std::thread::Builder::new()
            .name("search".into())
            .stack_size(64 << 20)
            .spawn(move || {
                let started = std::time::Instant::now();
                let mut result = searcher.search(&position, &limits, &options, &reporter);
                if let Some(s) = strength {
                    let first_best = reporter.first_best.lock().ok().and_then(|f| *f);
                    let us = position.board.side_to_move();
                    let wait =
                        limited_choice(&s, &mut result, &limits, &settings, us, first_best, seed);
                    // Think like a person: spend the chosen time unless told to stop. After
                    // `ponderhit` the time counts from the hit (the search returned then),
                    // or a pondering engine would answer every expected move at once.
                    let from = if limits.ponder {
                        std::time::Instant::now()
                    } else {
                        started
                    };
                    while let Some(target) = wait {
                        if from.elapsed() >= target || control.stop.load(Ordering::SeqCst) {
                            break;
                        }
                        std::thread::sleep(std::time::Duration::from_millis(2));
                    }
                }
                let line = match result.best_move {
                    None => "bestmove 0000".to_string(),
                    Some(best) => {
                        let mut text =
                            format!("bestmove {}", move_to_uci(&board, best, settings.chess960));
                        if let Some(ponder) = result.ponder_move {
                            let mut after = board.clone();
                            after.play_unchecked(best);
                            if after.is_legal(ponder) {
                                text.push_str(&format!(
                                    " ponder {}",
                                    move_to_uci(&after, ponder, settings.chess960)
                                ));
                            }
                        }
                        text
                    }
                };
                send(&line);
                searcher
            });
        self.adopt_search_thread(handle, unbounded);
    }

    /// Keeps the running search's handle; when the thread could not start, answers
    /// `bestmove 0000` with a fresh searcher.
    fn adopt_search_thread(
        &mut self,
        handle: std::io::Result<JoinHandle<Searcher>>,
        unbounded: bool,
    ) {
        match handle {
            Ok(h) => {
                self.running = Some(h);
                self.running_unbounded = unbounded;
            }
            Err(e) => {
                error(&format!("could not start the search thread: {e}"));
                self.searcher = Some(self.fresh_searcher());
                self.control = Arc::clone(&self.searcher.as_ref().expect("just set").control);
                send("bestmove 0000");
            }
        }
    }
}

/// Replaces the search's best move with a strength-limited choice among its MultiPV
/// lines; returns how long to think in all when `Human Timing` applies.
fn limited_choice(
    strength: &Strength,
    result: &mut SearchResult,
    limits: &SearchLimits,
    settings: &Settings,
    us: cozy_chess::Color,
    first_best: Option<Move>,
    seed: u64,
) -> Option<std::time::Duration> {
    let candidates: Vec<Candidate> = result
        .lines
        .iter()
        .filter_map(|l| {
            Some(Candidate {
                mv: *l.pv.first()?,
                score: l.score,
            })
        })
        .collect();
    let clock_ms = match us {
        cozy_chess::Color::White => limits.wtime,
        cozy_chess::Color::Black => limits.btime,
    };
    let situation = Situation {
        hard: first_best.is_some() && first_best != result.best_move,
        clock_ms,
    };
    if let Some(mv) = strength.choose(&candidates, &situation, seed) {
        if Some(mv) != result.best_move {
            let line = result.lines.iter().find(|l| l.pv.first() == Some(&mv));
            result.ponder_move = line.and_then(|l| l.pv.get(1).copied());
            result.best_move = Some(mv);
        }
    }
    let on_clock = limits.depth.is_none() && limits.mate.is_none();
    if !settings.human_timing || !on_clock {
        return None;
    }
    let budget = TimeManager::clock_budget_ms(limits, us, settings.move_overhead)?;
    let ms = strength.think_time_ms(budget, &situation, seed);
    Some(std::time::Duration::from_millis(ms))
}

impl Engine {
    /// The book in use: one loaded with `BookFile`, else the embedded default.
    fn book(&self) -> &Book {
        self.custom_book.as_ref().unwrap_or_else(|| default_book())
    }

    /// A move from the opening book, when the book applies: `OwnBook` on, within
    /// `BookDepth`, a game-like `go` (clock, movetime or no limit, pondering included —
    /// never infinite, depth, nodes or mate searches, which ask for analysis) and allowed
    /// by `searchmoves`.
    fn book_move(&self, limits: &SearchLimits) -> Option<Move> {
        let analysis = limits.infinite
            || limits.depth.is_some()
            || limits.nodes.is_some()
            || limits.mate.is_some();
        // A Chess960 game uses the book only if it started from the standard position
        // (the book's lines are standard chess, and its castling moves too).
        let chess960_game = self.settings.chess960 && self.position.start != Board::default();
        // A human level plays its openings as people of its rating do (the model learnt
        // them from their games), not from the book.
        let human_level = matches!(self.settings.level(), Level::Human(_));
        if !self.settings.own_book
            || human_level
            || analysis
            || chess960_game
            || self.position.game_ply() >= self.settings.book_depth
        {
            return None;
        }
        let choice = self.book().choose(
            &self.position.board,
            self.settings.book_temperature,
            &mut rand::thread_rng(),
        )?;
        let allowed = limits.searchmoves.is_empty() || limits.searchmoves.contains(&choice.mv);
        allowed.then_some(choice.mv)
    }
}

/// Whether a command line is a list of UCI lines (see [`run_with_commands`]) rather than
/// a subcommand: its first argument starts with a UCI command that is not one of
/// `rookery`'s subcommands (`bench`, `uci` and the others keep their subcommand meaning).
pub fn is_command_list(first_arg: &str) -> bool {
    let first_word = first_arg.split_whitespace().next().unwrap_or("");
    [
        "genfens",
        "setoption",
        "position",
        "go",
        "isready",
        "ucinewgame",
    ]
    .contains(&first_word)
}

/// Runs each argument as one UCI line, as OpenBench calls engines
/// (`rookery "genfens 8 seed 1 book None" quit`), then reads stdin unless one of them
/// was `quit`. False when any line reported an error (the caller exits with status 1).
pub fn run_with_commands(commands: &[String]) -> bool {
    let mut engine = Engine::new();
    for line in commands {
        match line.trim().parse::<Command>() {
            Ok(cmd) => {
                if !engine.handle(cmd) {
                    return !ERROR_REPORTED.load(Ordering::Relaxed);
                }
            }
            Err(e) => error(&e),
        }
    }
    read_stdin(engine);
    !ERROR_REPORTED.load(Ordering::Relaxed)
}

/// Runs the UCI loop on stdin/stdout until `quit` or end of input.
pub fn run() {
    read_stdin(Engine::new());
}

fn read_stdin(mut engine: Engine) {
    let stdin = std::io::stdin();
    let mut bytes = Vec::new();
    loop {
        bytes.clear();
        match stdin.lock().read_until(b'\n', &mut bytes) {
            Ok(0) => break, // end of input: behave like quit
            Ok(_) => {}
            Err(e) => {
                error(&format!("could not read input: {e}"));
                break;
            }
        }
        // Invalid UTF-8 becomes replacement characters, which then fail to parse cleanly.
        let line = String::from_utf8_lossy(&bytes);
        match line.trim().parse::<Command>() {
            Ok(cmd) => {
                if !engine.handle(cmd) {
                    break;
                }
            }
            Err(e) => error(&e),
        }
    }
    // End of input: let a bounded search finish and print its move, stop an unbounded one.
    let unbounded = engine.running_unbounded;
    engine.finish_search(unbounded);
}

//! The search: iterative deepening over a PVS alpha-beta (`alphabeta`), run by one or
//! more threads sharing a transposition table (Lazy SMP), or — with `SearchMode mcts` —
//! a Monte-Carlo tree search (`mcts`) on a tree the threads share.
//!
//! The search never prints. It reports through the [`Reporter`] trait, so the UCI front
//! end, `bench` and tests all drive the same code.

pub mod alphabeta;
pub mod history;
pub mod mcts;
pub mod movelist;
pub mod movepick;
mod pages;
pub mod params;
pub mod see;
pub mod strength;
pub mod time;
pub mod tt;
pub mod tunable;
pub mod wdl;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use cozy_chess::Move;

use crate::chess::{legal_moves, Position};
pub use alphabeta::RootLine;
use alphabeta::SearchThread;
use history::History;
pub use time::{SearchLimits, TimeManager};
pub use tt::{Bound, TranspositionTable};

pub const MAX_PLY: usize = 128;
pub const MATE: i32 = 32_000;
/// Scores at or beyond this magnitude are mates (in at most MAX_PLY plies).
pub const MATE_BOUND: i32 = MATE - 2 * MAX_PLY as i32;
/// A tablebase win at the root; one found `ply` plies down scores `TB_WIN - ply`, below
/// every mate and above every evaluation.
pub const TB_WIN: i32 = MATE_BOUND - 1;
/// Scores at or beyond this magnitude are proven results (a mate or a tablebase win):
/// stored relative to the node in the table, never pruned on as if they were estimates.
pub const DECISIVE: i32 = TB_WIN - MAX_PLY as i32;
pub const INFINITY: i32 = MATE + 1;

/// Flags the UCI thread uses to steer a running search.
#[derive(Default)]
pub struct SearchControl {
    /// Set by `stop`/`quit`; cleared by whoever starts the next search (the UCI loop
    /// clears it before a `go`). The search itself never writes it.
    pub stop: AtomicBool,
    /// True during `go ponder` until `ponderhit`: no time limit applies while set.
    pub pondering: AtomicBool,
}

/// One line of search output, handed to the [`Reporter`] after each iteration.
pub struct SearchInfo<'a> {
    pub depth: i32,
    pub seldepth: usize,
    pub multipv: usize,
    pub score: i32,
    /// `Some` when the score is only a bound (aspiration window failed).
    pub bound: Option<Bound>,
    pub nodes: u64,
    pub time_ms: u64,
    pub hashfull: usize,
    /// Tablebase probes that gave a result (root probe included).
    pub tbhits: u64,
    pub pv: &'a [Move],
}

/// Receives progress from the search. Implementations must be cheap: they run on the
/// main search thread.
pub trait Reporter: Sync {
    fn iteration(&self, info: &SearchInfo);
}

/// A reporter that ignores everything (bench, tests, data generation).
pub struct Silent;
impl Reporter for Silent {
    fn iteration(&self, _: &SearchInfo) {}
}

#[derive(Clone, Debug)]
pub struct SearchOptions {
    pub multipv: usize,
    pub move_overhead: u64,
    pub tablebases: TablebaseOptions,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            multipv: params::DEFAULT_MULTIPV,
            move_overhead: params::DEFAULT_MOVE_OVERHEAD_MS,
            tablebases: TablebaseOptions::default(),
        }
    }
}

/// How the search uses the Syzygy tables loaded with [`crate::tablebase::load`].
#[derive(Clone, Debug)]
pub struct TablebaseOptions {
    /// Positions with as many pieces as the largest table are probed only at this depth
    /// or more (smaller ones always): probes cost a file read when not cached.
    pub probe_depth: i32,
    /// Probe positions with at most this many pieces (and no more than the tables hold).
    pub probe_limit: u32,
    /// Treat wins that the fifty-move rule turns into draws as draws.
    pub rule50: bool,
}

impl Default for TablebaseOptions {
    fn default() -> Self {
        TablebaseOptions {
            probe_depth: params::DEFAULT_SYZYGY_PROBE_DEPTH,
            probe_limit: params::DEFAULT_SYZYGY_PROBE_LIMIT,
            rule50: params::DEFAULT_SYZYGY_50_MOVE_RULE,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct SearchResult {
    pub best_move: Option<Move>,
    pub ponder_move: Option<Move>,
    pub score: i32,
    pub depth: i32,
    pub nodes: u64,
    pub tbhits: u64,
    /// Every MultiPV line of the last completed iteration, best first.
    pub lines: Vec<RootLine>,
}

/// Which search `Searcher::search` runs (the UCI option `SearchMode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SearchMode {
    #[default]
    AlphaBeta,
    Mcts,
}

impl SearchMode {
    /// The option value naming the mode.
    pub fn name(self) -> &'static str {
        match self {
            SearchMode::AlphaBeta => "alphabeta",
            SearchMode::Mcts => "mcts",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        [SearchMode::AlphaBeta, SearchMode::Mcts]
            .into_iter()
            .find(|m| m.name().eq_ignore_ascii_case(name.trim()))
    }
}

/// The table size kept while the tree search holds the memory `Hash` pays for.
const IDLE_TABLE_MB: usize = 1;

/// State that lives across searches: the table and each thread's move-ordering history,
/// or in MCTS mode the tree (`Hash` pays for one of them, never both).
pub struct Searcher {
    pub tt: TranspositionTable,
    histories: Vec<History>,
    pub control: Arc<SearchControl>,
    mode: SearchMode,
    hash_mb: usize,
    mcts: Option<mcts::Mcts>,
    /// The MCTS prior's policy net (`PolicyFile`, by default the embedded one; `None`:
    /// the hand-written prior), kept here so that a tree rebuilt by `Hash` or
    /// `SearchMode` gets it again.
    policy: Option<Arc<crate::policy::PolicyNet>>,
}

impl Searcher {
    pub fn new(hash_mb: usize, threads: usize) -> Self {
        let mut s = Searcher {
            tt: TranspositionTable::new(hash_mb),
            histories: Vec::new(),
            control: Arc::new(SearchControl::default()),
            mode: SearchMode::AlphaBeta,
            hash_mb,
            mcts: None,
            policy: Some(crate::policy::default_policy()),
        };
        s.set_threads(threads);
        s
    }

    pub fn mode(&self) -> SearchMode {
        self.mode
    }

    /// Switches the search; the memory moves from the table to the tree or back. On
    /// allocation failure the mode stays as it was.
    pub fn set_mode(&mut self, mode: SearchMode) -> Result<(), String> {
        if mode == self.mode {
            return Ok(());
        }
        match mode {
            SearchMode::Mcts => {
                self.mcts = Some(self.new_tree_search(self.hash_mb)?);
                self.tt = TranspositionTable::try_new(IDLE_TABLE_MB)?;
            }
            SearchMode::AlphaBeta => {
                self.tt = TranspositionTable::try_new(self.hash_mb)?;
                self.mcts = None;
            }
        }
        self.mode = mode;
        Ok(())
    }

    /// A tree search of `megabytes` with the chosen prior.
    fn new_tree_search(&self, megabytes: usize) -> Result<mcts::Mcts, String> {
        let mut m = mcts::Mcts::try_new(megabytes)?;
        m.set_prior(mcts::net_prior::chosen_prior(self.policy.as_ref()));
        Ok(m)
    }

    /// Chooses the MCTS prior: a policy net, or `None` for the hand-written one. Takes
    /// effect now in MCTS mode (the tree is cleared) and whenever the mode is entered.
    pub fn set_mcts_policy(&mut self, net: Option<Arc<crate::policy::PolicyNet>>) {
        self.policy = net;
        if let Some(m) = &mut self.mcts {
            m.set_prior(mcts::net_prior::chosen_prior(self.policy.as_ref()));
        }
    }

    /// The MCTS prior's policy net, if one is chosen.
    pub fn mcts_policy(&self) -> Option<&Arc<crate::policy::PolicyNet>> {
        self.policy.as_ref()
    }

    /// The tree search's state (MCTS mode only).
    pub fn mcts(&self) -> Option<&mcts::Mcts> {
        self.mcts.as_ref()
    }

    /// The tree search's state, to change its settings (MCTS mode only).
    pub fn mcts_mut(&mut self) -> Option<&mut mcts::Mcts> {
        self.mcts.as_mut()
    }

    pub fn set_threads(&mut self, threads: usize) {
        self.histories.resize_with(threads.max(1), History::default);
    }

    pub fn threads(&self) -> usize {
        self.histories.len()
    }

    /// Replaces the table (the tree in MCTS mode); on allocation failure the old one stays.
    pub fn resize_hash(&mut self, megabytes: usize) -> Result<(), String> {
        match self.mode {
            SearchMode::AlphaBeta => self.tt = TranspositionTable::try_new(megabytes)?,
            SearchMode::Mcts => self.mcts = Some(self.new_tree_search(megabytes)?),
        }
        self.hash_mb = megabytes;
        Ok(())
    }

    /// Forget everything learned (`ucinewgame`, `Clear Hash`, each bench position).
    pub fn clear(&mut self) {
        self.tt.clear();
        for h in &mut self.histories {
            h.clear();
        }
        if let Some(m) = &mut self.mcts {
            m.clear();
        }
    }

    /// Searches `pos` within `limits`. Returns when the limits are reached or
    /// `control.stop` is set; in `infinite`/`ponder` mode it only returns after `stop`
    /// (or `ponderhit` followed by the time limit).
    pub fn search(
        &mut self,
        pos: &Position,
        limits: &SearchLimits,
        options: &SearchOptions,
        reporter: &dyn Reporter,
    ) -> SearchResult {
        if let (SearchMode::Mcts, Some(tree_search)) = (self.mode, &mut self.mcts) {
            let control = Arc::clone(&self.control);
            let leaf = mcts::LeafState {
                tt: &self.tt,
                histories: &mut self.histories,
            };
            return tree_search.search(pos, limits, options, leaf, &control, reporter);
        }
        self.search_alphabeta(pos, limits, options, reporter)
    }

    /// The alpha-beta search whatever the mode (the human model reads its exact
    /// MultiPV scores; in MCTS mode it runs on the small table the mode leaves it).
    pub fn search_alphabeta(
        &mut self,
        pos: &Position,
        limits: &SearchLimits,
        options: &SearchOptions,
        reporter: &dyn Reporter,
    ) -> SearchResult {
        let control = Arc::clone(&self.control);
        let RootSetup {
            moves: root_moves,
            tb: root_tb,
            tb_hits: tbhits,
        } = RootSetup::new(pos, limits, options);
        if root_moves.is_empty() {
            wait_for_release(&control, limits);
            return SearchResult::default();
        }
        self.tt.new_search();
        let time = TimeManager::new(limits, pos.board.side_to_move(), options.move_overhead);
        let node_counters: Vec<AtomicU64> = (0..self.histories.len())
            .map(|_| AtomicU64::new(0))
            .collect();
        let shared = alphabeta::Shared {
            tt: &self.tt,
            control: &control,
            finished: AtomicBool::new(false),
            limits,
            nodes: &node_counters,
            multipv: options.multipv.clamp(1, root_moves.len()),
            root_moves: &root_moves,
            tb: alphabeta::TablebaseLimits::new(&options.tablebases),
            tb_hits: AtomicU64::new(tbhits),
            root_tb,
            policy: self.policy.as_deref(),
        };
        let mut histories = self.histories.iter_mut();
        let main_history = histories.next().expect("at least one thread");
        let lines: Vec<RootLine> = std::thread::scope(|scope| {
            for (id, history) in histories.enumerate() {
                let shared = &shared;
                let time = time.clone();
                std::thread::Builder::new()
                    .stack_size(16 << 20)
                    .spawn_scoped(scope, move || {
                        SearchThread::new(id + 1, shared, history, pos, time)
                            .iterative_deepening(None);
                    })
                    .expect("spawn search thread");
            }
            let mut main = SearchThread::new(0, &shared, main_history, pos, time);
            let lines = main.iterative_deepening(Some(reporter));
            wait_for_release(&control, limits);
            // Stops the helpers; `control` is left as the caller set it, so a searcher can
            // be reused (bench, datagen) without resetting anything.
            shared.finished.store(true, Ordering::SeqCst);
            lines
        });
        let nodes = node_counters
            .iter()
            .map(|n| n.load(Ordering::Relaxed))
            .sum();
        let best = &lines[0];
        let best_move = best
            .pv
            .first()
            .copied()
            .or_else(|| root_moves.first().copied());
        let ponder_move = best
            .pv
            .get(1)
            .copied()
            .or_else(|| self.ponder_from_tt(pos, best_move));
        let (score, depth) = (best.score, best.depth);
        SearchResult {
            best_move,
            ponder_move,
            score,
            depth,
            nodes,
            tbhits: shared.tb_hits.load(Ordering::Relaxed),
            lines,
        }
    }

    /// When the PV ends after the best move (e.g. a TT cutoff), find a reply to ponder on.
    fn ponder_from_tt(&self, pos: &Position, best: Option<Move>) -> Option<Move> {
        let mut board = pos.board.clone();
        board.play_unchecked(best?);
        let mv = self.tt.probe(board.hash(), 0)?.mv?;
        legal_moves(&board).contains(&mv).then_some(mv)
    }
}

/// The root moves a search may play: `searchmoves`, then — at a table root — only the
/// moves that keep the best result (and, when winning, convert fastest).
struct RootSetup {
    moves: Vec<Move>,
    /// The tables' verdict on the root (fifty-move rule applied as the options say).
    tb: Option<crate::tablebase::Wdl>,
    tb_hits: u64,
}

impl RootSetup {
    fn new(pos: &Position, limits: &SearchLimits, options: &SearchOptions) -> Self {
        let mut moves = legal_moves(&pos.board);
        if !limits.searchmoves.is_empty() {
            moves.retain(|m| limits.searchmoves.contains(m));
        }
        let mut setup = RootSetup {
            moves,
            tb: None,
            tb_hits: 0,
        };
        if setup.moves.is_empty() || !tablebase_allowed(&pos.board, &options.tablebases) {
            return setup;
        }
        if let Some((wdl, _, moves)) = crate::tablebase::probe_root(&pos.board) {
            let keep = crate::tablebase::best_root_moves(&moves, options.tablebases.rule50);
            let restricted: Vec<Move> = setup
                .moves
                .iter()
                .copied()
                .filter(|m| keep.contains(m))
                .collect();
            if !restricted.is_empty() {
                setup.moves = restricted;
                setup.tb = Some(if options.tablebases.rule50 {
                    wdl
                } else {
                    wdl.in_game(false)
                });
                setup.tb_hits = moves.len() as u64;
            }
        }
        setup
    }
}

/// Whether tables are loaded that cover `board` within the probe limit.
fn tablebase_allowed(board: &cozy_chess::Board, options: &TablebaseOptions) -> bool {
    let pieces = board.occupied().len();
    pieces <= options.probe_limit && crate::tablebase::covers(board)
}

/// In `go infinite` and `go ponder`, `bestmove` may only be sent after `stop`/`ponderhit`.
fn wait_for_release(control: &SearchControl, limits: &SearchLimits) {
    while !control.stop.load(Ordering::SeqCst)
        && (limits.infinite || control.pondering.load(Ordering::SeqCst))
    {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// UCI score text: `cp N` or `mate N` (moves, negative when being mated). `cp` is the
/// internal score normalised so that 100 means a 50 % chance to win ([`wdl`]). Tablebase
/// wins show as `cp 20000` less the plies to the table position, as Stockfish shows them.
pub fn score_to_uci(score: i32) -> String {
    if score >= MATE_BOUND {
        format!("mate {}", (MATE - score + 1) / 2)
    } else if score <= -MATE_BOUND {
        format!("mate -{}", (MATE + score) / 2)
    } else if score.abs() >= DECISIVE {
        let ply = TB_WIN - score.abs();
        format!("cp {}", score.signum() * (20_000 - ply))
    } else {
        format!("cp {}", wdl::normalized_cp(score))
    }
}

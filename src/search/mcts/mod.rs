//! The second search: Monte-Carlo tree search with PUCT (`SearchMode mcts`).
//!
//! A playout walks down a shared tree ([`tree`]) choosing children by PUCT ([`select`])
//! with priors from [`prior`], judges the node it reaches ([`leaf`]: exact results, the
//! tables, or alpha-beta's quiescence search over the value net, through the WDL model),
//! and backs the result up ([`playout`]). This file runs the playouts on the search
//! threads, decides when to stop, keeps the tree between moves, and reports through the
//! same [`Reporter`] as alpha-beta ([`report`] reads the tree out).
//!
//! One definition of everything reported: `nodes` = playouts (what `go nodes` limits),
//! `depth` = the mean playout length in plies (what `go depth` waits for), `seldepth` =
//! the longest; PV, MultiPV and `bestmove` by visits, a proven mate overriding.

mod leaf;
pub mod net_prior;
pub mod noise;
pub mod params;
mod playout;
pub mod prior;
mod report;
mod select;
pub mod tree;

#[cfg(test)]
mod tests;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::*};
use std::sync::{PoisonError, RwLock};
use std::time::Instant;

use cozy_chess::{Board, Move};

use super::alphabeta::{self, tablebase_score, SearchThread, TablebaseLimits};
use super::history::History;
use super::tt::TranspositionTable;
use super::{
    wait_for_release, wdl, Reporter, RootSetup, SearchControl, SearchInfo, SearchLimits,
    SearchOptions, SearchResult, TimeManager, DECISIVE,
};
use crate::chess::{legal_moves, Position};
use noise::RootNoise;
use params::{
    MCTS_PRIOR_TEMPERATURE, MCTS_ROOT_PRIOR_TEMPERATURE, REPORT_INTERVAL_MS, TIME_CHECK_INTERVAL,
};
use playout::{Shared, Worker};
use prior::{HandWritten, Prior};
use tree::{Expansion, Proof, Tree, ROOT};

/// What the leaf searches borrow from the [`super::Searcher`]: its transposition table
/// and one history per search thread (the number of histories is the number of threads).
pub struct LeafState<'s> {
    pub tt: &'s TranspositionTable,
    pub histories: &'s mut [History],
}

/// Thread `id`'s alpha-beta searcher for the leaves, when leaves are searched.
fn leaf_searcher<'a>(
    depth: i32,
    id: usize,
    shared: &'a alphabeta::Shared<'a>,
    history: &'a mut History,
    pos: &Position,
) -> Option<SearchThread<'a>> {
    (depth >= 0).then(|| {
        let time = TimeManager::new(shared.limits, pos.board.side_to_move(), 0);
        SearchThread::new(id, shared, history, pos, time)
    })
}

/// The tree search's state between searches: the tree, the prior, and which game
/// position the tree's root is (to reuse the subtree after the next moves).
pub struct Mcts {
    tree: Tree,
    prior: Box<dyn Prior>,
    /// The root's game: start position and the moves played from it.
    root_game: Option<(Board, Vec<Move>)>,
    /// Plies of captures resolved at a leaf ([`params::LEAF_QSEARCH_PLIES`]; 0 = none).
    pub capture_plies: usize,
    /// Depth of the alpha-beta search that judges new leaves instead; `None`:
    /// [`params::MCTS_LEAF_DEPTH`] (a UCI option in a tuning build), negative: none.
    pub leaf_depth: Option<i32>,
    /// Dirichlet noise mixed into the root's priors before each search (self-play).
    root_noise: Option<RootNoise>,
    /// How often the last search pruned its full tree to grow on.
    prunes: u32,
}

impl Mcts {
    /// A tree in `megabytes` of memory (`Hash`), with the hand-written prior.
    pub fn try_new(megabytes: usize) -> Result<Self, String> {
        Ok(Mcts {
            tree: Tree::try_new(megabytes)?,
            prior: Box::new(HandWritten),
            root_game: None,
            capture_plies: params::LEAF_QSEARCH_PLIES,
            leaf_depth: None,
            root_noise: None,
            prunes: 0,
        })
    }

    /// Replaces the prior (the policy net's [`net_prior::NetPrior`], or back to the
    /// hand-written one); the tree, built with the old priors, is cleared.
    pub fn set_prior(&mut self, prior: Box<dyn Prior>) {
        self.prior = prior;
        self.clear();
    }

    /// Turns root noise on (self-play) or off (`None`, the default: play and analysis).
    pub fn set_root_noise(&mut self, noise: Option<RootNoise>) {
        self.root_noise = noise;
    }

    /// Forgets the tree (`ucinewgame`, `Clear Hash`).
    pub fn clear(&mut self) {
        self.tree.clear();
        self.root_game = None;
    }

    /// Playouts through the root so far (the reused ones included).
    pub fn root_visits(&self) -> u32 {
        self.tree.node(ROOT).visits()
    }

    /// The root's mean value for its side to move (0 loss ..= 1 win); `None` before
    /// the first playout.
    pub fn root_value(&self) -> Option<f64> {
        self.tree.node(ROOT).q().map(|q| 1.0 - q)
    }

    /// Each root move with its visits, in the order the moves were generated.
    pub fn root_child_visits(&self) -> Vec<(Move, u32)> {
        let root = self.tree.node(ROOT);
        root.child_range()
            .map(|c| (self.tree.node(c).mv(), self.tree.node(c).visits()))
            .collect()
    }

    /// The tree itself, to inspect after a search (examples, diagnostics).
    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    /// Per mille of the tree's memory in use.
    pub fn hashfull(&self) -> usize {
        self.tree.hashfull()
    }

    /// How often the last search pruned its full tree to grow on.
    pub fn prunes(&self) -> u32 {
        self.prunes
    }

    /// Keeps the subtree of `pos` when it continues the game of the last search (or is
    /// the same position), else starts afresh.
    fn reuse_or_clear(&mut self, pos: &Position) {
        let extra = self.root_game.as_ref().and_then(|(start, moves)| {
            (start == &pos.start && pos.moves.starts_with(moves)).then(|| &pos.moves[moves.len()..])
        });
        let new_root = extra.and_then(|extra| {
            extra
                .iter()
                .try_fold(ROOT, |at, &mv| self.tree.child_by_move(at, mv))
        });
        match new_root {
            Some(index) if self.tree.node(index).is_expanded() => self.tree.promote(index),
            _ => self.tree.clear(),
        }
        self.root_game = Some((pos.start.clone(), pos.moves.clone()));
    }

    /// Searches `pos` with one thread per history of `leaf`; the same contract as
    /// [`super::Searcher::search`]. With a leaf depth ≥ 0 each thread judges new
    /// leaves by an alpha-beta search with its history and the shared table.
    pub fn search(
        &mut self,
        pos: &Position,
        limits: &SearchLimits,
        options: &SearchOptions,
        leaf: LeafState,
        control: &SearchControl,
        reporter: &dyn Reporter,
    ) -> SearchResult {
        let setup = RootSetup::new(pos, limits, options);
        if setup.moves.is_empty() {
            wait_for_release(control, limits);
            return SearchResult::default();
        }
        self.reuse_or_clear(pos);
        self.expand_root(pos);
        self.set_root_priors(&pos.board);
        let legal = legal_moves(&pos.board).len();
        let restricted = setup.moves.len() < legal;
        // One legal move: one playout for an `info` line, then answer.
        let max_playouts = if legal == 1 {
            1
        } else {
            limits
                .nodes
                .unwrap_or(u64::MAX)
                .min(limits.soft_nodes.unwrap_or(u64::MAX))
        };
        let shared = Shared {
            tree: &self.tree,
            structure: RwLock::new(()),
            prior: self.prior.as_ref(),
            control,
            finished: AtomicBool::new(false),
            root_moves: restricted.then_some(setup.moves.as_slice()),
            tb: TablebaseLimits::new(&options.tablebases),
            tb_hits: AtomicU64::new(setup.tb_hits),
            capture_plies: self.capture_plies,
            leaf_depth: self.leaf_depth.unwrap_or_else(params::MCTS_LEAF_DEPTH),
            max_playouts,
            playouts: AtomicU64::new(0),
            depth_sum: AtomicU64::new(0),
            seldepth: AtomicU64::new(0),
        };
        // The leaf searches' own stop flag and limits: a leaf search is never cut short.
        let leaf_control = SearchControl::default();
        let no_limits = SearchLimits::default();
        let leaf_nodes: Vec<AtomicU64> = leaf.histories.iter().map(|_| AtomicU64::new(0)).collect();
        let leaf_shared = alphabeta::Shared {
            tt: leaf.tt,
            control: &leaf_control,
            finished: AtomicBool::new(false),
            limits: &no_limits,
            nodes: &leaf_nodes,
            multipv: 1,
            root_moves: &[],
            tb: TablebaseLimits::new(&options.tablebases),
            tb_hits: AtomicU64::new(0),
            root_tb: None,
            policy: None,
        };
        let mut driver = Driver {
            shared: &shared,
            limits,
            time: TimeManager::new(limits, pos.board.side_to_move(), options.move_overhead),
            was_pondering: control.pondering.load(SeqCst),
            material: wdl::material(&pos.board),
            multipv: options.multipv.clamp(1, setup.moves.len()),
            root_tb: setup
                .tb
                .map(|w| tablebase_score(w, 0, options.tablebases.rule50).0),
            reporter,
            leaf_tb_hits: &leaf_shared.tb_hits,
            prunes: 0,
            prune_failed: false,
        };
        let depth = shared.leaf_depth;
        let leaf_search = |id, history| leaf_searcher(depth, id, &leaf_shared, history, pos);
        let (main_history, helper_histories) = leaf
            .histories
            .split_first_mut()
            .expect("a search has at least one thread");
        std::thread::scope(|scope| {
            for (i, history) in helper_histories.iter_mut().enumerate() {
                let shared = &shared;
                let leaf = leaf_search(i + 1, history);
                std::thread::Builder::new()
                    .stack_size(8 << 20)
                    .spawn_scoped(scope, move || Worker::new(shared, pos, leaf).run())
                    .expect("spawn search thread");
            }
            driver.run(&mut Worker::new(&shared, pos, leaf_search(0, main_history)));
            shared.finished.store(true, SeqCst);
        });
        wait_for_release(control, limits);
        self.prunes = driver.prunes;
        driver.result(setup.moves[0])
    }

    /// Gives the root's children their priors as a root: the others' at the root's own
    /// temperature (`MCTS_ROOT_PRIOR_TEMPERATURE`), with root noise when it is on. The
    /// clean priors are asked for again rather than read from the children: a reused
    /// root was expanded as an inner node, and may carry the noise of an earlier search.
    fn set_root_priors(&mut self, board: &Board) {
        let power = MCTS_PRIOR_TEMPERATURE() / MCTS_ROOT_PRIOR_TEMPERATURE().max(1e-3);
        let retemper = (power - 1.0).abs() > 1e-9;
        if !retemper && self.root_noise.is_none() {
            return;
        }
        let range = self.tree.node(ROOT).child_range();
        let moves: Vec<Move> = range.clone().map(|c| self.tree.node(c).mv()).collect();
        let mut priors = Vec::new();
        self.prior.priors(board, &moves, &mut priors);
        if retemper {
            retemper_in_place(&mut priors, power as f32);
        }
        if let Some(noise) = &mut self.root_noise {
            noise.apply(&mut priors);
        }
        for (c, p) in range.zip(priors) {
            self.tree.node(c).set_prior(p);
        }
    }

    /// Gives the root its children if it has none yet (a fresh tree).
    fn expand_root(&mut self, pos: &Position) {
        let board = &pos.board;
        if self.tree.node(ROOT).is_expanded() {
            return;
        }
        let moves = legal_moves(board);
        let mut priors = Vec::new();
        self.prior.priors(board, &moves, &mut priors);
        if self.tree.expand(ROOT, &moves, &priors) == Expansion::Full {
            self.tree.clear();
            self.tree.expand(ROOT, &moves, &priors);
        }
        let mut hashes = pos.history.clone();
        hashes.push(board.hash());
        if leaf::prove_mates_by_checks(&self.tree, ROOT, board, &moves, &hashes, &mut Vec::new()) {
            playout::prove_upward(&self.tree, &[ROOT]);
        }
    }
}

/// Raises probabilities to `power` and normalises them again: the softmax of the same
/// logits at the temperature divided by `power`.
fn retemper_in_place(priors: &mut [f32], power: f32) {
    let mut sum = 0.0;
    for p in priors.iter_mut() {
        *p = p.max(f32::MIN_POSITIVE).powf(power);
        sum += *p;
    }
    if sum > 0.0 {
        priors.iter_mut().for_each(|p| *p /= sum);
    }
}

/// How far a move on the clock stretches its soft limit: from
/// `MCTS_TM_SCALE_UNSETTLED` when the most-visited root move (the first of `ranked`)
/// has none of the visits to `MCTS_TM_SCALE_SETTLED` when it has them all.
fn settled_scale(tree: &Tree, ranked: &[usize]) -> f64 {
    let total: u64 = ranked.iter().map(|&c| tree.node(c).visits() as u64).sum();
    let share = match ranked.first() {
        Some(&best) if total > 0 => tree.node(best).visits() as f64 / total as f64,
        _ => 0.0,
    };
    let (unsettled, settled) = (
        params::MCTS_TM_SCALE_UNSETTLED(),
        params::MCTS_TM_SCALE_SETTLED(),
    );
    unsettled + (settled - unsettled) * share
}

/// The main thread's side of a search: playouts, stop rules, `info` lines.
struct Driver<'a> {
    shared: &'a Shared<'a>,
    limits: &'a SearchLimits,
    time: TimeManager,
    was_pondering: bool,
    material: i32,
    multipv: usize,
    /// The tables' score for the root, when the root is in them.
    root_tb: Option<i32>,
    reporter: &'a dyn Reporter,
    /// Table-base hits of the leaf searches, counted in their own alpha-beta state.
    leaf_tb_hits: &'a AtomicU64,
    /// Times the full tree was pruned, and whether pruning once failed to make room
    /// (the tree stays full from then on).
    prunes: u32,
    prune_failed: bool,
}

impl Driver<'_> {
    fn run(&mut self, worker: &mut Worker) {
        let start = Instant::now();
        let mut last_report = start;
        let mut reported_depth = 0;
        let mut own_playouts = 0u64;
        while !self.shared.stop_requested() && self.shared.claim_playout() {
            worker.playout();
            own_playouts += 1;
            if !self.shared.tree.has_room() && self.prunes_when_full() {
                self.prune();
            }
            if own_playouts.is_multiple_of(TIME_CHECK_INTERVAL) && self.should_stop() {
                break;
            }
            let depth = self.mean_depth();
            if self.limits.depth.is_some_and(|d| depth >= d) {
                break;
            }
            if depth > reported_depth
                || last_report.elapsed().as_millis() as u64 >= REPORT_INTERVAL_MS
            {
                reported_depth = reported_depth.max(depth);
                last_report = Instant::now();
                self.report();
            }
        }
        self.report();
    }

    /// Whether a full tree is pruned to grow on: when something other than the tree's
    /// size ends the search (`stop`, the clock, a playout budget); a bare `go`, or a `go
    /// depth` or `go mate` that may never be met, ends when the tree is full instead.
    fn prunes_when_full(&self) -> bool {
        let limits = self.limits;
        let bounded = limits.infinite
            || limits.ponder
            || self.time.is_timed()
            || limits.nodes.is_some()
            || limits.soft_nodes.is_some()
            || limits.movetime.is_some();
        bounded && !self.prune_failed
    }

    /// Pauses every playout and keeps the most visited part of the tree
    /// ([`params::PRUNED_TREE_SHARE`] of its memory).
    fn prune(&mut self) {
        let _paused = self
            .shared
            .structure
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        self.prunes += 1;
        self.prune_failed = !self.shared.tree.prune(params::PRUNED_TREE_SHARE);
    }

    /// The mean playout length, rounded (at least 1).
    fn mean_depth(&self) -> i32 {
        let playouts = self.shared.playouts().max(1);
        let sum = self.shared.depth_sum.load(Relaxed);
        ((sum + playouts / 2) / playouts).max(1) as i32
    }

    /// The clock, `ponderhit`, a proven result at the root, a full tree that is not
    /// pruned (unless `go nodes` or `go movetime` asked for a budget: more visits no
    /// longer grow the tree, so a move on the game clock banks the time for the next one,
    /// where the tree is reused; a fixed budget is spent as asked).
    fn should_stop(&mut self) -> bool {
        let pondering = self.shared.control.pondering.load(Relaxed);
        if self.was_pondering && !pondering {
            self.time.ponderhit();
        }
        self.was_pondering = pondering;
        if pondering {
            return false;
        }
        if self.time.hard_expired() {
            return true;
        }
        let tree = self.shared.tree;
        let children = report::ranked_children(tree, ROOT, self.shared.root_moves);
        // `go movetime` is a budget to spend as asked; only the game clock is managed.
        let on_clock = self.limits.movetime.is_none();
        let scale = if on_clock {
            settled_scale(tree, &children)
        } else {
            1.0
        };
        if self.time.soft_expired(scale) {
            return true;
        }
        if on_clock && self.decided(&children, scale) {
            return true;
        }
        if self.limits.infinite {
            return false;
        }
        // A proven mate ends a game move (it may not be the shortest, but it mates), an
        // analysis only when it cannot be shorter or `go mate` asked for no more.
        let mate_found = match children.first().map(|&c| tree.node(c).proof()) {
            Some(Proof::Loss(plies)) => {
                let moves = plies as i32 / 2 + 1;
                plies == 0 || self.time.is_timed() || self.limits.mate.is_some_and(|m| moves <= m)
            }
            _ => false,
        };
        let all_decided = children
            .iter()
            .all(|&c| tree.node(c).proof() != Proof::Unknown);
        let full = !tree.has_room()
            && !self.prunes_when_full()
            && self.limits.nodes.is_none()
            && self.limits.movetime.is_none();
        mate_found || all_decided || full
    }

    /// Whether the runner-up could not catch the best move's visits even if every
    /// playout left until the soft limit (stretched by `scale`) went to it, at this
    /// search's rate so far.
    fn decided(&self, children: &[usize], scale: f64) -> bool {
        if params::MCTS_TM_STOP_DECIDED() == 0 {
            return false;
        }
        let (Some(left), [best, second, ..]) = (self.time.soft_left_secs(scale), children) else {
            return false;
        };
        let elapsed = self.time.elapsed().as_secs_f64();
        if elapsed <= 0.0 {
            return false;
        }
        let rate = self.shared.playouts() as f64 / elapsed;
        let tree = self.shared.tree;
        let lead = tree.node(*best).visits() as f64 - tree.node(*second).visits() as f64;
        lead > rate * left.max(0.0)
    }

    fn lines(&self) -> Vec<super::RootLine> {
        let mut lines = report::root_lines(
            self.shared.tree,
            self.shared.root_moves,
            self.multipv,
            self.material,
            self.mean_depth(),
        );
        if let Some(tb) = self.root_tb {
            for line in &mut lines {
                if line.score.abs() < DECISIVE {
                    line.score = tb;
                }
            }
        }
        lines
    }

    fn report(&self) {
        let seldepth = self.shared.seldepth.load(Relaxed) as usize;
        for (i, line) in self.lines().iter().enumerate() {
            self.reporter.iteration(&SearchInfo {
                depth: line.depth,
                seldepth: seldepth.max(line.depth as usize),
                multipv: i + 1,
                score: line.score,
                bound: None,
                nodes: self.shared.playouts(),
                time_ms: self.time.elapsed_ms(),
                hashfull: self.shared.tree.hashfull(),
                tbhits: self.tb_hits(),
                pv: &line.pv,
            });
        }
    }

    fn tb_hits(&self) -> u64 {
        self.shared.tb_hits.load(Relaxed) + self.leaf_tb_hits.load(Relaxed)
    }

    fn result(&self, fallback: Move) -> SearchResult {
        let lines = self.lines();
        let best = lines.first();
        SearchResult {
            best_move: Some(best.and_then(|l| l.pv.first().copied()).unwrap_or(fallback)),
            ponder_move: best.and_then(|l| l.pv.get(1).copied()),
            score: best.map_or(0, |l| l.score),
            depth: self.mean_depth(),
            nodes: self.shared.playouts(),
            tbhits: self.tb_hits(),
            lines,
        }
    }
}

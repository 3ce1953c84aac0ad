//! One search thread: its state, the state all threads of a search share, and reporting.
//! The search itself is in the submodules: `iterative` (iterative deepening with
//! aspiration windows and MultiPV), `negamax` (principal variation search with pruning,
//! reductions and extensions) and `qsearch` (quiescence search).

mod iterative;
mod leaf;
mod negamax;
mod qsearch;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use cozy_chess::{Board, Move, Piece};

use super::history::{piece_index, ContKey, History};
use super::movelist::{StackList, MAX_MOVES};
use super::movepick::{captured_piece, MovePicker, OrderingContext};
use super::params::*;
use super::see::{piece_value, see_ge};
use super::tt::{Bound, TranspositionTable};
use super::{
    Reporter, SearchControl, SearchInfo, SearchLimits, TablebaseOptions, TimeManager, DECISIVE,
    INFINITY, MATE, MAX_PLY, TB_WIN,
};
use crate::chess::{insufficient_material, is_castle, CheckInfo, Position};
use crate::eval::Evaluator;
use crate::tablebase::{self, Wdl};

fn us_of(board: &Board) -> cozy_chess::Color {
    board.side_to_move()
}

/// A hash of the pawn structure alone (keys the correction history).
fn pawn_key(board: &Board) -> u64 {
    use cozy_chess::Color;
    let mix = |x: u64, k: u64| (x ^ (x >> 29)).wrapping_mul(k).rotate_left(31);
    mix(
        board.colored_pieces(Color::White, Piece::Pawn).0,
        0x9E37_79B9_7F4A_7C15,
    ) ^ mix(
        board.colored_pieces(Color::Black, Piece::Pawn).0,
        0xC2B2_AE3D_27D4_EB4F,
    )
}

/// Read-only state every thread of one search shares.
pub struct Shared<'a> {
    pub tt: &'a TranspositionTable,
    /// The UCI thread's `stop`/`ponderhit` flags (read only: the search never sets them).
    pub control: &'a SearchControl,
    /// Set by the main thread when it has its answer, so the helper threads stop too.
    pub finished: AtomicBool,
    pub limits: &'a SearchLimits,
    /// Nodes searched, one counter per thread (published every few thousand nodes).
    pub nodes: &'a [AtomicU64],
    pub multipv: usize,
    /// Legal root moves allowed by `searchmoves` (and by the tables, at a table root).
    pub root_moves: &'a [Move],
    pub tb: TablebaseLimits,
    /// Tablebase probes that found the position, all threads together.
    pub tb_hits: AtomicU64,
    /// The tables' result for the root (fifty-move rule applied as the options say),
    /// when the root is in them.
    pub root_tb: Option<Wdl>,
    /// The move policy that helps order quiet moves at deep nodes (`PolicyFile`; none
    /// with the hand-written prior).
    pub policy: Option<&'a crate::policy::PolicyNet>,
}

/// When the search probes the tables, fixed for one search.
pub struct TablebaseLimits {
    /// Most pieces probed: the option's limit or the largest table, whichever is less
    /// (0: no probing).
    pub pieces: u32,
    pub probe_depth: i32,
    pub rule50: bool,
}

impl TablebaseLimits {
    pub fn new(options: &TablebaseOptions) -> Self {
        TablebaseLimits {
            pieces: options.probe_limit.min(tablebase::largest()),
            probe_depth: options.probe_depth,
            rule50: options.rule50,
        }
    }
}

/// The score and bound a tablebase result gives a node `ply` plies from the root: wins
/// and losses in the band just short of mate scores (bounds, since a mate may be nearer),
/// draws exact (± 2 for results the fifty-move rule turns into draws, as Stockfish does).
pub fn tablebase_score(wdl: Wdl, ply: usize, rule50: bool) -> (i32, Bound) {
    let draw_band = rule50 as i32;
    let w = wdl.signed();
    if w > draw_band {
        (TB_WIN - ply as i32, Bound::Lower)
    } else if w < -draw_band {
        (-TB_WIN + ply as i32, Bound::Upper)
    } else {
        (2 * w * draw_band, Bound::Exact)
    }
}

impl Shared<'_> {
    /// `stop` from the GUI, or the main thread is done.
    #[inline]
    pub fn stop_requested(&self) -> bool {
        self.control.stop.load(Ordering::Relaxed) || self.finished.load(Ordering::Relaxed)
    }
}

/// The result of one MultiPV line of the last completed iteration.
#[derive(Clone, Debug, Default)]
pub struct RootLine {
    pub score: i32,
    pub depth: i32,
    pub pv: Vec<Move>,
}

#[derive(Clone, Copy, Default)]
struct StackEntry {
    /// The move made at this ply (piece index, destination), for continuation history.
    cont: ContKey,
    excluded: Option<Move>,
    /// Double extensions on the line from the root to this node.
    double_extensions: u8,
}

const NO_EVAL: i32 = -INFINITY;

/// Rows (depths) and columns (moves searched) of the late-move reduction table; larger
/// values use the last row or column.
const LMR_TABLE_SIZE: usize = 64;

pub struct SearchThread<'a> {
    id: usize,
    shared: &'a Shared<'a>,
    history: &'a mut History,
    eval: Evaluator,
    root: Board,
    /// Hashes of the game so far, then of each position on the current search path.
    hashes: Vec<u64>,
    stack: Vec<StackEntry>,
    pv: Vec<[Move; MAX_PLY + 1]>,
    pv_len: Vec<usize>,
    nodes: u64,
    seldepth: usize,
    time: TimeManager,
    was_pondering: bool,
    stopped: bool,
    completed_depth: i32,
    /// Root moves already taken by earlier MultiPV lines of this iteration.
    excluded_root: Vec<Move>,
    lmr: Box<[[i32; LMR_TABLE_SIZE]; LMR_TABLE_SIZE]>,
}

impl<'a> SearchThread<'a> {
    pub fn new(
        id: usize,
        shared: &'a Shared<'a>,
        history: &'a mut History,
        pos: &Position,
        time: TimeManager,
    ) -> Self {
        let mut hashes = pos.history.clone();
        hashes.push(pos.board.hash());
        let mut eval = Evaluator::new();
        eval.reset(&pos.board);
        let mut lmr = Box::new([[0; LMR_TABLE_SIZE]; LMR_TABLE_SIZE]);
        for (d, row) in lmr.iter_mut().enumerate().skip(1) {
            for (m, r) in row.iter_mut().enumerate().skip(1) {
                *r = (LMR_BASE() + (d as f64).ln() * (m as f64).ln() / LMR_DIVISOR()) as i32;
            }
        }
        SearchThread {
            id,
            shared,
            history,
            eval,
            root: pos.board.clone(),
            hashes,
            stack: vec![StackEntry::default(); MAX_PLY + 8],
            pv: vec![
                [Move {
                    from: cozy_chess::Square::A1,
                    to: cozy_chess::Square::A1,
                    promotion: None
                }; MAX_PLY + 1];
                MAX_PLY + 1
            ],
            pv_len: vec![0; MAX_PLY + 1],
            nodes: 0,
            seldepth: 0,
            was_pondering: shared.control.pondering.load(Ordering::Relaxed),
            time,
            stopped: false,
            completed_depth: 0,
            excluded_root: Vec::new(),
            lmr,
        }
    }

    fn is_main(&self) -> bool {
        self.id == 0
    }

    fn total_nodes(&self) -> u64 {
        self.shared
            .nodes
            .iter()
            .map(|n| n.load(Ordering::Relaxed))
            .sum()
    }

    fn pondering(&mut self) -> bool {
        let now = self.shared.control.pondering.load(Ordering::Relaxed);
        if self.was_pondering && !now {
            self.time.ponderhit();
            // Already thought past the soft limit while pondering: move now rather than
            // start spending our own clock on an iteration that may run to the hard limit.
            if self.completed_depth > 0 && self.time.soft_expired(1.0) {
                self.stopped = true;
            }
        }
        self.was_pondering = now;
        now
    }

    #[allow(clippy::too_many_arguments)]
    fn report(
        &self,
        reporter: &dyn Reporter,
        depth: i32,
        pv_index: usize,
        score: i32,
        bound: Option<Bound>,
        pv: &[Move],
    ) {
        let nodes = self.total_nodes() - self.shared.nodes[0].load(Ordering::Relaxed) + self.nodes;
        // At a table root the tables know the result better than any search that found
        // no mate.
        let score = match self.shared.root_tb {
            Some(wdl) if score.abs() < DECISIVE => tablebase_score(wdl, 0, self.shared.tb.rule50).0,
            _ => score,
        };
        reporter.iteration(&SearchInfo {
            depth,
            seldepth: self.seldepth.max(depth as usize),
            multipv: pv_index + 1,
            score,
            bound,
            nodes,
            time_ms: self.time.elapsed_ms(),
            hashfull: self.shared.tt.hashfull(),
            tbhits: self.shared.tb_hits.load(Ordering::Relaxed),
            pv,
        });
    }

    fn publish_nodes(&self) {
        self.shared.nodes[self.id].store(self.nodes, Ordering::Relaxed);
    }

    /// Polled at every node; expensive checks run every 1024 nodes.
    fn should_stop(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if self.completed_depth < 1 {
            return false; // always finish depth 1 so there is a move to play
        }
        if let Some(limit) = self.shared.limits.nodes {
            if self.shared.nodes.len() == 1 && self.nodes >= limit {
                self.stopped = true;
                return true;
            }
        }
        if !self.nodes.is_multiple_of(1024) {
            return false;
        }
        self.publish_nodes();
        // Give the core away now and then (~1.5 ms apart) if another thread waits for
        // it: with as many search threads as cores, the UCI thread answering `isready`
        // or `stop` would otherwise wait for the scheduler's time slice. A no-op when a
        // core is free; one system call per 2,048 nodes costs nothing measurable.
        if self.nodes.is_multiple_of(2048) {
            std::thread::yield_now();
        }
        if self.shared.stop_requested() {
            self.stopped = true;
        } else if self.is_main() {
            if !self.pondering() && self.time.hard_expired() {
                self.stopped = true;
            }
            if self
                .shared
                .limits
                .nodes
                .is_some_and(|n| self.total_nodes() >= n)
            {
                self.stopped = true;
            }
        }
        self.stopped
    }

    /// Draw by fifty-move rule, insufficient material or repetition (one earlier occurrence
    /// of the position suffices inside the search).
    fn is_draw(&self, board: &Board) -> bool {
        // Checkmate takes precedence over the fifty-move rule (FIDE 9.3).
        let fifty = board.halfmove_clock() >= 100
            && (board.checkers().is_empty() || board.generate_moves(|_| true));
        if fifty || insufficient_material(board) {
            return true;
        }
        let n = self.hashes.len();
        let current = self.hashes[n - 1];
        let reach = (board.halfmove_clock() as usize).min(n - 1);
        (4..=reach)
            .step_by(2)
            .any(|back| self.hashes[n - 1 - back] == current)
    }

    /// A table result for this node, when the position is in the tables and the probe is
    /// due: only right after a capture or pawn move (the tables assume a fresh fifty-move
    /// counter), and at the largest table size only at `probe_depth` or more.
    fn probe_tablebase(&self, board: &Board, depth: i32, ply: usize) -> Option<(i32, Bound)> {
        let tb = &self.shared.tb;
        if tb.pieces == 0 || board.halfmove_clock() != 0 {
            return None;
        }
        let pieces = board.occupied().len();
        if pieces > tb.pieces || (pieces == tb.pieces && depth < tb.probe_depth) {
            return None;
        }
        let wdl = tablebase::probe_wdl(board)?;
        self.shared.tb_hits.fetch_add(1, Ordering::Relaxed);
        Some(tablebase_score(wdl, ply, tb.rule50))
    }

    fn push_move(&mut self, before: &Board, mv: Move, after: &Board, ply: usize) {
        let piece = before.piece_on(mv.from).unwrap_or(Piece::Pawn);
        self.shared.tt.prefetch(after.hash());
        self.stack[ply].cont = Some((piece_index(before.side_to_move(), piece), mv.to as usize));
        self.eval.push(before, mv, after);
        self.hashes.push(after.hash());
    }

    fn pop_move(&mut self) {
        self.eval.pop();
        self.hashes.pop();
    }

    fn update_pv(&mut self, ply: usize, mv: Move) {
        let child_len = self.pv_len[ply + 1];
        self.pv[ply][0] = mv;
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        head[ply][1..=child_len].copy_from_slice(&tail[0][..child_len]);
        self.pv_len[ply] = child_len + 1;
    }

    fn conts(&self, ply: usize) -> [ContKey; 2] {
        [
            if ply >= 1 {
                self.stack[ply - 1].cont
            } else {
                None
            },
            if ply >= 2 {
                self.stack[ply - 2].cont
            } else {
                None
            },
        ]
    }
}

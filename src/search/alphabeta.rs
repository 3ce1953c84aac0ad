//! One search thread: iterative deepening with aspiration windows, principal variation
//! search with pruning and reductions, and quiescence search.

use std::sync::atomic::{AtomicU64, Ordering};

use cozy_chess::{Board, Move, Piece};

use super::history::{piece_index, ContKey, History};
use super::movepick::{captured_piece, MovePicker, OrderingContext};
use super::params::*;
use super::see::{piece_value, see_ge};
use super::tt::{Bound, TranspositionTable};
use super::{
    Reporter, SearchControl, SearchInfo, SearchLimits, TimeManager, INFINITY, MATE, MATE_BOUND,
    MAX_PLY,
};
use crate::chess::{insufficient_material, is_castle, CheckInfo, Position};

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
use crate::eval::Evaluator;

/// Read-only state every thread of one search shares.
pub struct Shared<'a> {
    pub tt: &'a TranspositionTable,
    pub control: &'a SearchControl,
    pub limits: &'a SearchLimits,
    /// Nodes searched, one counter per thread (published every few thousand nodes).
    pub nodes: &'a [AtomicU64],
    pub multipv: usize,
    /// Legal root moves allowed by `searchmoves`.
    pub root_moves: &'a [Move],
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
}

const NO_EVAL: i32 = -INFINITY;

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
    lmr: Box<[[i32; 64]; 64]>,
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
        let mut lmr = Box::new([[0; 64]; 64]);
        for (d, row) in lmr.iter_mut().enumerate().skip(1) {
            for (m, r) in row.iter_mut().enumerate().skip(1) {
                *r = (LMR_BASE + (d as f64).ln() * (m as f64).ln() / LMR_DIVISOR) as i32;
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

    /// Deepens until a limit is hit; returns the MultiPV lines of the last full iteration.
    pub fn iterative_deepening(&mut self, reporter: Option<&dyn Reporter>) -> Vec<RootLine> {
        let limits = self.shared.limits;
        let max_depth = limits
            .depth
            .unwrap_or(MAX_PLY as i32 - 1)
            .clamp(1, MAX_PLY as i32 - 1);
        let mut lines: Vec<RootLine> = vec![RootLine::default(); self.shared.multipv];
        let mut last_best: Option<Move> = None;
        let mut stability = 0usize;
        let root = self.root.clone();
        for depth in 1..=max_depth {
            self.excluded_root.clear();
            let mut new_lines = Vec::with_capacity(self.shared.multipv);
            for (pv_index, line) in lines.iter().enumerate() {
                self.seldepth = 0;
                let previous = line.score;
                let mut delta = ASPIRATION_WINDOW;
                let (mut alpha, mut beta) = if depth >= 4 {
                    (
                        (previous - delta).max(-INFINITY),
                        (previous + delta).min(INFINITY),
                    )
                } else {
                    (-INFINITY, INFINITY)
                };
                let score = loop {
                    let score = self.negamax(&root, depth, alpha, beta, 0);
                    if self.stopped {
                        break score;
                    }
                    let bound = if score <= alpha {
                        beta = (alpha + beta) / 2;
                        alpha = (score - delta).max(-INFINITY);
                        Some(Bound::Upper)
                    } else if score >= beta {
                        beta = (score + delta).min(INFINITY);
                        Some(Bound::Lower)
                    } else {
                        None
                    };
                    match bound {
                        None => break score,
                        Some(b) => {
                            if let Some(r) = reporter {
                                if self.time.elapsed_ms() > 1000 {
                                    let pv = &self.pv[0][..self.pv_len[0]];
                                    self.report(r, depth, pv_index, score, Some(b), pv);
                                }
                            }
                            delta += delta / 2;
                        }
                    }
                };
                if self.stopped {
                    break;
                }
                let pv = self.pv[0][..self.pv_len[0]].to_vec();
                if let Some(&first) = pv.first() {
                    self.excluded_root.push(first);
                }
                new_lines.push(RootLine { score, depth, pv });
            }
            if self.stopped {
                break;
            }
            // A later MultiPV line can beat an earlier one (the first search may miss
            // what a narrower one finds): order lines by score before reporting and
            // before the best one becomes `bestmove`.
            new_lines.sort_by_key(|l| std::cmp::Reverse(l.score));
            if let Some(r) = reporter {
                for (i, line) in new_lines.iter().enumerate() {
                    self.report(r, depth, i, line.score, None, &line.pv);
                }
            }
            lines = new_lines;
            self.completed_depth = depth;
            if !self.is_main() {
                continue;
            }
            // Stop conditions, checked between iterations.
            let best = lines[0].pv.first().copied();
            stability = if best == last_best { stability + 1 } else { 0 };
            last_best = best;
            if let Some(mate) = limits.mate {
                if lines[0].score >= MATE - 2 * mate {
                    break;
                }
            }
            if self.shared.control.stop.load(Ordering::Relaxed) {
                break;
            }
            if !self.pondering() {
                const STABILITY_SCALE: [f64; 6] = [2.2, 1.6, 1.3, 1.1, 1.0, 0.85];
                if self.time.soft_expired(STABILITY_SCALE[stability.min(5)]) {
                    break;
                }
                if self.shared.root_moves.len() == 1 && self.time.is_timed() && depth >= 6 {
                    break; // forced move: no need to think
                }
            }
            // total_nodes() already includes this thread's published count.
            self.publish_nodes();
            if limits.nodes.is_some_and(|n| self.total_nodes() >= n) {
                break;
            }
        }
        self.publish_nodes();
        // `stop` is raised by `Searcher::search` once `go infinite` / `go ponder` have
        // been released, never here: that would send `bestmove` before `stop`.
        lines
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
        reporter.iteration(&SearchInfo {
            depth,
            seldepth: self.seldepth.max(depth as usize),
            multipv: pv_index + 1,
            score,
            bound,
            nodes,
            time_ms: self.time.elapsed_ms(),
            hashfull: self.shared.tt.hashfull(),
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
        let control = self.shared.control;
        if control.stop.load(Ordering::Relaxed) {
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

    fn negamax(
        &mut self,
        board: &Board,
        mut depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
    ) -> i32 {
        let pv_node = beta - alpha > 1;
        let root = ply == 0;
        self.pv_len[ply] = 0;
        let in_check = !board.checkers().is_empty();
        if depth <= 0 && !in_check {
            return self.qsearch(board, alpha, beta, ply);
        }
        depth = depth.max(1);
        self.nodes += 1;
        if self.should_stop() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        if !root {
            if self.is_draw(board) {
                return 0;
            }
            if ply >= MAX_PLY - 1 {
                return self.eval.evaluate(board);
            }
            // Mate distance pruning: no line from here beats a mate already found nearer the root.
            alpha = alpha.max(-MATE + ply as i32);
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }
        let excluded = self.stack[ply].excluded;
        let key = board.hash();
        let tt_entry = if excluded.is_none() {
            self.shared.tt.probe(key, ply)
        } else {
            None
        };
        let tt_move = tt_entry.and_then(|e| e.mv);
        if let Some(e) = tt_entry {
            if !pv_node
                && e.depth >= depth
                && match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => e.score >= beta,
                    Bound::Upper => e.score <= alpha,
                }
            {
                return e.score;
            }
        }

        let raw_eval = if in_check {
            NO_EVAL
        } else if let Some(e) = tt_entry {
            e.eval
        } else {
            self.eval.evaluate(board)
        };
        // Correction history: shift the static eval by what searches of positions with
        // this pawn structure found it to be off by.
        let pawn_key = pawn_key(board);
        let static_eval = if in_check {
            NO_EVAL
        } else {
            (raw_eval + self.history.correction(us_of(board), pawn_key))
                .clamp(-MATE_BOUND + 1, MATE_BOUND - 1)
        };
        // A TT score is a better estimate than the static eval when its bound allows.
        let eval = match tt_entry {
            Some(e) if !in_check && e.score.abs() < MATE_BOUND => match e.bound {
                Bound::Exact => e.score,
                Bound::Lower if e.score > static_eval => e.score,
                Bound::Upper if e.score < static_eval => e.score,
                _ => static_eval,
            },
            _ => static_eval,
        };
        self.history.killers[ply + 1] = [None, None];

        let us = board.side_to_move();
        let has_pieces = !(board.colors(us)
            & !(board.pieces(Piece::Pawn) | board.pieces(Piece::King)))
        .is_empty();
        if !pv_node && !in_check && excluded.is_none() {
            // Reverse futility pruning.
            if depth <= RFP_MAX_DEPTH && eval - RFP_MARGIN * depth >= beta && eval < MATE_BOUND {
                return eval;
            }
            // Null-move pruning: if passing still fails high, a real move surely would.
            let after_null = ply == 0 || self.stack[ply - 1].cont.is_some();
            if depth >= NMP_MIN_DEPTH
                && eval >= beta
                && has_pieces
                && after_null
                && static_eval >= beta
            {
                if let Some(child) = board.null_move() {
                    let r = 3 + depth / 3 + ((eval - beta) / 200).min(3);
                    self.shared.tt.prefetch(child.hash());
                    self.stack[ply].cont = None;
                    self.eval.push_null(board, &child);
                    self.hashes.push(child.hash());
                    let score = -self.negamax(&child, depth - r, -beta, -beta + 1, ply + 1);
                    self.pop_move();
                    if self.stopped {
                        return 0;
                    }
                    if score >= beta {
                        return if score >= MATE_BOUND { beta } else { score };
                    }
                }
            }
        }
        // Internal iterative reduction: without a TT move this node is likely less important.
        if depth >= IIR_MIN_DEPTH && tt_move.is_none() && excluded.is_none() {
            depth -= 1;
        }

        let conts = self.conts(ply);
        let mut picker = MovePicker::new(board, tt_move, false);
        if picker.is_empty(&OrderingContext::at(self.history, ply, conts)) {
            return if in_check { -MATE + ply as i32 } else { 0 };
        }
        let original_alpha = alpha;
        let mut best_score = -INFINITY;
        let mut best_move = None;
        let mut moves_searched = 0usize;
        let mut quiets_tried: Vec<Move> = Vec::with_capacity(32);
        let mut captures_tried: Vec<(usize, usize, Piece)> = Vec::with_capacity(16);
        let mut skip_quiets = false;
        let check_info = CheckInfo::new(board);

        while let Some(scored) = picker.next_move(&OrderingContext::at(self.history, ply, conts)) {
            let mv = scored.mv;
            if Some(mv) == excluded {
                continue;
            }
            if root && (!self.shared.root_moves.contains(&mv) || self.excluded_root.contains(&mv)) {
                continue;
            }
            let captured = captured_piece(board, mv);
            let is_quiet = captured.is_none() && mv.promotion.is_none();
            let moving = board.piece_on(mv.from).unwrap_or(Piece::Pawn);
            // Whether the move gives check decides pruning below. Quiet moves (most of
            // them, and most of the pruned ones) are checked without being played; the
            // rest are played now.
            let mut played = None;
            let gives_check = if is_quiet && !is_castle(board, mv) {
                check_info.quiet_gives_check(moving, mv)
            } else {
                let mut child = board.clone();
                child.play_unchecked(mv);
                let check = !child.checkers().is_empty();
                played = Some(child);
                check
            };
            if is_quiet && skip_quiets && !gives_check {
                continue;
            }
            let piece = piece_index(us, moving);
            let hist = if is_quiet {
                self.history.quiet(us, mv)
                    + self.history.cont(conts[0], piece, mv.to as usize)
                    + self.history.cont(conts[1], piece, mv.to as usize)
            } else {
                0
            };

            if !root && best_score > -MATE_BOUND && has_pieces {
                if is_quiet {
                    // Late-move and futility pruning spare quiet checks.
                    let lmp_limit = (LMP_BASE + depth * depth) / 2;
                    if !gives_check
                        && depth <= LMP_MAX_DEPTH
                        && quiets_tried.len() as i32 >= lmp_limit
                    {
                        skip_quiets = true;
                        continue;
                    }
                    if !gives_check
                        && depth <= FP_MAX_DEPTH
                        && !in_check
                        && eval + FP_BASE + FP_PER_DEPTH * depth <= alpha
                    {
                        skip_quiets = true;
                        continue;
                    }
                    if depth <= SEE_MAX_DEPTH && !see_ge(board, mv, SEE_QUIET_MARGIN * depth) {
                        continue;
                    }
                } else if depth <= SEE_MAX_DEPTH
                    && !see_ge(board, mv, SEE_CAPTURE_MARGIN * depth * depth)
                {
                    continue;
                }
            }

            // Singular extension: if every other move fails well below the TT score, the
            // TT move is the only good one here and deserves a deeper look.
            let mut extension = 0;
            if let Some(e) = tt_entry {
                if !root
                    && Some(mv) == tt_move
                    && depth >= SE_MIN_DEPTH
                    && e.depth >= depth - 3
                    && e.bound != Bound::Upper
                    && e.score.abs() < MATE_BOUND
                    && ply < MAX_PLY / 2
                {
                    let s_beta = e.score - 2 * depth;
                    self.stack[ply].excluded = Some(mv);
                    let score = self.negamax(board, (depth - 1) / 2, s_beta - 1, s_beta, ply);
                    self.stack[ply].excluded = None;
                    if self.stopped {
                        return 0;
                    }
                    if score < s_beta {
                        extension = 1;
                    } else if s_beta >= beta {
                        return s_beta; // multi-cut: several moves beat beta
                    }
                }
            }

            if gives_check && extension == 0 {
                extension = 1;
            }
            let new_depth = depth - 1 + extension;
            let child = played.unwrap_or_else(|| {
                let mut child = board.clone();
                child.play_unchecked(mv);
                child
            });
            debug_assert_eq!(gives_check, !child.checkers().is_empty(), "{board} {mv}");
            self.push_move(board, mv, &child, ply);
            moves_searched += 1;

            let score = if moves_searched == 1 {
                -self.negamax(&child, new_depth, -beta, -alpha, ply + 1)
            } else {
                // Late-move reductions for moves ordered late; searched again at full depth
                // if they surprise.
                let mut r = 0;
                if depth >= 3
                    && moves_searched > 1 + pv_node as usize
                    && (is_quiet || MovePicker::is_bad_capture(scored.score))
                {
                    r = self.lmr[depth.min(63) as usize][moves_searched.min(63)];
                    r -= pv_node as i32;
                    r -= gives_check as i32;
                    r -= hist / 8192;
                    r = r.clamp(0, (new_depth - 1).max(0));
                }
                let mut score = -self.negamax(&child, new_depth - r, -alpha - 1, -alpha, ply + 1);
                if score > alpha && r > 0 {
                    score = -self.negamax(&child, new_depth, -alpha - 1, -alpha, ply + 1);
                }
                if score > alpha && score < beta {
                    score = -self.negamax(&child, new_depth, -beta, -alpha, ply + 1);
                }
                score
            };
            self.pop_move();
            if self.stopped {
                return 0;
            }

            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = Some(mv);
                    alpha = score;
                    if pv_node {
                        self.update_pv(ply, mv);
                    }
                    if alpha >= beta {
                        if is_quiet {
                            quiets_tried.push(mv);
                            let piece_of = |m: Move| {
                                piece_index(us, board.piece_on(m.from).unwrap_or(Piece::Pawn))
                            };
                            self.history.update_quiets(
                                us,
                                piece_of,
                                mv,
                                &quiets_tried,
                                conts,
                                depth,
                                ply,
                            );
                        } else if let Some(victim) = captured {
                            captures_tried.push((piece, mv.to as usize, victim));
                        }
                        let best_capture = captured.map(|v| (piece, mv.to as usize, v));
                        if !captures_tried.is_empty() {
                            self.history
                                .update_captures(best_capture, &captures_tried, depth);
                        }
                        break;
                    }
                }
            }
            if is_quiet {
                quiets_tried.push(mv);
            } else if let Some(victim) = captured {
                captures_tried.push((piece, mv.to as usize, victim));
            }
        }

        if moves_searched == 0 {
            // Every move was excluded (singular verification, MultiPV, searchmoves).
            return alpha;
        }
        if excluded.is_none() {
            let bound = if best_score >= beta {
                Bound::Lower
            } else if alpha > original_alpha {
                Bound::Exact
            } else {
                Bound::Upper
            };
            let best_is_quiet = best_move
                .is_none_or(|m| captured_piece(board, m).is_none() && m.promotion.is_none());
            let bound_agrees = match bound {
                Bound::Lower => best_score > static_eval,
                Bound::Upper => best_score < static_eval,
                Bound::Exact => true,
            };
            if !in_check && best_is_quiet && bound_agrees && best_score.abs() < MATE_BOUND {
                self.history
                    .update_correction(us, pawn_key, best_score - static_eval, depth);
            }
            self.shared.tt.store(
                key,
                best_move,
                best_score,
                raw_eval.max(-MATE_BOUND),
                depth,
                bound,
                ply,
            );
        }
        best_score
    }

    fn qsearch(&mut self, board: &Board, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.nodes += 1;
        if self.should_stop() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        if insufficient_material(board) {
            return 0;
        }
        let in_check = !board.checkers().is_empty();
        if ply >= MAX_PLY - 1 {
            return if in_check {
                0
            } else {
                self.eval.evaluate(board)
            };
        }
        let key = board.hash();
        let tt_entry = self.shared.tt.probe(key, ply);
        if let Some(e) = tt_entry {
            let usable = match e.bound {
                Bound::Exact => true,
                Bound::Lower => e.score >= beta,
                Bound::Upper => e.score <= alpha,
            };
            if usable {
                return e.score;
            }
        }
        let mut raw_eval = 0;
        let stand_pat = if in_check {
            -MATE + ply as i32
        } else {
            raw_eval = tt_entry.map_or_else(|| self.eval.evaluate(board), |e| e.eval);
            let e = (raw_eval
                + self
                    .history
                    .correction(board.side_to_move(), pawn_key(board)))
            .clamp(-MATE_BOUND + 1, MATE_BOUND - 1);
            if e >= beta {
                return e;
            }
            alpha = alpha.max(e);
            e
        };
        let mut best_score = stand_pat;
        let mut best_move = None;
        let original_alpha = alpha;
        let mut picker = MovePicker::new(board, tt_entry.and_then(|e| e.mv), true);
        loop {
            let ctx = OrderingContext {
                history: self.history,
                killers: [None, None],
                conts: [None, None],
            };
            let Some(scored) = picker.next_move(&ctx) else {
                break;
            };
            let mv = scored.mv;
            if !in_check {
                if MovePicker::is_bad_capture(scored.score) {
                    break; // everything after a losing capture loses material too
                }
                let gain = captured_piece(board, mv).map_or(0, piece_value)
                    + mv.promotion.map_or(0, |p| piece_value(p) - 100);
                if stand_pat + gain + QS_DELTA <= alpha {
                    continue; // delta pruning: even winning this can't raise alpha
                }
            }
            let mut child = board.clone();
            child.play_unchecked(mv);
            self.shared.tt.prefetch(child.hash());
            self.eval.push(board, mv, &child);
            let score = -self.qsearch(&child, -beta, -alpha, ply + 1);
            self.eval.pop();
            if self.stopped {
                return 0;
            }
            if score > best_score {
                best_score = score;
                if score > alpha {
                    alpha = score;
                    best_move = Some(mv);
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        let bound = if best_score >= beta {
            Bound::Lower
        } else if alpha > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let static_eval = raw_eval;
        self.shared
            .tt
            .store(key, best_move, best_score, static_eval, 0, bound, ply);
        best_score
    }
}

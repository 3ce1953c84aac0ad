//! Iterative deepening: one iteration per depth, each root search inside an aspiration
//! window that widens on a fail, MultiPV lines one after another, and the stop rules
//! (time, nodes, mate found, forced move) checked between iterations.

use super::*;

/// Aspiration fails are reported (as bound lines) only once a search has run this long,
/// so that quick searches print only their final lines.
const BOUND_REPORT_AFTER_MS: u64 = 1000;

impl SearchThread<'_> {
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
                let mut delta = ASPIRATION_WINDOW();
                let (mut alpha, mut beta) = if depth >= ASPIRATION_MIN_DEPTH() {
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
                                if self.time.elapsed_ms() > BOUND_REPORT_AFTER_MS {
                                    let pv = &self.pv[0][..self.pv_len[0]];
                                    self.report(r, depth, pv_index, score, Some(b), pv);
                                }
                            }
                            delta += delta * ASPIRATION_GROWTH_PERCENT() / 100;
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
            if self.shared.stop_requested() {
                break;
            }
            if !self.pondering() {
                if self
                    .time
                    .soft_expired(STABILITY_SCALE[stability.min(STABILITY_SCALE.len() - 1)])
                {
                    break;
                }
                if self.shared.root_moves.len() == 1
                    && self.time.is_timed()
                    && depth >= TM_FORCED_MOVE_DEPTH()
                {
                    break; // forced move: no need to think
                }
            }
            // total_nodes() already includes this thread's published count.
            self.publish_nodes();
            if limits.nodes.is_some_and(|n| self.total_nodes() >= n) {
                break;
            }
            if limits.soft_nodes.is_some_and(|n| self.total_nodes() >= n) {
                break;
            }
        }
        self.publish_nodes();
        // The helpers are stopped by `Searcher::search` once `go infinite` / `go ponder`
        // have been released, never here: that would send `bestmove` before `stop`.
        lines
    }
}

//! Quiescence search: captures (all moves in check) until the position is quiet, with
//! stand-pat, delta pruning and losing captures skipped.

use super::*;

impl SearchThread<'_> {
    pub(super) fn qsearch(&mut self, board: &Board, mut alpha: i32, beta: i32, ply: usize) -> i32 {
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
            if e.bound.cuts_off(e.score, alpha, beta) {
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
            .clamp(-DECISIVE + 1, DECISIVE - 1);
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
                policy: None,
            };
            let Some(scored) = picker.next_move(&ctx) else {
                break;
            };
            let mv = scored.mv;
            if !in_check {
                if MovePicker::is_bad_capture(scored.score) {
                    break; // everything after a losing capture loses material too
                }
                let gain = scored.captured.map_or(0, piece_value)
                    + mv.promotion
                        .map_or(0, |p| piece_value(p) - piece_value(Piece::Pawn));
                if stand_pat + gain + QS_DELTA() <= alpha {
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
        let bound = Bound::of_result(best_score, alpha, original_alpha, beta);
        let static_eval = raw_eval;
        self.shared
            .tt
            .store(key, best_move, best_score, static_eval, 0, bound, ply);
        best_score
    }
}

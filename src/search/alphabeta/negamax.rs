//! The main search node: principal variation search with TT cutoffs, reverse futility and
//! null-move pruning, internal iterative reduction, late-move/futility/SEE pruning,
//! singular and check extensions, late-move reductions, and the history updates.

use super::*;

impl SearchThread<'_> {
    pub(super) fn negamax(
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
            if !pv_node && e.depth >= depth && e.bound.cuts_off(e.score, alpha, beta) {
                return e.score;
            }
        }
        // Tablebases: an exact result ends the node; a bound narrows a PV node's window.
        let mut tb_floor = -INFINITY;
        let mut tb_ceiling = INFINITY;
        if !root && excluded.is_none() {
            if let Some((score, bound)) = self.probe_tablebase(board, depth, ply) {
                if bound.cuts_off(score, alpha, beta) {
                    let eval = if in_check {
                        0
                    } else {
                        self.eval.evaluate(board)
                    };
                    let depth = (depth + TT_TABLEBASE_DEPTH_BONUS).min(MAX_PLY as i32 - 1);
                    self.shared
                        .tt
                        .store(key, None, score, eval, depth, bound, ply);
                    return score;
                }
                if pv_node {
                    if bound == Bound::Lower {
                        tb_floor = score;
                        alpha = alpha.max(score);
                    } else {
                        tb_ceiling = score;
                    }
                }
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
                .clamp(-DECISIVE + 1, DECISIVE - 1)
        };
        // A TT score is a better estimate than the static eval when its bound allows.
        let eval = match tt_entry {
            Some(e)
                if !in_check
                    && e.score.abs() < DECISIVE
                    && e.bound.improves_on(e.score, static_eval) =>
            {
                e.score
            }
            _ => static_eval,
        };
        self.history.killers[ply + 1] = [None, None];

        let us = board.side_to_move();
        let has_pieces = !(board.colors(us)
            & !(board.pieces(Piece::Pawn) | board.pieces(Piece::King)))
        .is_empty();
        if !pv_node && !in_check && excluded.is_none() {
            // Reverse futility pruning.
            if depth <= RFP_MAX_DEPTH() && eval - RFP_MARGIN() * depth >= beta && eval < DECISIVE {
                return eval;
            }
            // Null-move pruning: if passing still fails high, a real move surely would.
            // No two null moves in a row (a null move leaves `cont` empty).
            let last_move_was_real = ply == 0 || self.stack[ply - 1].cont.is_some();
            if depth >= NMP_MIN_DEPTH()
                && eval >= beta
                && has_pieces
                && last_move_was_real
                && static_eval >= beta
            {
                if let Some(child) = board.null_move() {
                    let r = NMP_BASE_REDUCTION()
                        + depth / NMP_DEPTH_DIVISOR()
                        + ((eval - beta) / NMP_EVAL_DIVISOR()).min(NMP_EVAL_MAX_REDUCTION());
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
                        return if score >= DECISIVE { beta } else { score };
                    }
                }
            }
        }
        // Internal iterative reduction: without a TT move this node is likely less important.
        if depth >= IIR_MIN_DEPTH() && tt_move.is_none() && excluded.is_none() {
            depth -= 1;
        }

        let conts = self.conts(ply);
        let mut picker = MovePicker::new(board, tt_move, false);
        if picker.is_empty() {
            return if in_check { -MATE + ply as i32 } else { 0 };
        }
        let original_alpha = alpha;
        let mut best_score = tb_floor;
        let mut best_move = None;
        let mut moves_searched = 0usize;
        let mut quiets_tried: StackList<Move, MAX_MOVES> = StackList::new();
        let mut captures_tried: StackList<(usize, usize, Piece), MAX_MOVES> = StackList::new();
        let mut skip_quiets = false;
        let check_info = CheckInfo::new(board);
        let policy = self
            .shared
            .policy
            .filter(|_| depth >= POLICY_ORDER_MIN_DEPTH());

        while let Some(scored) =
            picker.next_move(&OrderingContext::at(self.history, ply, conts, policy))
        {
            let mv = scored.mv;
            if Some(mv) == excluded {
                continue;
            }
            if root && (!self.shared.root_moves.contains(&mv) || self.excluded_root.contains(&mv)) {
                continue;
            }
            let captured = scored.captured;
            let is_quiet = captured.is_none() && mv.promotion.is_none();
            let moving = board.piece_on(mv.from).unwrap_or(Piece::Pawn);
            // Whether the move gives check decides pruning below. Quiet moves (most of
            // them, and most of the pruned ones) are checked without being played; the
            // rest are played now.
            let mut played = None;
            let gives_check = if is_quiet && !is_castle(board, mv) {
                check_info.simple_move_gives_check(moving, mv)
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
                self.history.quiet_score(us, piece, mv, conts)
            } else {
                0
            };

            if !root && best_score > -DECISIVE && has_pieces {
                if is_quiet {
                    // Late-move and futility pruning spare quiet checks.
                    let lmp_limit = (LMP_BASE() + depth * depth) / 2;
                    if !gives_check
                        && depth <= LMP_MAX_DEPTH()
                        && quiets_tried.len() as i32 >= lmp_limit
                    {
                        skip_quiets = true;
                        picker.skip_quiets(&check_info);
                        continue;
                    }
                    if !gives_check
                        && depth <= FP_MAX_DEPTH()
                        && !in_check
                        && eval + FP_BASE() + FP_PER_DEPTH() * depth <= alpha
                    {
                        skip_quiets = true;
                        picker.skip_quiets(&check_info);
                        continue;
                    }
                    if depth <= SEE_MAX_DEPTH() && !see_ge(board, mv, SEE_QUIET_MARGIN() * depth) {
                        continue;
                    }
                } else if depth <= SEE_MAX_DEPTH()
                    && !see_ge(board, mv, SEE_CAPTURE_MARGIN() * depth * depth)
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
                    && depth >= SE_MIN_DEPTH()
                    && e.depth >= depth - SE_TT_DEPTH_MARGIN()
                    && e.bound != Bound::Upper
                    && e.score.abs() < DECISIVE
                    && ply < MAX_PLY / 2
                {
                    let s_beta = e.score - SE_MARGIN_PER_DEPTH() * depth;
                    self.stack[ply].excluded = Some(mv);
                    let score = self.negamax(board, (depth - 1) / 2, s_beta - 1, s_beta, ply);
                    self.stack[ply].excluded = None;
                    if self.stopped {
                        return 0;
                    }
                    if score < s_beta {
                        // Far below: extend twice, a limited number of times per line.
                        let far_below = !pv_node && score < s_beta - SE_DOUBLE_MARGIN();
                        extension = if far_below
                            && self.stack[ply].double_extensions < SE_MAX_DOUBLE_EXTENSIONS()
                        {
                            2
                        } else {
                            1
                        };
                    } else if s_beta >= beta {
                        return s_beta; // multi-cut: several moves beat beta
                    } else if e.score >= beta {
                        // Not singular, and the TT score already beats beta: another move
                        // likely cuts too, so the TT move gets a shallower look.
                        extension = -1;
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
            self.stack[ply + 1].double_extensions =
                self.stack[ply].double_extensions + (extension == 2) as u8;
            self.push_move(board, mv, &child, ply);
            moves_searched += 1;

            let score = if moves_searched == 1 {
                -self.negamax(&child, new_depth, -beta, -alpha, ply + 1)
            } else {
                // Late-move reductions for moves ordered late; searched again at full depth
                // if they surprise.
                let mut r = 0;
                if depth >= LMR_MIN_DEPTH()
                    && moves_searched > LMR_UNREDUCED_MOVES() + pv_node as usize
                    && (is_quiet || MovePicker::is_bad_capture(scored.score))
                {
                    let last = LMR_TABLE_SIZE - 1;
                    r = self.lmr[depth.min(last as i32) as usize][moves_searched.min(last)];
                    r -= pv_node as i32;
                    r -= gives_check as i32;
                    r -= hist / LMR_HISTORY_DIVISOR();
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
        // No line can do better than the tables say (a PV node searched past a loss bound).
        best_score = best_score.min(tb_ceiling);
        if excluded.is_none() {
            let bound = Bound::of_result(best_score, alpha, original_alpha, beta);
            let best_is_quiet = best_move
                .is_none_or(|m| captured_piece(board, m).is_none() && m.promotion.is_none());
            let bound_agrees = bound.improves_on(best_score, static_eval);
            if !in_check && best_is_quiet && bound_agrees && best_score.abs() < DECISIVE {
                self.history
                    .update_correction(us, pawn_key, best_score - static_eval, depth);
            }
            self.shared.tt.store(
                key,
                best_move,
                best_score,
                raw_eval.max(-DECISIVE),
                depth,
                bound,
                ply,
            );
        }
        best_score
    }
}

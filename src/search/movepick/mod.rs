//! Move ordering, in stages, so that a node cut off early pays only for what it used:
//!
//! 1. the TT move, before anything is generated;
//! 2. captures and queen promotions, scored by MVV-LVA + capture history and handed out
//!    best first; each capture's static exchange is checked only when it comes up, and a
//!    losing one is set aside;
//! 3. quiet moves (and under-promotions), generated and scored only once the good
//!    captures are exhausted: killers, the counter move, then by history;
//! 4. the losing captures set aside in stage 2.
//!
//! Quiescence (`noisy_only`, not in check) stops after stage 2 and the losing captures,
//! and generates only its noisy moves (`legal_noisy_moves`). Once the search prunes the
//! quiets, [`MovePicker::skip_quiets`] drops those it would skip.

mod generate;
#[cfg(test)]
mod tests;

use cozy_chess::{Board, Move, Piece, PieceMoves};

use super::history::{ContKey, History};
use super::movelist::{StackList, MAX_MOVES};
use super::see::see_ge;
use crate::chess::CheckInfo;
use crate::policy::PolicyNet;
pub use generate::captured_piece;
use generate::is_noisy;

// Score bands that keep the stages apart (history scores stay far inside them).
const TT_SCORE: i32 = 1 << 30;
const GOOD_CAPTURE: i32 = 1 << 28;
const KILLER_1: i32 = 1 << 27;
const KILLER_2: i32 = KILLER_1 - 1;
const COUNTER: i32 = KILLER_1 - 2;
const BAD_CAPTURE: i32 = -(1 << 28);
const UNDER_PROMOTION: i32 = BAD_CAPTURE - 1000;

/// Quiet moves picked one at a time before the rest are sorted.
const SELECT_QUIETS: usize = 3;

/// Insertion sort by score, highest first, equal scores in their original order: the
/// order repeated first-best selection gives. Lists are short (a few dozen moves).
fn sort_descending_stable(moves: &mut [ScoredMove]) {
    for i in 1..moves.len() {
        let m = moves[i];
        let mut j = i;
        while j > 0 && moves[j - 1].score < m.score {
            moves[j] = moves[j - 1];
            j -= 1;
        }
        moves[j] = m;
    }
}

#[derive(Clone, Copy)]
pub struct ScoredMove {
    pub mv: Move,
    pub score: i32,
    /// What the move captures (a pawn for en passant).
    pub captured: Option<Piece>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    TtMove,
    GenerateNoisy,
    GoodNoisy,
    GenerateQuiets,
    Quiets,
    BadNoisy,
    Done,
}

pub struct MovePicker<'a> {
    board: &'a Board,
    /// False in quiescence when not in check: captures and queen promotions only.
    quiet_too: bool,
    /// The TT move, once checked to be legal here (and noisy in quiescence).
    tt_move: Option<ScoredMove>,
    stage: Stage,
    /// `[0, bad_end)`: losing captures set aside; `[cur, noisy_end)`: noisy moves not yet
    /// handed out; `[noisy_end, len)`: quiet moves once generated (`[cur, len)` not yet handed out).
    moves: StackList<ScoredMove, MAX_MOVES>,
    /// What move generation found (one entry per piece), kept from stage 2 so that
    /// stage 3 expands the quiet moves without generating again.
    piece_moves: StackList<PieceMoves, 32>,
    cur: usize,
    noisy_end: usize,
    /// Quiet moves handed out so far, and whether the rest are sorted (see
    /// [`Self::pop_best_quiet`]).
    quiets_handed: usize,
    quiets_sorted: bool,
    bad_end: usize,
    bad_cur: usize,
}

pub struct OrderingContext<'a> {
    pub history: &'a History,
    pub killers: [Option<Move>; 2],
    pub conts: [ContKey; 2],
    /// The move policy whose logits join the quiet moves' history scores (deep nodes
    /// only: one evaluation costs as much as a few nodes).
    pub policy: Option<&'a PolicyNet>,
}

impl<'h> OrderingContext<'h> {
    /// The ordering context of a main-search node at `ply`.
    pub fn at(
        history: &'h History,
        ply: usize,
        conts: [ContKey; 2],
        policy: Option<&'h PolicyNet>,
    ) -> Self {
        OrderingContext {
            history,
            killers: history.killers[ply],
            conts,
            policy,
        }
    }
}

impl<'a> MovePicker<'a> {
    /// All legal moves (or only noisy ones when `noisy_only`, unless in check). Nothing is
    /// generated yet; the ordering context comes with each `next_move`, so each stage is
    /// scored with the history as it stands when that stage begins.
    pub fn new(board: &'a Board, tt_move: Option<Move>, noisy_only: bool) -> Self {
        let quiet_too = !noisy_only || !board.checkers().is_empty();
        let tt_move = tt_move.filter(|&mv| board.is_legal(mv)).and_then(|mv| {
            let captured = captured_piece(board, mv);
            (quiet_too || is_noisy(captured, mv)).then_some(ScoredMove {
                mv,
                score: TT_SCORE,
                captured,
            })
        });
        MovePicker {
            board,
            quiet_too,
            tt_move,
            stage: Stage::TtMove,
            moves: StackList::new(),
            piece_moves: StackList::new(),
            cur: 0,
            noisy_end: 0,
            quiets_handed: 0,
            quiets_sorted: false,
            bad_end: 0,
            bad_cur: 0,
        }
    }

    /// Takes the best quiet move not handed out yet, the first generated among equal
    /// scores (the order a stable sort would give). Selecting one move at a time rather
    /// than sorting them all up front pays only for the moves a node actually tries: most
    /// nodes that reach the quiets are cut off after one or two of them. A node that gets
    /// past [`SELECT_QUIETS`] usually walks them all (late-move pruning still looks at
    /// every quiet for checks), so the rest are then sorted once: repeated selection
    /// would cost a pass over the list per move.
    fn pop_best_quiet(&mut self) -> Option<ScoredMove> {
        let cur = self.cur;
        if cur >= self.moves.len() {
            return None;
        }
        if !self.quiets_sorted {
            if self.quiets_handed < SELECT_QUIETS {
                let rest = &mut self.moves[cur..];
                let (mut best, mut best_score) = (0, rest[0].score);
                for (i, m) in rest.iter().enumerate().skip(1) {
                    if m.score > best_score {
                        (best, best_score) = (i, m.score);
                    }
                }
                // Rotate rather than swap, so the moves left keep their generation order.
                rest[..=best].rotate_right(1);
            } else {
                sort_descending_stable(&mut self.moves[cur..]);
                self.quiets_sorted = true;
            }
        }
        self.quiets_handed += 1;
        self.cur += 1;
        Some(self.moves[cur])
    }

    /// The best move not handed out yet.
    pub fn next_move(&mut self, ctx: &OrderingContext) -> Option<ScoredMove> {
        loop {
            match self.stage {
                Stage::TtMove => {
                    self.stage = Stage::GenerateNoisy;
                    if self.tt_move.is_some() {
                        return self.tt_move;
                    }
                }
                Stage::GenerateNoisy => {
                    self.generate_noisy(ctx);
                    self.stage = Stage::GoodNoisy;
                }
                Stage::GoodNoisy => {
                    while self.cur < self.noisy_end {
                        let best = (self.cur + 1..self.noisy_end).fold(self.cur, |b, i| {
                            if self.moves[i].score > self.moves[b].score {
                                i
                            } else {
                                b
                            }
                        });
                        self.moves.swap(self.cur, best);
                        let m = self.moves[self.cur];
                        self.cur += 1;
                        if m.captured.is_some() && !see_ge(self.board, m.mv, 0) {
                            // Set aside for stage 4; `bad_end <= cur`, so nothing unread
                            // is overwritten, and they stay in descending order.
                            self.moves[self.bad_end] = m;
                            self.bad_end += 1;
                            continue;
                        }
                        return Some(ScoredMove {
                            score: GOOD_CAPTURE + m.score,
                            ..m
                        });
                    }
                    self.stage = if self.quiet_too {
                        Stage::GenerateQuiets
                    } else {
                        Stage::BadNoisy
                    };
                }
                Stage::GenerateQuiets => {
                    self.generate_quiets(ctx);
                    self.stage = Stage::Quiets;
                }
                Stage::Quiets => {
                    if let Some(m) = self.pop_best_quiet() {
                        return Some(m);
                    }
                    self.stage = Stage::BadNoisy;
                }
                Stage::BadNoisy => {
                    if self.bad_cur < self.bad_end {
                        let m = self.moves[self.bad_cur];
                        self.bad_cur += 1;
                        return Some(ScoredMove {
                            score: BAD_CAPTURE + m.score,
                            ..m
                        });
                    }
                    self.stage = Stage::Done;
                }
                Stage::Done => return None,
            }
        }
    }

    /// Drops the quiet moves not handed out yet that late-move or futility pruning would
    /// skip anyway: all but those that give check, castling and under-promotions (the
    /// search decides those as before). The rest keep the order they would have come in,
    /// so the search is unchanged; it only stops paying a `next_move` call per skipped move.
    pub fn skip_quiets(&mut self, checks: &CheckInfo) {
        if self.stage != Stage::Quiets {
            return;
        }
        let board = self.board;
        if !self.quiets_sorted {
            sort_descending_stable(&mut self.moves[self.cur..]);
            self.quiets_sorted = true;
        }
        let mut kept = self.cur;
        let ours = board.colors(board.side_to_move());
        for i in self.cur..self.moves.len() {
            let m = self.moves[i];
            let piece = board.piece_on(m.mv.from).unwrap_or(Piece::Pawn);
            // Castling is the king taking its own rook (`chess::is_castle`).
            let castle = piece == Piece::King && ours.has(m.mv.to);
            let keep =
                m.mv.promotion.is_some() || castle || checks.simple_move_gives_check(piece, m.mv);
            if keep {
                self.moves[kept] = m;
                kept += 1;
            }
        }
        self.moves.truncate(kept);
    }

    /// Whether the position has no legal move at all (cheap: stops at the first one).
    pub fn is_empty(&self) -> bool {
        self.tt_move.is_none() && !self.board.generate_moves(|pm| !pm.to.is_empty())
    }

    /// True if a move scored as a losing capture or an under-promotion (used by pruning
    /// decisions).
    pub fn is_bad_capture(score: i32) -> bool {
        score < BAD_CAPTURE / 2
    }
}

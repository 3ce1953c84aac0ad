//! Move ordering: generate the legal moves once, score them, and hand them out best first
//! (selection sort, so a cutoff after the first few moves never sorts the rest).
//!
//! Order: TT move, winning/equal captures and queen promotions (MVV-LVA + capture history),
//! killers, counter move, quiets by history, losing captures last.

use cozy_chess::{Board, Move, Piece};

use super::history::{piece_index, ContKey, History};
use super::see::{piece_value, see_ge};

const TT_SCORE: i32 = 1 << 30;
const GOOD_CAPTURE: i32 = 1 << 28;
const KILLER_1: i32 = 1 << 27;
const KILLER_2: i32 = KILLER_1 - 1;
const COUNTER: i32 = KILLER_1 - 2;
const BAD_CAPTURE: i32 = -(1 << 28);

#[derive(Clone, Copy)]
pub struct ScoredMove {
    pub mv: Move,
    pub score: i32,
    pub is_capture: bool,
}

pub struct MovePicker {
    moves: Vec<ScoredMove>,
    next: usize,
}

/// What a move captures, counting en passant as a pawn capture.
pub fn captured_piece(board: &Board, mv: Move) -> Option<Piece> {
    let them = board.colors(!board.side_to_move());
    if them.has(mv.to) {
        return board.piece_on(mv.to);
    }
    if board.piece_on(mv.from) == Some(Piece::Pawn) && mv.from.file() != mv.to.file() {
        return Some(Piece::Pawn);
    }
    None
}

/// Captures and promotions are "noisy": they change material.
pub fn is_noisy(board: &Board, mv: Move) -> bool {
    mv.promotion.is_some() || captured_piece(board, mv).is_some()
}

pub struct OrderingContext<'a> {
    pub history: &'a History,
    pub tt_move: Option<Move>,
    pub killers: [Option<Move>; 2],
    pub conts: [ContKey; 2],
}

impl MovePicker {
    /// All legal moves (or only noisy ones when `noisy_only`, unless in check).
    pub fn new(board: &Board, ctx: &OrderingContext, noisy_only: bool) -> Self {
        let mut moves = Vec::with_capacity(48);
        let us = board.side_to_move();
        let counter = ctx.history.counter(ctx.conts[0]);
        let in_check = !board.checkers().is_empty();
        let quiet_too = !noisy_only || in_check;
        let them = board.colors(!us);
        board.generate_moves(|mut pm| {
            // Quiescence wants captures only: drop a piece's quiet targets before they are
            // expanded (pawns keep theirs for en passant and promotions, filtered below).
            if !quiet_too && pm.piece != Piece::Pawn {
                pm.to &= them;
            }
            let piece = piece_index(us, pm.piece);
            for mv in pm {
                let captured = captured_piece(board, mv);
                let is_capture = captured.is_some();
                if !quiet_too && !is_capture && mv.promotion != Some(Piece::Queen) {
                    continue;
                }
                let score = if Some(mv) == ctx.tt_move {
                    TT_SCORE
                } else if let Some(victim) = captured {
                    let mvv = piece_value(victim) * 16 - piece_value(pm.piece) / 16;
                    let hist = ctx.history.capture(piece, mv.to as usize, victim);
                    let promo = mv.promotion.map_or(0, piece_value);
                    if see_ge(board, mv, 0) {
                        GOOD_CAPTURE + mvv + promo + hist
                    } else {
                        BAD_CAPTURE + mvv + hist
                    }
                } else if mv.promotion == Some(Piece::Queen) {
                    GOOD_CAPTURE + piece_value(Piece::Queen)
                } else if mv.promotion.is_some() {
                    BAD_CAPTURE - 1000 // under-promotions: rarely right
                } else if Some(mv) == ctx.killers[0] {
                    KILLER_1
                } else if Some(mv) == ctx.killers[1] {
                    KILLER_2
                } else if Some(mv) == counter {
                    COUNTER
                } else {
                    ctx.history.quiet(us, mv)
                        + ctx.history.cont(ctx.conts[0], piece, mv.to as usize)
                        + ctx.history.cont(ctx.conts[1], piece, mv.to as usize)
                };
                moves.push(ScoredMove {
                    mv,
                    score,
                    is_capture,
                });
            }
            false
        });
        MovePicker { moves, next: 0 }
    }

    /// The best move not handed out yet.
    pub fn next_move(&mut self) -> Option<ScoredMove> {
        if self.next >= self.moves.len() {
            return None;
        }
        let mut best = self.next;
        for i in self.next + 1..self.moves.len() {
            if self.moves[i].score > self.moves[best].score {
                best = i;
            }
        }
        self.moves.swap(self.next, best);
        self.next += 1;
        Some(self.moves[self.next - 1])
    }

    pub fn len(&self) -> usize {
        self.moves.len()
    }

    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }

    /// True if a move scored as a losing capture (used by pruning decisions).
    pub fn is_bad_capture(score: i32) -> bool {
        score < BAD_CAPTURE / 2
    }
}

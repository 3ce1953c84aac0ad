//! Move ordering: the TT move first, before anything is generated (it cuts off often
//! enough that many nodes never generate moves); then generate the legal moves once,
//! score and sort them, and hand them out best first.
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

pub struct MovePicker<'a> {
    board: &'a Board,
    noisy_only: bool,
    /// The TT move, once checked to be legal here (and noisy in quiescence).
    tt_move: Option<ScoredMove>,
    tt_move_given: bool,
    /// Every other move, scored; `None` until generated.
    moves: Option<Vec<ScoredMove>>,
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

pub struct OrderingContext<'a> {
    pub history: &'a History,
    pub killers: [Option<Move>; 2],
    pub conts: [ContKey; 2],
}

impl<'h> OrderingContext<'h> {
    /// The ordering context of a main-search node at `ply`.
    pub fn at(history: &'h History, ply: usize, conts: [ContKey; 2]) -> Self {
        OrderingContext {
            history,
            killers: history.killers[ply],
            conts,
        }
    }
}

impl<'a> MovePicker<'a> {
    /// All legal moves (or only noisy ones when `noisy_only`, unless in check). Nothing is
    /// generated yet; the ordering context comes with each `next_move`, so the moves are
    /// scored with the history as it stands after the TT move's search.
    pub fn new(board: &'a Board, tt_move: Option<Move>, noisy_only: bool) -> Self {
        let quiet_too = !noisy_only || !board.checkers().is_empty();
        let tt_move = tt_move.filter(|&mv| board.is_legal(mv)).and_then(|mv| {
            let is_capture = captured_piece(board, mv).is_some();
            (quiet_too || is_capture || mv.promotion == Some(Piece::Queen)).then_some(ScoredMove {
                mv,
                score: TT_SCORE,
                is_capture,
            })
        });
        MovePicker {
            board,
            noisy_only,
            tt_move,
            tt_move_given: false,
            moves: None,
            next: 0,
        }
    }

    fn generate(&self, ctx: &OrderingContext) -> Vec<ScoredMove> {
        let board = self.board;
        let mut moves = Vec::with_capacity(48);
        let us = board.side_to_move();
        let counter = ctx.history.counter(ctx.conts[0]);
        let in_check = !board.checkers().is_empty();
        let quiet_too = !self.noisy_only || in_check;
        let them = board.colors(!us);
        let tt_move = self.tt_move.map(|s| s.mv);
        board.generate_moves(|mut pm| {
            // Quiescence wants captures only: drop a piece's quiet targets before they are
            // expanded (pawns keep theirs for en passant and promotions, filtered below).
            if !quiet_too && pm.piece != Piece::Pawn {
                pm.to &= them;
            }
            let piece = piece_index(us, pm.piece);
            for mv in pm {
                if Some(mv) == tt_move {
                    continue; // handed out first
                }
                let captured = captured_piece(board, mv);
                let is_capture = captured.is_some();
                if !quiet_too && !is_capture && mv.promotion != Some(Piece::Queen) {
                    continue;
                }
                let score = if let Some(victim) = captured {
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
        // One sort (stable: equal scores keep generation order). Nodes that get this far
        // usually try many moves, and late-move pruning walks past the rest, which a
        // selection sort would pay for again at every step.
        moves.sort_by(|a, b| b.score.cmp(&a.score));
        moves
    }

    /// The best move not handed out yet.
    pub fn next_move(&mut self, ctx: &OrderingContext) -> Option<ScoredMove> {
        if !self.tt_move_given {
            self.tt_move_given = true;
            if self.tt_move.is_some() {
                return self.tt_move;
            }
        }
        if self.moves.is_none() {
            self.moves = Some(self.generate(ctx));
        }
        let moves = self.moves.as_ref()?;
        let next = moves.get(self.next).copied();
        self.next += 1;
        next
    }

    /// Whether there is no move at all (generates the moves unless the TT move exists).
    pub fn is_empty(&mut self, ctx: &OrderingContext) -> bool {
        if self.tt_move.is_some() {
            return false;
        }
        if self.moves.is_none() {
            self.moves = Some(self.generate(ctx));
        }
        self.moves.as_ref().is_none_or(|m| m.is_empty())
    }

    /// True if a move scored as a losing capture (used by pruning decisions).
    pub fn is_bad_capture(score: i32) -> bool {
        score < BAD_CAPTURE / 2
    }
}

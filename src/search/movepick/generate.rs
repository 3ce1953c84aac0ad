//! Generating and scoring the moves of stages 2 and 3: the noisy moves (in quiescence
//! with a generator of its own that skips the quiet moves) and the quiet moves, each
//! scored for the order the picker hands them out in.

use cozy_chess::{
    get_bishop_moves, get_king_moves, get_knight_moves, get_line_rays, get_pawn_attacks,
    get_pawn_quiets, get_rook_moves, BitBoard, Board, Move, Piece, PieceMoves, Rank, Square,
};

use super::{
    MovePicker, OrderingContext, ScoredMove, COUNTER, KILLER_1, KILLER_2, UNDER_PROMOTION,
};
use crate::search::history::piece_index;
use crate::search::params::{LVA_ATTACKER_DIVISOR, MVV_VICTIM_FACTOR, POLICY_ORDER_SCALE};
use crate::search::see::piece_value;

/// The squares where a pawn promotes (either colour).
const PROMOTION_RANKS: BitBoard = BitBoard(Rank::First.bitboard().0 | Rank::Eighth.bitboard().0);

/// What a move captures, counting en passant as a pawn capture.
#[inline]
pub fn captured_piece(board: &Board, mv: Move) -> Option<Piece> {
    let them = board.colors(!board.side_to_move());
    if them.has(mv.to) {
        return board.piece_on(mv.to);
    }
    if mv.from.file() != mv.to.file() && board.pieces(Piece::Pawn).has(mv.from) {
        return Some(Piece::Pawn);
    }
    None
}

/// Whether the move is handed out with the captures (stage 2) rather than the quiets.
pub(super) fn is_noisy(captured: Option<Piece>, mv: Move) -> bool {
    captured.is_some() || mv.promotion == Some(Piece::Queen)
}

/// The legal captures, en-passant captures and promotions of a position that is not in
/// check, listed as cozy-chess's `generate_moves` would list them (the same pieces in the
/// same order, each piece's targets cut down to those moves), without the cost of the
/// quiet moves: the king's safety is tested only where it could capture, castling not at
/// all. Quiescence's generator; a pawn's pushes to the last rank include under-promotions.
pub(super) fn legal_noisy_moves(board: &Board, mut listener: impl FnMut(PieceMoves)) {
    debug_assert!(board.checkers().is_empty());
    let us = board.side_to_move();
    let them = board.colors(!us);
    let occupied = board.occupied();
    let king = board.king(us);
    let pinned = board.pinned();
    let mut emit = |piece: Piece, from: Square, to: BitBoard| {
        if !to.is_empty() {
            listener(PieceMoves { piece, from, to });
        }
    };
    let pawns = board.colored_pieces(us, Piece::Pawn);
    let pawn_targets = |from: Square| {
        (get_pawn_quiets(from, us, occupied) & PROMOTION_RANKS)
            | (get_pawn_attacks(from, us) & them)
    };
    for from in pawns & !pinned {
        emit(Piece::Pawn, from, pawn_targets(from));
    }
    for from in pawns & pinned {
        emit(
            Piece::Pawn,
            from,
            pawn_targets(from) & get_line_rays(king, from),
        );
    }
    if let Some(file) = board.en_passant() {
        let to = Square::new(file, Rank::Third.relative_to(!us));
        for from in get_pawn_attacks(to, !us) & pawns {
            let mv = Move {
                from,
                to,
                promotion: None,
            };
            if board.is_legal(mv) {
                emit(Piece::Pawn, from, to.bitboard());
            }
        }
    }
    for from in board.colored_pieces(us, Piece::Knight) & !pinned {
        emit(Piece::Knight, from, get_knight_moves(from) & them);
    }
    type Slider = fn(Square, BitBoard) -> BitBoard;
    let queen_moves: Slider = |sq, occ| get_bishop_moves(sq, occ) | get_rook_moves(sq, occ);
    for (piece, moves) in [
        (Piece::Bishop, get_bishop_moves as Slider),
        (Piece::Rook, get_rook_moves as Slider),
        (Piece::Queen, queen_moves),
    ] {
        let pieces = board.colored_pieces(us, piece);
        for from in pieces & !pinned {
            emit(piece, from, moves(from, occupied) & them);
        }
        for from in pieces & pinned {
            emit(
                piece,
                from,
                moves(from, occupied) & them & get_line_rays(king, from),
            );
        }
    }
    let mut king_targets = BitBoard::EMPTY;
    for to in get_king_moves(king) & them {
        let mv = Move {
            from: king,
            to,
            promotion: None,
        };
        if board.is_legal(mv) {
            king_targets |= to.bitboard();
        }
    }
    emit(Piece::King, king, king_targets);
}

impl MovePicker<'_> {
    /// Stage 2's moves, scored without their static exchange (checked when handed out).
    /// Kept out of line, as is [`Self::generate_quiets`]: inlined, they made
    /// `next_move`'s every call pay a large stack frame and copy the ordering context.
    #[inline(never)]
    pub(super) fn generate_noisy(&mut self, ctx: &OrderingContext) {
        let board = self.board;
        let us = board.side_to_move();
        let them = board.colors(!us);
        let keep = self.quiet_too;
        let tt_move = self.tt_move.map(|t| t.mv);
        let (moves, piece_moves) = (&mut self.moves, &mut self.piece_moves);
        let mut on_piece = |pm: PieceMoves| {
            if keep {
                piece_moves.push(pm);
            }
            let from = pm.from;
            let piece = piece_index(us, pm.piece);
            let mut push = |to: Square, promotion: Option<Piece>, captured: Option<Piece>| {
                let mv = Move {
                    from,
                    to,
                    promotion,
                };
                if Some(mv) == tt_move {
                    return;
                }
                let promo = promotion.map_or(0, piece_value);
                let score = match captured {
                    Some(victim) => {
                        piece_value(victim) * MVV_VICTIM_FACTOR()
                            - piece_value(pm.piece) / LVA_ATTACKER_DIVISOR()
                            + promo
                            + ctx.history.capture(piece, to as usize, victim)
                    }
                    None => promo,
                };
                moves.push(ScoredMove {
                    mv,
                    score,
                    captured,
                });
            };
            // Targets in ascending order and promotions as N, B, R, Q: the order cozy-chess
            // iterates a `PieceMoves` in, which breaks ties between equal scores.
            if pm.piece != Piece::Pawn {
                for to in pm.to & them {
                    push(to, None, board.piece_on(to));
                }
                return;
            }
            // Pawns: captures (en passant is the diagonal step to an empty square) and
            // every move to the last rank; plain pushes are quiet.
            let diagonal = !from.file().bitboard();
            for to in pm.to & (diagonal | PROMOTION_RANKS) {
                let captured = if them.has(to) {
                    board.piece_on(to)
                } else if diagonal.has(to) {
                    Some(Piece::Pawn)
                } else {
                    None
                };
                if PROMOTION_RANKS.has(to) {
                    for promotion in [Piece::Knight, Piece::Bishop, Piece::Rook, Piece::Queen] {
                        if captured.is_some() || promotion == Piece::Queen {
                            push(to, Some(promotion), captured);
                        }
                    }
                } else {
                    push(to, None, captured);
                }
            }
        };
        if keep {
            board.generate_moves(|pm| {
                on_piece(pm);
                false
            });
        } else {
            legal_noisy_moves(board, on_piece);
        }
        self.noisy_end = self.moves.len();
    }

    /// Stage 3's moves, scored; handed out best first by `MovePicker::pop_best_quiet`.
    #[inline(never)]
    pub(super) fn generate_quiets(&mut self, ctx: &OrderingContext) {
        let board = self.board;
        let us = board.side_to_move();
        // Empty squares, and our own pieces: castling's rook square.
        let targets = !board.occupied() | board.colors(us);
        let counter = ctx.history.counter(ctx.conts[0]);
        let tt_move = self.tt_move.map(|t| t.mv);
        // The moves not scored by history (or skipped: the TT move). Most pieces have none
        // of them, and only their moves are compared with these.
        let special = [tt_move, ctx.killers[0], ctx.killers[1], counter];
        // The policy's opinion, where the node is deep enough to pay for it: each quiet's
        // logit, scaled, joins its history score.
        let policy = ctx.policy.map(|net| (net, net.prepare(board)));
        let policy_bonus = |mv: Move| {
            policy.as_ref().map_or(0, |(net, prepared)| {
                (net.prepared_logit(prepared, board, mv) * POLICY_ORDER_SCALE() as f32) as i32
            })
        };
        let moves = &mut self.moves;
        for pm in self.piece_moves.iter() {
            let from = pm.from;
            let rows = ctx
                .history
                .quiet_rows(us, from, piece_index(us, pm.piece), ctx.conts);
            let compare = special.iter().flatten().any(|m| m.from == from);
            // In cozy-chess's order (ascending squares; promotions N, B, R), as in
            // `generate_noisy`. A pawn's quiet moves are its pushes (a queen is noisy).
            let pawn = pm.piece == Piece::Pawn;
            let to_squares = if pawn {
                pm.to & from.file().bitboard()
            } else {
                pm.to & targets
            };
            for to in to_squares {
                if pawn && PROMOTION_RANKS.has(to) {
                    for promotion in [Piece::Knight, Piece::Bishop, Piece::Rook] {
                        let mv = Move {
                            from,
                            to,
                            promotion: Some(promotion),
                        };
                        if Some(mv) != tt_move {
                            moves.push(ScoredMove {
                                mv,
                                score: UNDER_PROMOTION, // rarely right
                                captured: None,
                            });
                        }
                    }
                    continue;
                }
                let mv = Move {
                    from,
                    to,
                    promotion: None,
                };
                let score = if !compare {
                    rows.score(to) + policy_bonus(mv)
                } else if Some(mv) == tt_move {
                    continue;
                } else if Some(mv) == ctx.killers[0] {
                    KILLER_1
                } else if Some(mv) == ctx.killers[1] {
                    KILLER_2
                } else if Some(mv) == counter {
                    COUNTER
                } else {
                    rows.score(to) + policy_bonus(mv)
                };
                moves.push(ScoredMove {
                    mv,
                    score,
                    captured: None,
                });
            }
        }
    }
}

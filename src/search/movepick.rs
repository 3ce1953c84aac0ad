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

use cozy_chess::{
    get_bishop_moves, get_king_moves, get_knight_moves, get_line_rays, get_pawn_attacks,
    get_pawn_quiets, get_rook_moves, BitBoard, Board, Move, Piece, PieceMoves, Rank, Square,
};

use super::history::{piece_index, ContKey, History};
use super::movelist::{StackList, MAX_MOVES};
use super::see::{piece_value, see_ge};
use crate::chess::CheckInfo;

const TT_SCORE: i32 = 1 << 30;
const GOOD_CAPTURE: i32 = 1 << 28;
const KILLER_1: i32 = 1 << 27;
const KILLER_2: i32 = KILLER_1 - 1;
const COUNTER: i32 = KILLER_1 - 2;
const BAD_CAPTURE: i32 = -(1 << 28);
const UNDER_PROMOTION: i32 = BAD_CAPTURE - 1000;

/// The squares where a pawn promotes (either colour).
const PROMOTION_RANKS: BitBoard = BitBoard(Rank::First.bitboard().0 | Rank::Eighth.bitboard().0);

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
fn is_noisy(captured: Option<Piece>, mv: Move) -> bool {
    captured.is_some() || mv.promotion == Some(Piece::Queen)
}

/// The legal captures, en-passant captures and promotions of a position that is not in
/// check, listed as cozy-chess's `generate_moves` would list them (the same pieces in the
/// same order, each piece's targets cut down to those moves), without the cost of the
/// quiet moves: the king's safety is tested only where it could capture, castling not at
/// all. Quiescence's generator; a pawn's pushes to the last rank include under-promotions.
fn legal_noisy_moves(board: &Board, mut listener: impl FnMut(PieceMoves)) {
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

    /// Stage 2's moves, scored without their static exchange (checked when handed out).
    /// Kept out of line, as is [`Self::generate_quiets`]: inlined, they made
    /// `next_move`'s every call pay a large stack frame and copy the ordering context.
    #[inline(never)]
    fn generate_noisy(&mut self, ctx: &OrderingContext) {
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
                        piece_value(victim) * 16 - piece_value(pm.piece) / 16
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

    /// Stage 3's moves, scored; handed out best first by [`Self::pop_best_quiet`].
    #[inline(never)]
    fn generate_quiets(&mut self, ctx: &OrderingContext) {
        let board = self.board;
        let us = board.side_to_move();
        // Empty squares, and our own pieces: castling's rook square.
        let targets = !board.occupied() | board.colors(us);
        let counter = ctx.history.counter(ctx.conts[0]);
        let tt_move = self.tt_move.map(|t| t.mv);
        // The moves not scored by history (or skipped: the TT move). Most pieces have none
        // of them, and only their moves are compared with these.
        let special = [tt_move, ctx.killers[0], ctx.killers[1], counter];
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
                    rows.score(to)
                } else if Some(mv) == tt_move {
                    continue;
                } else if Some(mv) == ctx.killers[0] {
                    KILLER_1
                } else if Some(mv) == ctx.killers[1] {
                    KILLER_2
                } else if Some(mv) == counter {
                    COUNTER
                } else {
                    rows.score(to)
                };
                moves.push(ScoredMove {
                    mv,
                    score,
                    captured: None,
                });
            }
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
            let keep = m.mv.promotion.is_some() || castle || checks.quiet_gives_check(piece, m.mv);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::legal_moves as legal;
    use std::collections::HashSet;

    const FENS: &[&str] = &[
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        // Kiwipete: castling both ways, captures of every kind, pins.
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        // Promotions with and without capture, en passant available.
        "r3k3/1P6/8/3pP3/8/8/6p1/4K2R w Kq d6 0 2",
        "4k3/8/8/8/8/8/1p6/R1N1K3 b - - 0 1",
        // In check: evasions only.
        "4k3/8/8/8/8/8/3q4/4K3 w - - 0 1",
    ];

    fn handed_out(board: &Board, tt: Option<Move>, noisy_only: bool) -> Vec<ScoredMove> {
        let history = History::default();
        let ctx = OrderingContext {
            history: &history,
            killers: [None, None],
            conts: [None, None],
        };
        let mut picker = MovePicker::new(board, tt, noisy_only);
        std::iter::from_fn(|| picker.next_move(&ctx)).collect()
    }

    #[test]
    fn every_legal_move_once_tt_move_first() {
        for fen in FENS {
            let board: Board = fen.parse().unwrap();
            let all = legal(&board);
            for tt in [None, all.last().copied()] {
                let out = handed_out(&board, tt, false);
                let got: Vec<Move> = out.iter().map(|s| s.mv).collect();
                let unique: HashSet<Move> = got.iter().copied().collect();
                assert_eq!(got.len(), all.len(), "{fen}: a move twice or missing");
                assert_eq!(unique, all.iter().copied().collect(), "{fen}");
                if let Some(tt) = tt {
                    assert_eq!(got[0], tt, "{fen}: TT move first");
                }
                for s in &out {
                    assert_eq!(s.captured, captured_piece(&board, s.mv), "{fen} {}", s.mv);
                }
                // Stages in order: after the TT move, scores never rise except where a
                // losing capture follows the quiets (it was set aside in stage 2).
                let classes: Vec<u8> = out[tt.is_some() as usize..]
                    .iter()
                    .map(|s| match s.score {
                        x if x >= GOOD_CAPTURE => 0,
                        x if x > BAD_CAPTURE / 2 => 1,
                        x if x >= UNDER_PROMOTION
                            && s.mv.promotion.is_some()
                            && s.captured.is_none() =>
                        {
                            2
                        }
                        _ => 3,
                    })
                    .collect();
                assert!(
                    classes.windows(2).all(|w| w[0] <= w[1]),
                    "{fen}: {classes:?}"
                );
                for s in &out {
                    if s.score >= GOOD_CAPTURE && s.score < TT_SCORE && s.captured.is_some() {
                        assert!(
                            see_ge(&board, s.mv, 0),
                            "{fen}: {} is not a good capture",
                            s.mv
                        );
                    }
                    if MovePicker::is_bad_capture(s.score) && s.captured.is_some() {
                        assert!(!see_ge(&board, s.mv, 0), "{fen}: {} is not losing", s.mv);
                    }
                }
            }
        }
    }

    #[test]
    fn quiescence_gets_noisy_moves_or_every_evasion() {
        for fen in FENS {
            let board: Board = fen.parse().unwrap();
            let got: HashSet<Move> = handed_out(&board, None, true)
                .iter()
                .map(|s| s.mv)
                .collect();
            let expected: HashSet<Move> = legal(&board)
                .into_iter()
                .filter(|&mv| {
                    !board.checkers().is_empty() || is_noisy(captured_piece(&board, mv), mv)
                })
                .collect();
            assert_eq!(got, expected, "{fen}");
        }
    }

    #[test]
    fn no_moves_is_empty() {
        let mate: Board = "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1".parse().unwrap();
        assert!(MovePicker::new(&mate, None, false).is_empty());
        let start = Board::default();
        assert!(!MovePicker::new(&start, None, false).is_empty());
    }

    /// Quiescence's generator lists exactly the noisy moves of cozy-chess's full
    /// generator, in the same order, on positions from random games (captures,
    /// promotions, en passant, pins and castling rights all come up), and on positions
    /// chosen for en passant into a pin and a king that can capture only a guarded piece.
    #[test]
    fn legal_noisy_moves_match_the_full_generator() {
        use rand::seq::SliceRandom;
        use rand::SeedableRng;
        let noisy_of = |board: &Board, pms: Vec<PieceMoves>| -> Vec<Move> {
            pms.into_iter()
                .flatten()
                .filter(|&mv| is_noisy(captured_piece(board, mv), mv))
                .collect()
        };
        let mut boards: Vec<Board> = [
            "8/8/8/KPp4r/8/8/8/4k3 w - c6 0 2",
            "8/8/3k4/8/2pP4/8/8/K5B1 b - d3 0 1",
            "4k3/8/8/8/8/3r4/3n4/4K3 w - - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "1r2k3/P1P5/8/8/8/8/5p1p/K5R1 w - - 0 1",
        ]
        .iter()
        .map(|f| f.parse().unwrap())
        .collect();
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        for _ in 0..60 {
            let mut board = Board::default();
            for _ in 0..200 {
                let Some(&mv) = legal(&board).choose(&mut rng) else {
                    break;
                };
                board.play_unchecked(mv);
                boards.push(board.clone());
            }
        }
        let (mut compared, mut with_noisy) = (0, 0);
        for board in boards.iter().filter(|b| b.checkers().is_empty()) {
            let mut full = Vec::new();
            board.generate_moves(|pm| {
                full.push(pm);
                false
            });
            let mut fast = Vec::new();
            legal_noisy_moves(board, |pm| fast.push(pm));
            let (expected, got) = (noisy_of(board, full), noisy_of(board, fast.clone()));
            assert_eq!(got, expected, "{board}");
            // Nothing else either: every listed move is legal and noisy or a promotion.
            for mv in fast.into_iter().flatten() {
                assert!(board.is_legal(mv), "{board}: {mv} is not legal");
                assert!(
                    is_noisy(captured_piece(board, mv), mv) || mv.promotion.is_some(),
                    "{board}: {mv} is quiet"
                );
            }
            compared += 1;
            with_noisy += !expected.is_empty() as usize;
        }
        assert!(
            compared > 5_000 && with_noisy > 2_000,
            "{compared} / {with_noisy}"
        );
    }

    /// After `skip_quiets`, the picker hands out exactly the moves the search would not
    /// have skipped, in the same order: quiet checks, castling and under-promotions among
    /// the quiets left, then the losing captures.
    #[test]
    fn skip_quiets_keeps_checks_castling_and_order() {
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/8/8/3n4/8/2B5/1q1PP3/R3K2R w KQkq - 0 1",
            "4k3/1P6/8/8/3Q4/8/6N1/R3K3 w Q - 0 1",
            "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 2 3",
        ];
        let history = History::default();
        let ctx = OrderingContext {
            history: &history,
            killers: [None, None],
            conts: [None, None],
        };
        let (mut checked_some, mut kept_quiet_check) = (false, false);
        for fen in fens {
            let board: Board = fen.parse().unwrap();
            let checks = CheckInfo::new(&board);
            let kept = |s: &ScoredMove| {
                let quiet = s.captured.is_none() && s.mv.promotion.is_none();
                let gives_check = {
                    let mut child = board.clone();
                    child.play_unchecked(s.mv);
                    !child.checkers().is_empty()
                };
                !quiet || gives_check || crate::chess::is_castle(&board, s.mv)
            };
            let full = handed_out(&board, None, false);
            let is_quiet_stage =
                |s: &ScoredMove| s.score < GOOD_CAPTURE && !MovePicker::is_bad_capture(s.score);
            for skip_after in 1..6 {
                let mut picker = MovePicker::new(&board, None, false);
                let mut got = Vec::new();
                let mut quiets = 0;
                while let Some(s) = picker.next_move(&ctx) {
                    got.push(s.mv);
                    if is_quiet_stage(&s) && s.mv.promotion.is_none() {
                        quiets += 1;
                        if quiets == skip_after {
                            picker.skip_quiets(&checks);
                            break;
                        }
                    }
                }
                let n = got.len();
                got.extend(std::iter::from_fn(|| picker.next_move(&ctx)).map(|s| s.mv));
                let expected: Vec<Move> = full[..n]
                    .iter()
                    .map(|s| s.mv)
                    .chain(full[n..].iter().filter(|s| kept(s)).map(|s| s.mv))
                    .collect();
                checked_some |= full[n..].iter().any(|s| !kept(s));
                kept_quiet_check |= full[n..]
                    .iter()
                    .any(|s| kept(s) && s.captured.is_none() && s.mv.promotion.is_none());
                assert_eq!(got, expected, "{fen}, skipping after {skip_after} quiets");
            }
        }
        assert!(checked_some, "no position had a quiet move to skip");
        assert!(
            kept_quiet_check,
            "no position kept a quiet check or castling"
        );
    }

    /// Sorting the rest of the quiets after a few picks hands them out in exactly the
    /// order that picking the first best each time would (so search results do not
    /// depend on where the switch happens).
    #[test]
    fn sorted_rest_matches_repeated_selection() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let moves: Vec<Move> = legal(
            &"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
                .parse::<Board>()
                .unwrap(),
        );
        for _ in 0..200 {
            let n = rng.gen_range(0..moves.len());
            // Few distinct scores, so ties are common.
            let list: Vec<ScoredMove> = moves[..n]
                .iter()
                .map(|&mv| ScoredMove {
                    mv,
                    score: rng.gen_range(-3..3),
                    captured: None,
                })
                .collect();
            let mut selected = Vec::new();
            let mut rest = list.clone();
            while !rest.is_empty() {
                let best =
                    (1..rest.len()).fold(
                        0,
                        |b, i| {
                            if rest[i].score > rest[b].score {
                                i
                            } else {
                                b
                            }
                        },
                    );
                selected.push(rest.remove(best).mv);
            }
            let mut sorted = list.clone();
            sort_descending_stable(&mut sorted);
            let sorted: Vec<Move> = sorted.iter().map(|m| m.mv).collect();
            assert_eq!(sorted, selected);
        }
    }
}

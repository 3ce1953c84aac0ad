//! The incrementally updated first layer: a preallocated stack of accumulator pairs
//! (White's perspective, Black's perspective) indexed by ply, updated lazily.
//!
//! `push` only records which features a move changes (for both perspectives) and marks
//! the new slot stale; `pop` steps back. The accumulator of a slot is computed when a
//! position is evaluated ([`AccStack::current`]): from the nearest fresh slot below it,
//! applying each ply's recorded changes in one pass (all adds and subtractions of a move
//! together). A node cut off before its evaluation is needed — a TT cutoff, a pruned
//! move, a null-move search answered from the table — never pays for the update.
//!
//! Changes are read from the move and the board before it (the moved piece, a capture,
//! en passant's pawn beside the destination, a promotion, castling in the king-takes-rook
//! encoding with Chess960's squares): a few piece lookups, where comparing the twelve
//! bitboards of the two boards cost ~360 instructions a push. That comparison stays as
//! the definition: debug builds (every test) check each decoded move against it.
//! Castling rights and the en-passant file are compared between the boards. The
//! side-to-move and halfmove-clock features are not in the accumulator (see `network`).
//!
//! With a horizontally mirrored net (`features::mirrored`), a perspective whose king
//! crosses between files d and e sees every feature change: its accumulator is rebuilt
//! from the bias and the new position's features instead (a king move, so rare).

use cozy_chess::{Board, Color, File, Move, Piece, Square};

use super::features::{self, aux_bits, black_view, mirror_feature, mirrored, piece_index, STM};
use super::quantise::Quantised;
use super::simd::{self, Path};

/// Preallocated plies; the stack grows (once) if a search ever goes deeper.
pub const STACK_PLIES: usize = 256;

/// Most feature changes one move can cause per perspective (castling: 2 + 2 pieces,
/// 4 castling rights, 2 en-passant files), with room to spare.
const MAX_CHANGES: usize = 16;

/// Accumulator stack.
pub struct AccStack {
    hidden: usize,
    path: Path,
    /// The net mirrors the board horizontally (see the module docs).
    mirroring: bool,
    data: Vec<i16>,
    /// Per slot: the feature changes that lead to it from the slot below.
    changes: Vec<[Delta; 2]>,
    /// Per slot and perspective, with `Delta::rebuild`: every active feature (side to
    /// move excluded) of the slot's position.
    rebuilds: Vec<[Rebuild; 2]>,
    /// Working list for a rebuild (kept to spare an allocation per king move).
    feats: Vec<u16>,
    /// Per slot: whether `data` holds its accumulators.
    fresh: Vec<bool>,
    /// Per slot and perspective (White, Black): whether a mirrored net sees the board
    /// mirrored (the king on files a–d). Only a king move changes it.
    mirror: Vec<[bool; 2]>,
    ply: usize,
}

/// The features one move adds and removes, from one perspective.
#[derive(Clone, Copy)]
struct Delta {
    add: Changes,
    sub: Changes,
    /// The perspective's mirroring changed: the slot is computed from the bias and its
    /// full feature list (`AccStack::rebuilds`), not from the slot below.
    rebuild: bool,
}

/// A position's active features from one perspective.
#[derive(Clone, Copy)]
struct Rebuild {
    n: u8,
    idx: [u16; features::MAX_ACTIVE],
}

const NO_REBUILD: Rebuild = Rebuild {
    n: 0,
    idx: [0; features::MAX_ACTIVE],
};

/// A small fixed list of feature indices.
#[derive(Clone, Copy)]
struct Changes {
    n: u8,
    idx: [u16; MAX_CHANGES],
}

impl Changes {
    const EMPTY: Changes = Changes {
        n: 0,
        idx: [0; MAX_CHANGES],
    };
    #[inline(always)]
    fn push(&mut self, f: usize) {
        if (self.n as usize) < MAX_CHANGES {
            self.idx[self.n as usize] = f as u16;
            self.n += 1;
        }
    }
    #[inline(always)]
    fn as_slice(&self) -> &[u16] {
        &self.idx[..self.n as usize]
    }
}

const NO_CHANGE: Delta = Delta {
    add: Changes::EMPTY,
    sub: Changes::EMPTY,
    rebuild: false,
};

impl AccStack {
    /// A stack for a net with `hidden` units per perspective, horizontally mirrored or
    /// not (`mirroring`).
    pub fn new(hidden: usize, path: Path, mirroring: bool) -> Self {
        AccStack {
            hidden,
            path,
            mirroring,
            data: vec![0; (STACK_PLIES + 1) * 2 * hidden],
            changes: vec![[NO_CHANGE; 2]; STACK_PLIES + 1],
            rebuilds: vec![[NO_REBUILD; 2]; STACK_PLIES + 1],
            feats: Vec::with_capacity(features::MAX_ACTIVE),
            fresh: vec![false; STACK_PLIES + 1],
            mirror: vec![[false; 2]; STACK_PLIES + 1],
            ply: 0,
        }
    }

    pub fn hidden(&self) -> usize {
        self.hidden
    }

    pub fn ply(&self) -> usize {
        self.ply
    }

    /// The current (White, Black) accumulators, brought up to date first.
    #[inline]
    pub fn current(&mut self, q: &Quantised) -> (&[i16], &[i16]) {
        if !self.fresh[self.ply] {
            self.catch_up(q);
        }
        let h = self.hidden;
        let slot = &self.data[self.ply * 2 * h..(self.ply + 1) * 2 * h];
        slot.split_at(h)
    }

    /// Computes every stale slot from the nearest fresh one below up to the current ply.
    fn catch_up(&mut self, q: &Quantised) {
        let h = self.hidden;
        // Slot 0 is fresh after every reset, so the walk ends.
        let mut from = self.ply;
        while !self.fresh[from] {
            from -= 1;
        }
        for slot in from + 1..=self.ply {
            let (src, dst) = self.data.split_at_mut(slot * 2 * h);
            let src = &src[(slot - 1) * 2 * h..];
            let dst = &mut dst[..2 * h];
            let [white, black] = &self.changes[slot];
            for (k, delta) in [white, black].into_iter().enumerate() {
                let dst = &mut dst[k * h..(k + 1) * h];
                if delta.rebuild {
                    let all = &self.rebuilds[slot][k];
                    simd::acc_update(
                        self.path,
                        &q.ft_w,
                        &q.ft_b,
                        dst,
                        &all.idx[..all.n as usize],
                        &[],
                    );
                    continue;
                }
                simd::acc_update(
                    self.path,
                    &q.ft_w,
                    &src[k * h..(k + 1) * h],
                    dst,
                    delta.add.as_slice(),
                    delta.sub.as_slice(),
                );
            }
            self.fresh[slot] = true;
        }
    }

    /// Full recompute of slot 0 from `board`; the stack becomes empty.
    pub fn reset(&mut self, q: &Quantised, board: &Board) {
        self.ply = 0;
        let h = self.hidden;
        let (w, b) = self.data[..2 * h].split_at_mut(h);
        refresh_with(self.path, q, board, Color::White, w);
        refresh_with(self.path, q, board, Color::Black, b);
        self.fresh[0] = true;
        self.mirror[0] = [Color::White, Color::Black].map(|c| mirrored(board, c));
    }

    /// Records the changes of `mv`, which took `before` to `after`, as slot `ply + 1`
    /// (computed when needed).
    pub fn push(&mut self, before: &Board, mv: Move, after: &Board) {
        let slot = self.begin_slot();
        let delta = &mut self.changes[slot];
        let king_moved = record_move(delta, before, mv);
        debug_assert!(
            same_net_changes(delta, &{
                let mut by_diff = [NO_CHANGE; 2];
                record_board_diff(&mut by_diff, before, after);
                by_diff
            }),
            "decoding {mv} on {before} disagrees with the board difference"
        );
        record_aux(delta, before, after);
        self.finish_slot(after, king_moved);
    }

    /// Records a null move (`before` → `after`, the same pieces) as slot `ply + 1`:
    /// only an en-passant file can change.
    pub fn push_null(&mut self, before: &Board, after: &Board) {
        let slot = self.begin_slot();
        record_aux(&mut self.changes[slot], before, after);
        self.finish_slot(after, false);
    }

    /// Grows the stack if needed and clears slot `ply + 1`'s change lists.
    #[inline]
    fn begin_slot(&mut self) -> usize {
        if self.ply + 2 > self.fresh.len() {
            let slots = self.fresh.len() * 2;
            self.data.resize(slots * 2 * self.hidden, 0);
            self.changes.resize(slots, [NO_CHANGE; 2]);
            self.rebuilds.resize(slots, [NO_REBUILD; 2]);
            self.fresh.resize(slots, false);
            self.mirror.resize(slots, [false; 2]);
        }
        // Written in place: only the counts need clearing.
        for d in self.changes[self.ply + 1].iter_mut() {
            d.add.n = 0;
            d.sub.n = 0;
            d.rebuild = false;
        }
        self.ply + 1
    }

    /// Mirrors the recorded changes where a perspective needs it and makes the slot
    /// current (stale until evaluated). `king_moved`: the move was a king's (castling
    /// included), the only kind that can change a perspective's mirroring.
    #[inline]
    fn finish_slot(&mut self, after: &Board, king_moved: bool) {
        if self.mirroring {
            let slot = self.ply + 1;
            let was = self.mirror[self.ply];
            let now = if king_moved {
                [Color::White, Color::Black].map(|c| mirrored(after, c))
            } else {
                was
            };
            debug_assert_eq!(
                now,
                [Color::White, Color::Black].map(|c| mirrored(after, c))
            );
            self.mirror[slot] = now;
            self.orient(slot, was, now, after);
        }
        self.ply += 1;
        self.fresh[self.ply] = false;
    }

    /// Turns the unmirrored changes just recorded for slot `ply + 1` into what each
    /// perspective sees: mirrored where its king is on files a–d, or a rebuild where the
    /// king crossed between files d and e.
    fn orient(&mut self, slot: usize, was: [bool; 2], now: [bool; 2], after: &Board) {
        for (k, persp) in [Color::White, Color::Black].into_iter().enumerate() {
            let delta = &mut self.changes[slot][k];
            if was[k] != now[k] {
                delta.rebuild = true;
                let feats = &mut self.feats;
                feats.clear();
                features::active(after, persp, true, feats);
                feats.retain(|&f| f as usize != STM);
                let all = &mut self.rebuilds[slot][k];
                all.n = feats.len() as u8;
                all.idx[..feats.len()].copy_from_slice(feats);
            } else if now[k] {
                for changes in [&mut delta.add, &mut delta.sub] {
                    let n = changes.n as usize;
                    for f in &mut changes.idx[..n] {
                        *f = mirror_feature(*f as usize) as u16;
                    }
                }
            }
        }
    }

    /// Steps back to the previous slot.
    pub fn pop(&mut self) {
        debug_assert!(self.ply > 0, "pop without push");
        self.ply = self.ply.saturating_sub(1);
    }
}

/// Adds (`on`) or removes one piece feature, for both perspectives (unmirrored).
#[inline(always)]
fn record_piece(delta: &mut [Delta; 2], on: bool, color: Color, piece: Piece, sq: Square) {
    let (white, black) = (
        piece_index(Color::White, color, piece, sq),
        piece_index(Color::Black, color, piece, sq),
    );
    if on {
        delta[0].add.push(white);
        delta[1].add.push(black);
    } else {
        delta[0].sub.push(white);
        delta[1].sub.push(black);
    }
}

/// The piece features `mv` changes, read from the move and the board before it (as
/// Stockfish's "dirty pieces"): the mover leaves `from` and arrives (promoted, perhaps)
/// on `to`; a captured piece leaves `to`, or the square behind it for en passant;
/// castling, encoded as the king taking its own rook, moves both to their standard
/// squares (the same in Chess960), skipping a piece that stays where it is. Returns
/// whether the king moved.
#[inline]
fn record_move(delta: &mut [Delta; 2], before: &Board, mv: Move) -> bool {
    let us = before.side_to_move();
    let Some(moved) = before.piece_on(mv.from) else {
        debug_assert!(false, "no piece on {} for {mv}", mv.from);
        return false;
    };
    if moved == Piece::King && before.colors(us).has(mv.to) {
        let rank = mv.from.rank();
        let (king_file, rook_file) = if mv.to.file() > mv.from.file() {
            (File::G, File::F)
        } else {
            (File::C, File::D)
        };
        for (piece, from, to) in [
            (Piece::King, mv.from, Square::new(king_file, rank)),
            (Piece::Rook, mv.to, Square::new(rook_file, rank)),
        ] {
            if from != to {
                record_piece(delta, false, us, piece, from);
                record_piece(delta, true, us, piece, to);
            }
        }
        return true;
    }
    record_piece(delta, false, us, moved, mv.from);
    record_piece(delta, true, us, mv.promotion.unwrap_or(moved), mv.to);
    if let Some(victim) = before.piece_on(mv.to) {
        record_piece(delta, false, !us, victim, mv.to);
    } else if moved == Piece::Pawn && mv.from.file() != mv.to.file() {
        // En passant: the captured pawn stands beside the mover's starting square.
        record_piece(
            delta,
            false,
            !us,
            Piece::Pawn,
            Square::new(mv.to.file(), mv.from.rank()),
        );
    }
    moved == Piece::King
}

/// The piece features that differ between two boards, found by comparing their
/// bitboards: the definition `record_move` must agree with (checked in debug builds).
fn record_board_diff(delta: &mut [Delta; 2], before: &Board, after: &Board) {
    for piece in Piece::ALL {
        for color in [Color::White, Color::Black] {
            let b = before.colored_pieces(color, piece);
            let a = after.colored_pieces(color, piece);
            for sq in a & !b {
                record_piece(delta, true, color, piece, sq);
            }
            for sq in b & !a {
                record_piece(delta, false, color, piece, sq);
            }
        }
    }
}

/// Whether two sets of recorded changes have the same net effect on the accumulator (an
/// add and a subtraction of the same feature cancel).
fn same_net_changes(x: &[Delta; 2], y: &[Delta; 2]) -> bool {
    let net = |d: &Delta| {
        let mut v: Vec<(u16, i32)> = Vec::new();
        for (list, sign) in [(&d.add, 1), (&d.sub, -1)] {
            for &f in list.as_slice() {
                match v.iter_mut().find(|(g, _)| *g == f) {
                    Some((_, n)) => *n += sign,
                    None => v.push((f, sign)),
                }
            }
        }
        v.retain(|&(_, n)| n != 0);
        v.sort_unstable();
        v
    };
    (0..2).all(|k| net(&x[k]) == net(&y[k]))
}

/// Castling rights and the en-passant file: most moves change neither.
#[inline]
fn record_aux(delta: &mut [Delta; 2], before: &Board, after: &Board) {
    let may_change = before.en_passant().is_some()
        || after.en_passant().is_some()
        || [Color::White, Color::Black]
            .into_iter()
            .any(|c| before.castle_rights(c) != after.castle_rights(c));
    if !may_change {
        return;
    }
    let (wb, wa) = (
        aux_bits(before, Color::White),
        aux_bits(after, Color::White),
    );
    if wb == wa {
        return;
    }
    let views = [(wb, wa), (black_view(wb), black_view(wa))];
    for (d, &(ab, aa)) in delta.iter_mut().zip(&views) {
        for i in 0..13 {
            let bit = 1u32 << i;
            if aa & bit != 0 && ab & bit == 0 {
                d.add.push(STM + i);
            } else if ab & bit != 0 && aa & bit == 0 {
                d.sub.push(STM + i);
            }
        }
    }
}

/// Accumulator of `persp` computed from scratch (bias + active binary features except
/// the side-to-move flag).
pub fn refresh(q: &Quantised, board: &Board, persp: Color, dst: &mut [i16]) {
    refresh_with(Path::best(), q, board, persp, dst)
}

fn refresh_with(path: Path, q: &Quantised, board: &Board, persp: Color, dst: &mut [i16]) {
    let mut feats = Vec::with_capacity(super::features::MAX_ACTIVE);
    super::features::active(board, persp, q.mirroring, &mut feats);
    feats.retain(|&f| f as usize != STM);
    simd::acc_update(path, &q.ft_w, &q.ft_b, dst, &feats, &[]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::legal_moves as legal;

    /// Every legal move of positions chosen for the awkward cases — Chess960 castling
    /// where the king or the rook stays put or the two swap squares, en passant,
    /// promotions with and without a capture — decodes to the same feature changes as
    /// comparing the boards.
    #[test]
    fn decoded_moves_match_the_board_difference() {
        let positions = [
            ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", false),
            ("4k3/8/8/8/8/8/8/R5KR w HA - 0 1", true), // short: the king stays on g1
            ("4k3/8/8/8/8/8/8/R4KR1 w GA - 0 1", true), // short: king and rook swap
            ("4k3/8/8/8/8/8/8/R3KR2 w FA - 0 1", true), // short: the rook stays on f1
            ("4k3/8/8/8/8/8/8/2RK3R w HC - 0 1", true), // long: king and rook swap
            ("4k3/8/8/8/8/8/8/3RK2R w HD - 0 1", true), // long: the rook stays on d1
            ("rk5r/8/8/8/8/8/8/4K3 b ha - 0 1", true), // Black, the king beside its rook
            ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", false), // en passant
            ("4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1", false),
            ("1q2k3/P7/8/8/8/8/6p1/4K2R w K - 0 1", false), // a7-a8 and a7xb8 promotions
            ("4k3/8/8/8/8/8/6p1/4K2R b K - 0 1", false),    // g2xh1, g2-g1 promotions
        ];
        let (mut castles, mut en_passant, mut promotions) = (0, 0, 0);
        for (fen, chess960) in positions {
            let board = Board::from_fen(fen, chess960).unwrap_or_else(|e| panic!("{fen}: {e:?}"));
            let us = board.side_to_move();
            for mv in legal(&board) {
                let mut after = board.clone();
                after.play_unchecked(mv);
                let mut decoded = [NO_CHANGE; 2];
                let king_moved = record_move(&mut decoded, &board, mv);
                let mut by_diff = [NO_CHANGE; 2];
                record_board_diff(&mut by_diff, &board, &after);
                assert!(same_net_changes(&decoded, &by_diff), "{fen}: {mv}");
                assert_eq!(king_moved, board.king(us) == mv.from, "{fen}: {mv}");
                castles += board.colors(us).has(mv.to) as usize;
                en_passant += (Some(mv.to.file()) == board.en_passant()
                    && board.piece_on(mv.from) == Some(Piece::Pawn)
                    && board.piece_on(mv.to).is_none()
                    && mv.from.file() != mv.to.file()) as usize;
                promotions += mv.promotion.is_some() as usize;
            }
        }
        assert!(castles >= 12, "only {castles} castling moves");
        assert!(en_passant >= 2, "only {en_passant} en-passant captures");
        assert!(promotions >= 16, "only {promotions} promotions");
    }
}

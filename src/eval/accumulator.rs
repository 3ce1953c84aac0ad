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
//! Changes are found by comparing the boards, not by decoding the move: for each of the
//! 12 (colour, piece) bitboards, squares set only after the move are added and squares set
//! only before are removed. That covers quiet moves, captures, promotions, castling in
//! the king-takes-rook encoding (including Chess960) and en passant (the captured pawn is
//! not on the destination square) with one code path. Castling rights and the en-passant
//! file are compared the same way. The side-to-move and halfmove-clock features are not
//! in the accumulator (see `network`).
//!
//! With a horizontally mirrored net (`features::mirrored`), a perspective whose king
//! crosses between files d and e sees every feature change: its accumulator is rebuilt
//! from the bias and the new position's features instead (a king move, so rare).

use cozy_chess::{Board, Color, Piece};

use super::features::{self, aux_bits, black_view, mirror_feature, mirrored, piece_index, STM};
use super::network::Quantised;
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
    }

    /// Records the changes `before` → `after` as slot `ply + 1` (computed when needed).
    pub fn push(&mut self, before: &Board, after: &Board) {
        if self.ply + 2 > self.fresh.len() {
            let slots = self.fresh.len() * 2;
            self.data.resize(slots * 2 * self.hidden, 0);
            self.changes.resize(slots, [NO_CHANGE; 2]);
            self.rebuilds.resize(slots, [NO_REBUILD; 2]);
            self.fresh.resize(slots, false);
        }
        // Written in place: only the counts need clearing.
        let delta = &mut self.changes[self.ply + 1];
        for d in delta.iter_mut() {
            d.add.n = 0;
            d.sub.n = 0;
            d.rebuild = false;
        }
        // A move changes one to three piece kinds. A kind whose squares stayed the same
        // changed only if one of them changed colour (a promotion capturing a piece of the
        // kind it promotes to).
        let recoloured = before.colors(Color::White) ^ after.colors(Color::White);
        for piece in Piece::ALL {
            let squares = before.pieces(piece);
            if squares == after.pieces(piece) && (squares & recoloured).is_empty() {
                continue;
            }
            for color in [Color::White, Color::Black] {
                let b = before.colored_pieces(color, piece);
                let a = after.colored_pieces(color, piece);
                if a == b {
                    continue;
                }
                for sq in a & !b {
                    delta[0]
                        .add
                        .push(piece_index(Color::White, color, piece, sq));
                    delta[1]
                        .add
                        .push(piece_index(Color::Black, color, piece, sq));
                }
                for sq in b & !a {
                    delta[0]
                        .sub
                        .push(piece_index(Color::White, color, piece, sq));
                    delta[1]
                        .sub
                        .push(piece_index(Color::Black, color, piece, sq));
                }
            }
        }
        // Castling rights and the en-passant file: most moves change neither.
        let aux_may_change = before.en_passant().is_some()
            || after.en_passant().is_some()
            || [Color::White, Color::Black]
                .into_iter()
                .any(|c| before.castle_rights(c) != after.castle_rights(c));
        let (wb, wa) = if aux_may_change {
            (
                aux_bits(before, Color::White),
                aux_bits(after, Color::White),
            )
        } else {
            (0, 0)
        };
        if wb != wa {
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
        if self.mirroring {
            self.orient(before, after);
        }
        self.ply += 1;
        self.fresh[self.ply] = false;
    }

    /// Turns the unmirrored changes just recorded for slot `ply + 1` into what each
    /// perspective sees: mirrored where its king is on files a–d, or a rebuild where the
    /// king crossed between files d and e.
    fn orient(&mut self, before: &Board, after: &Board) {
        let slot = self.ply + 1;
        for (k, persp) in [Color::White, Color::Black].into_iter().enumerate() {
            let now = mirrored(after, persp);
            let delta = &mut self.changes[slot][k];
            if mirrored(before, persp) != now {
                delta.rebuild = true;
                let feats = &mut self.feats;
                feats.clear();
                features::active(after, persp, true, feats);
                feats.retain(|&f| f as usize != STM);
                let all = &mut self.rebuilds[slot][k];
                all.n = feats.len() as u8;
                all.idx[..feats.len()].copy_from_slice(feats);
            } else if now {
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

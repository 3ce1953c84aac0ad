//! The incrementally updated first layer: a preallocated stack of accumulator pairs
//! (White's perspective, Black's perspective) indexed by ply. `push` writes slot `ply + 1`
//! from slot `ply` plus the feature changes between two boards; `pop` just steps back.
//!
//! Changes are found by comparing the boards, not by decoding the move: for each of the
//! 12 (colour, piece) bitboards, squares set only after the move are added and squares set
//! only before are removed. That covers quiet moves, captures, promotions, castling in
//! the king-takes-rook encoding (including Chess960) and en passant (the captured pawn is
//! not on the destination square) with one code path. Castling rights and the en-passant
//! file are compared the same way. The side-to-move and halfmove-clock features are not
//! in the accumulator (see `network`).

use cozy_chess::{Board, Color, Piece};

use super::features::{aux_bits, black_view, piece_index, STM};
use super::network::Quantised;

/// Preallocated plies; the stack grows (once) if a search ever goes deeper.
pub const STACK_PLIES: usize = 256;

/// Most feature changes one move can cause per perspective (castling: 2 + 2 pieces,
/// 4 castling rights, 2 en-passant files), with room to spare.
const MAX_CHANGES: usize = 16;

/// Accumulator stack.
pub struct AccStack {
    hidden: usize,
    data: Vec<i16>,
    ply: usize,
}

/// A small fixed list of feature indices.
struct Changes {
    n: usize,
    idx: [u16; MAX_CHANGES],
}

impl Changes {
    fn new() -> Self {
        Changes {
            n: 0,
            idx: [0; MAX_CHANGES],
        }
    }
    #[inline(always)]
    fn push(&mut self, f: usize) {
        if self.n < MAX_CHANGES {
            self.idx[self.n] = f as u16;
            self.n += 1;
        }
    }
    fn as_slice(&self) -> &[u16] {
        &self.idx[..self.n]
    }
}

impl AccStack {
    pub fn new(hidden: usize) -> Self {
        AccStack {
            hidden,
            data: vec![0; (STACK_PLIES + 1) * 2 * hidden],
            ply: 0,
        }
    }

    pub fn hidden(&self) -> usize {
        self.hidden
    }

    pub fn ply(&self) -> usize {
        self.ply
    }

    /// The current (White, Black) accumulators.
    #[inline]
    pub fn current(&self) -> (&[i16], &[i16]) {
        let h = self.hidden;
        let slot = &self.data[self.ply * 2 * h..(self.ply + 1) * 2 * h];
        slot.split_at(h)
    }

    /// Full recompute of slot 0 from `board`; the stack becomes empty.
    pub fn reset(&mut self, q: &Quantised, board: &Board) {
        self.ply = 0;
        let h = self.hidden;
        let (w, b) = self.data[..2 * h].split_at_mut(h);
        refresh(q, board, Color::White, w);
        refresh(q, board, Color::Black, b);
    }

    /// Writes slot `ply + 1` from slot `ply` and the changes `before` → `after`.
    pub fn push(&mut self, q: &Quantised, before: &Board, after: &Board) {
        let h = self.hidden;
        if (self.ply + 2) * 2 * h > self.data.len() {
            self.data.resize(self.data.len() * 2, 0);
        }
        let mut add = [Changes::new(), Changes::new()];
        let mut sub = [Changes::new(), Changes::new()];
        for color in [Color::White, Color::Black] {
            for piece in Piece::ALL {
                let b = before.colored_pieces(color, piece);
                let a = after.colored_pieces(color, piece);
                if a == b {
                    continue;
                }
                for sq in a & !b {
                    add[0].push(piece_index(Color::White, color, piece, sq));
                    add[1].push(piece_index(Color::Black, color, piece, sq));
                }
                for sq in b & !a {
                    sub[0].push(piece_index(Color::White, color, piece, sq));
                    sub[1].push(piece_index(Color::Black, color, piece, sq));
                }
            }
        }
        let (wb, wa) = (
            aux_bits(before, Color::White),
            aux_bits(after, Color::White),
        );
        let views = [(wb, wa), (black_view(wb), black_view(wa))];
        for (k, &(ab, aa)) in views.iter().enumerate() {
            if ab != aa {
                for i in 0..13 {
                    let bit = 1u32 << i;
                    if aa & bit != 0 && ab & bit == 0 {
                        add[k].push(STM + i);
                    } else if ab & bit != 0 && aa & bit == 0 {
                        sub[k].push(STM + i);
                    }
                }
            }
        }
        let (src, dst) = self.data.split_at_mut((self.ply + 1) * 2 * h);
        let src = &src[self.ply * 2 * h..];
        let dst = &mut dst[..2 * h];
        for k in 0..2 {
            apply(
                q,
                &src[k * h..(k + 1) * h],
                &mut dst[k * h..(k + 1) * h],
                add[k].as_slice(),
                sub[k].as_slice(),
            );
        }
        self.ply += 1;
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
    let mut feats = Vec::with_capacity(super::features::MAX_ACTIVE);
    super::features::active(board, persp, &mut feats);
    feats.retain(|&f| f as usize != STM);
    apply(q, &q.ft_b, dst, &feats, &[]);
}

#[inline(always)]
fn apply_inner(q: &Quantised, src: &[i16], dst: &mut [i16], add: &[u16], sub: &[u16]) {
    let h = q.hidden;
    const BLOCK: usize = 64;
    if h.is_multiple_of(BLOCK) {
        // One pass over memory: each 64-lane block is summed in registers.
        for b in (0..h).step_by(BLOCK) {
            let mut acc = [0i16; BLOCK];
            acc.copy_from_slice(&src[b..b + BLOCK]);
            for &f in add {
                let col = &q.ft_w[f as usize * h + b..f as usize * h + b + BLOCK];
                for (d, &w) in acc.iter_mut().zip(col) {
                    *d = d.wrapping_add(w);
                }
            }
            for &f in sub {
                let col = &q.ft_w[f as usize * h + b..f as usize * h + b + BLOCK];
                for (d, &w) in acc.iter_mut().zip(col) {
                    *d = d.wrapping_sub(w);
                }
            }
            dst[b..b + BLOCK].copy_from_slice(&acc);
        }
        return;
    }
    dst.copy_from_slice(src);
    for &f in add {
        let col = &q.ft_w[f as usize * h..(f as usize + 1) * h];
        for (d, &w) in dst.iter_mut().zip(col) {
            *d = d.wrapping_add(w);
        }
    }
    for &f in sub {
        let col = &q.ft_w[f as usize * h..(f as usize + 1) * h];
        for (d, &w) in dst.iter_mut().zip(col) {
            *d = d.wrapping_sub(w);
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn apply_avx2(q: &Quantised, src: &[i16], dst: &mut [i16], add: &[u16], sub: &[u16]) {
    apply_inner(q, src, dst, add, sub)
}

/// `dst = src + Σ columns(add) − Σ columns(sub)`.
fn apply(q: &Quantised, src: &[i16], dst: &mut [i16], add: &[u16], sub: &[u16]) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above); the body is safe Rust.
            return unsafe { apply_avx2(q, src, dst, add, sub) };
        }
    }
    apply_inner(q, src, dst, add, sub)
}

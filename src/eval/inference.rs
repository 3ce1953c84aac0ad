//! The forward pass of the quantised network ([`Quantised`]): the activation of both
//! accumulators, the sparse `l1`, then `l2` and the output bucket, all integer until the
//! final division, so every kernel version ([`Path`]) gives the same bits.

use super::features;
use super::quantise::{Quantised, HEAD_ACT, L1_MUL_SHIFT};
use super::shape::{L1, L2};
use super::simd::{self, Path};

/// Working memory of one evaluation (allocated once per evaluator).
pub struct Scratch {
    x: Vec<u8>,
    groups: Vec<u16>,
}

impl Quantised {
    /// Number of output buckets.
    pub fn buckets(&self) -> usize {
        self.out_b.len()
    }

    /// Working memory for [`Self::forward`].
    pub fn scratch(&self) -> Scratch {
        let inputs = 2 * self.hidden;
        Scratch {
            x: vec![0; inputs],
            groups: vec![0; inputs / 4 + 8],
        }
    }

    /// Layers `l2` and `out` from the sums of `l1`: the output's dot product, bias not
    /// included. Written as plain loops so that the compiler vectorises them; compiled
    /// once for the baseline target and once with AVX2 ([`Self::head_rest_avx2`]), same
    /// integer arithmetic either way.
    #[inline(always)]
    fn head_rest(&self, path: Path, s1: &[i32; L1], bucket: usize) -> i32 {
        let mut h1 = [0i16; L1];
        const HALF: u64 = 1 << (L1_MUL_SHIFT - 1);
        // A negative sum becomes 0 either way (the rounding half is less than one unit),
        // so the product is taken of non-negative numbers, as u64 (`vpmuludq`; AVX2 has
        // no signed 64-bit shift or clamp). Multipliers are at most 2^24, so the shifted
        // product is at most the sum and fits u32 for the upper clamp.
        for ((h, &s), &mul) in h1.iter_mut().zip(s1).zip(&self.l1_mul) {
            let p = (s.max(0) as u32 as u64 * mul as u64 + HALF) >> L1_MUL_SHIFT;
            *h = (p as u32).min(HEAD_ACT as u32) as i16;
        }
        let mut s2 = [0i32; L2];
        simd::l2_dense(path, &h1, self.l1_width, &self.l2_w, &self.l2_b, &mut s2);
        let shift = self.shifts.l2;
        // Each product is at most 32,000 · 1,016 (`choose_shifts`) and there are 32 of
        // them, so the sum fits i32. (`h1` beyond `l1_width` is 0.)
        let mut dot = 0i32;
        for (&w, &s) in self.out_w[bucket].iter().zip(&s2) {
            dot += w * (s >> shift).clamp(0, HEAD_ACT);
        }
        dot
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn head_rest_avx2(&self, path: Path, s1: &[i32; L1], bucket: usize) -> i32 {
        self.head_rest(path, s1, bucket)
    }

    /// `l1`'s u8 inputs from two accumulators (side to move first) and the clamped
    /// halfmove clock: each half's table added, then the net's activation; `x` holds
    /// 2H bytes, the side to move's half first.
    #[inline]
    pub fn activate(&self, path: Path, us: &[i16], them: &[i16], hmc: usize, x: &mut [u8]) {
        let h = self.hidden;
        let (xs, xo) = x.split_at_mut(x.len() / 2);
        let shift = self.shifts.acc;
        let (tab_us, tab_them) = (
            &self.tab_stm[hmc * h..(hmc + 1) * h],
            &self.tab_other[hmc * h..(hmc + 1) * h],
        );
        if self.squared {
            simd::activate_squared(path, us, tab_us, shift, xs);
            simd::activate_squared(path, them, tab_them, shift, xo);
        } else {
            simd::activate(path, us, tab_us, shift, xs);
            simd::activate(path, them, tab_them, shift, xo);
        }
    }

    /// Raw network output `y` (cp / scale) from two accumulators (side to move first),
    /// the clamped halfmove clock and the number of pieces on the board (which picks the
    /// output bucket); `scratch` comes from [`Self::scratch`]. All integer until the final
    /// division, so `path` does not change the result.
    #[inline]
    pub fn forward(
        &self,
        path: Path,
        us: &[i16],
        them: &[i16],
        hmc: usize,
        pieces: usize,
        scratch: &mut Scratch,
    ) -> f32 {
        let bucket = features::output_bucket(pieces, self.buckets());
        let Scratch { x, groups } = scratch;
        self.activate(path, us, them, hmc, x);
        let mut s1 = [0i32; L1];
        simd::l1_sparse(path, x, &self.l1_w, &self.l1_b, groups, &mut s1);
        let dot = match path {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the path is only used when the CPU has AVX2.
            Path::Avx2 | Path::Vnni if path.available() => unsafe {
                self.head_rest_avx2(path, &s1, bucket)
            },
            _ => self.head_rest(path, &s1, bucket),
        };
        let y = self.out_b[bucket] + dot as i64;
        y as f32 / (HEAD_ACT as f32 * (1u64 << self.shifts.out) as f32)
    }
}

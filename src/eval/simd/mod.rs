//! The integer kernels of the evaluation, each in two versions that give identical
//! results: AVX2 (`std::arch` intrinsics, chosen at run time when the CPU has it) and a
//! portable one in plain Rust. [`Path`] names the version; [`Path::best`] is what the
//! engine uses, and tests run both on the same positions.
//!
//! The pieces, in the order a evaluation uses them (layouts are set by `quantise.rs`):
//! - [`acc_update`]: `dst = src + Σ columns(add) − Σ columns(sub)` over the i16
//!   accumulator, all changes of a move in one pass over the registers.
//! - [`activate`]: `clamp((acc + tab) >> shift, 0, 127)` as u8 — the clipped ReLU of the
//!   feature transformer, with the side-to-move/halfmove-clock row `tab` added on the way.
//! - [`activate_squared`]: the squared clipped ReLU (SCReLU), `(c[i]² + 64) >> 7`, with
//!   `c[i]` squared at the accumulator's full precision rather than after its shift.
//! - [`l1_sparse`]: the first head layer over those u8 inputs with i8 weights
//!   (`vpmaddubsw` + `vpmaddwd`, or `vpdpbusd` with AVX-512 VNNI), visiting only the
//!   groups of four inputs that are not all zero.
//! - [`l2_dense`]: the second head layer, i16 inputs and weights (`vpmaddwd`).
//!
//! Integer arithmetic is exact, and the bounds checked when a net is loaded keep every
//! intermediate inside its type, so every version agrees bit for bit.

use once_cell::sync::Lazy;

use super::shape::{L1, L2};

/// Largest first-layer activation (u8).
pub const ACT_MAX: i16 = 127;
/// Largest |i8 weight| of `l1`: with inputs ≤ 127, a `vpmaddubsw` pair sum stays within
/// 2 · 127 · 127 = 32,258, inside i16 (no saturation, so every version agrees).
pub const L1_WEIGHT_MAX: i8 = 127;
/// Length of the head's arrays: `l1` outputs (32, or 16 with the rest zero) and `l2`'s
/// inputs and outputs; the AVX2 `l2` kernel holds one in four registers of i32.
pub const OUT: usize = L2;
const _: () = assert!(
    L1 == L2 && L2 == 32,
    "the head kernels are written for 32 lanes"
);

/// Which version of the kernels to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// Plain Rust; any CPU.
    Portable,
    /// AVX2 intrinsics (x86-64 CPUs since 2013–2015).
    Avx2,
    /// AVX2, with `l1` in one `vpdpbusd` per 32 products (AVX-512 VNNI on 256-bit
    /// registers: Intel since Ice Lake, AMD since Zen 4).
    Vnni,
}

static BEST: Lazy<Path> = Lazy::new(|| {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("avx512vnni")
            && std::is_x86_feature_detected!("avx512vl")
        {
            return Path::Vnni;
        }
        if std::is_x86_feature_detected!("avx2") {
            return Path::Avx2;
        }
    }
    Path::Portable
});

impl Path {
    /// The fastest version this CPU runs (detected once).
    pub fn best() -> Path {
        *BEST
    }

    /// Whether this CPU can run `self`.
    pub fn available(self) -> bool {
        match self {
            Path::Portable => true,
            Path::Avx2 => Path::best() != Path::Portable,
            Path::Vnni => Path::best() == Path::Vnni,
        }
    }

    /// Every version this CPU can run.
    pub fn all_available() -> Vec<Path> {
        [Path::Portable, Path::Avx2, Path::Vnni]
            .into_iter()
            .filter(|p| p.available())
            .collect()
    }

    /// `self` when the CPU has it and the layer width suits the SIMD versions, else the
    /// portable path. (Every kernel dispatches through this, so a `Path` value built by
    /// hand can never run instructions the CPU lacks.)
    #[inline(always)]
    fn for_width(self, width: usize) -> Path {
        if width.is_multiple_of(32) && self.available() {
            self
        } else {
            Path::Portable
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Path::Portable => "portable",
            Path::Avx2 => "avx2",
            Path::Vnni => "avx512-vnni",
        }
    }
}

/// Runs `f` from a copy compiled with AVX2 when the CPU has it, so that float loops
/// inside it are vectorised 8 lanes wide. Only code inlined into that copy gets AVX2:
/// mark the closure and the functions it calls `#[inline(always)]` (perf showed a
/// closure without it compiled on its own, with SSE). The same float
/// operations in the same order (no FMA contraction), so the result does not depend on
/// the machine. For the float code of the trainer and the policy nets.
#[inline(always)]
pub fn with_avx2<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        #[target_feature(enable = "avx2")]
        unsafe fn avx2<R>(f: impl FnOnce() -> R) -> R {
            f()
        }
        // SAFETY: the CPU has AVX2.
        return unsafe { avx2(f) };
    }
    f()
}

mod ft;
mod head;

pub use ft::{acc_update, activate, activate_squared};
pub use head::{l1_sparse, l2_dense, L1Weights};

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    #[test]
    fn kernels_agree_on_random_inputs() {
        let mut rng = StdRng::seed_from_u64(7);
        for (h, width) in [(32usize, 32usize), (64, 16), (256, 32), (288, 16), (48, 32)] {
            let w: Vec<i16> = (0..20 * h).map(|_| rng.gen_range(-300..300)).collect();
            let src: Vec<i16> = (0..h).map(|_| rng.gen_range(-5000..5000)).collect();
            let tab: Vec<i16> = (0..h).map(|_| rng.gen_range(-500..500)).collect();
            let (add, sub) = ([3u16, 7, 19], [0u16, 11]);
            let l1w: Vec<i8> = (0..2 * h * width)
                .map(|_| rng.gen_range(-127..=127))
                .collect();
            let l1 = L1Weights::new(2 * h, width, |o, i| l1w[o * 2 * h + i]);
            let l2w: Vec<i16> = (0..OUT * OUT)
                .map(|_| rng.gen_range(-20000..20000))
                .collect();
            let bias: [i32; OUT] = std::array::from_fn(|_| rng.gen_range(-99999..99999));
            let mut results = Vec::new();
            for p in Path::all_available() {
                let mut dst = vec![0i16; h];
                acc_update(p, &w, &src, &mut dst, &add, &sub);
                let mut x = vec![0u8; 2 * h];
                activate(p, &dst, &tab, 3, &mut x[..h]);
                activate(p, &src, &tab, 3, &mut x[h..]);
                let mut s1 = [0i32; OUT];
                let mut groups = vec![0u16; h / 2 + 8];
                l1_sparse(p, &x, &l1, &bias, &mut groups, &mut s1);
                let h1: [i16; OUT] = std::array::from_fn(|i| (s1[i] >> 12).clamp(0, 1024) as i16);
                let mut s2 = [0i32; OUT];
                l2_dense(p, &h1, width, &l2w, &bias, &mut s2);
                let mut squared = vec![0u8; h];
                activate_squared(p, &src, &tab, 3, &mut squared);
                results.push((dst, x, s1, s2, squared));
            }
            for r in &results[1..] {
                assert_eq!(r, &results[0], "h = {h}, width {width}");
            }
            // The portable results are what the definitions say.
            let (dst, x, s1, s2, squared) = &results[0];
            for (i, &v) in squared.iter().enumerate() {
                // Squared before the shift of 3: c in 1/1016 of 1.0, a = c · 2^5.
                let c = (src[i] as i32 + tab[i] as i32).clamp(0, 127 << 3);
                let a = c << 5;
                assert_eq!(v as i32, (((a * a) >> 16) + 64) >> 7, "square {i}");
                // … which is the real square (c/8)²/128 rounded, off by at most one unit.
                let real = (c as f64 / 8.0).powi(2) / 128.0;
                assert!((v as f64 - real).abs() <= 0.51, "square {i}: {v} vs {real}");
            }
            assert!(
                squared.contains(&126) && squared.iter().any(|&v| v > 0 && v < 126),
                "squares should reach the top and lie between"
            );
            for i in 0..h {
                let col = |f: usize| w[f * h + i] as i32;
                let want = src[i] as i32 + col(3) + col(7) + col(19) - col(0) - col(11);
                assert_eq!(dst[i] as i32, want);
                assert_eq!(
                    x[h + i] as i32,
                    ((src[i] as i32 + tab[i] as i32) >> 3).clamp(0, 127)
                );
            }
            let zeros = x.iter().filter(|&&v| v == 0).count();
            assert!(
                zeros > 0 && zeros < 2 * h,
                "test inputs should be partly zero"
            );
            for o in [0, width - 1] {
                let want: i32 = bias[o]
                    + (0..2 * h)
                        .map(|i| x[i] as i32 * l1w[o * 2 * h + i] as i32)
                        .sum::<i32>();
                assert_eq!(s1[o], want);
            }
            // Outputs beyond `l1`'s width are its bias; `l2` reads only `width` inputs.
            assert_eq!(s1[width..], bias[width..]);
            let h1: Vec<i32> = s1.iter().map(|&s| (s >> 12).clamp(0, 1024)).collect();
            for o in [0, 31] {
                let want: i32 = bias[o]
                    + (0..width)
                        .map(|i| h1[i] * l2w[(i / 2 * OUT + o) * 2 + i % 2] as i32)
                        .sum::<i32>();
                assert_eq!(s2[o], want, "l2 output {o}");
            }
        }
    }
}

//! The integer kernels of the evaluation, each in two versions that give identical
//! results: AVX2 (`std::arch` intrinsics, chosen at run time when the CPU has it) and a
//! portable one in plain Rust. [`Path`] names the version; [`Path::best`] is what the
//! engine uses, and tests run both on the same positions.
//!
//! The pieces, in the order a evaluation uses them (layouts are set by `network.rs`):
//! - [`acc_update`]: `dst = src + Σ columns(add) − Σ columns(sub)` over the i16
//!   accumulator, all changes of a move in one pass over the registers.
//! - [`activate`]: `clamp((acc + tab) >> shift, 0, 127)` as u8 — the clipped ReLU of the
//!   feature transformer, with the side-to-move/halfmove-clock row `tab` added on the way.
//! - [`activate_pairwise`]: the same clipped ReLU for nets with pairwise products,
//!   `(c[i] · c[i + H/2] + 64) >> 7` for the first half's i, multiplied at the
//!   accumulator's precision (as the squares below).
//! - [`activate_squared`]: the squared clipped ReLU (SCReLU), `(c[i]² + 64) >> 7`, with
//!   `c[i]` squared at the accumulator's full precision rather than after its shift.
//! - [`l1_sparse`]: the first head layer over those u8 inputs with i8 weights
//!   (`vpmaddubsw` + `vpmaddwd`, or `vpdpbusd` with AVX-512 VNNI), visiting only the
//!   groups of four inputs that are not all zero.
//! - [`l2_dense`]: the second head layer, i16 inputs and weights (`vpmaddwd`).
//!
//! (i16 `l1` weights, measured as an alternative, lose less precision but make the layer
//! 1.6× slower: 32 KB of weights no longer stay in the L1 cache next to everything else.)
//!
//! Integer arithmetic is exact, and the bounds checked when a net is loaded keep every
//! intermediate inside its type, so every version agrees bit for bit.

use once_cell::sync::Lazy;

/// Largest first-layer activation (u8).
pub const ACT_MAX: i16 = 127;
/// Largest |i8 weight| of `l1`: with inputs ≤ 127, a `vpmaddubsw` pair sum stays within
/// 2 · 127 · 127 = 32,258, inside i16 (no saturation, so every version agrees). (Inputs
/// up to 255 with weights up to 64 were measured too: 1.5× the error against candle.)
pub const L1_WEIGHT_MAX: i8 = 127;
/// Outputs of each head layer at most: `l2` is always 32 wide, `l1` 32 or 16
/// ([`L1_WIDTHS`]); arrays of the head are sized for 32 and a 16-wide `l1` leaves the
/// rest zero.
pub const OUT: usize = 32;
/// The `l1` widths the kernels support (each a whole number of 256-bit registers of i32).
pub const L1_WIDTHS: [usize; 2] = [16, 32];

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

// ---------------------------------------------------------------------------------------
// Accumulator update
// ---------------------------------------------------------------------------------------

/// `dst = src + Σ cols(add) − Σ cols(sub)` (wrapping i16), where column `f` is
/// `w[f·h .. (f+1)·h]` and `h = src.len()`.
#[inline]
pub fn acc_update(path: Path, w: &[i16], src: &[i16], dst: &mut [i16], add: &[u16], sub: &[u16]) {
    let h = src.len();
    assert!(dst.len() == h, "accumulator sizes differ");
    for &f in add.iter().chain(sub) {
        assert!((f as usize + 1) * h <= w.len(), "feature {f} out of range");
    }
    match path.for_width(h) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `for_width` returns a SIMD path only when the CPU has it and
        // `h % 32 == 0`; every column read was bounds-checked above.
        Path::Avx2 | Path::Vnni => unsafe { acc_update_avx2(w, src, dst, add, sub) },
        _ => acc_update_portable(w, src, dst, add, sub),
    }
}

fn acc_update_portable(w: &[i16], src: &[i16], dst: &mut [i16], add: &[u16], sub: &[u16]) {
    let h = src.len();
    dst.copy_from_slice(src);
    for &f in add {
        let col = &w[f as usize * h..(f as usize + 1) * h];
        for (d, &c) in dst.iter_mut().zip(col) {
            *d = d.wrapping_add(c);
        }
    }
    for &f in sub {
        let col = &w[f as usize * h..(f as usize + 1) * h];
        for (d, &c) in dst.iter_mut().zip(col) {
            *d = d.wrapping_sub(c);
        }
    }
}

/// 256 lanes (16 registers) at a time: each block is loaded once, gets every column
/// added or subtracted in registers, and is stored once; a remainder of less than 256
/// lanes goes 128 (a width of 384) and then 16 at a time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn acc_update_avx2(w: &[i16], src: &[i16], dst: &mut [i16], add: &[u16], sub: &[u16]) {
    let h = src.len();
    let mut base = 0;
    while base + 256 <= h {
        acc_block_avx2::<16>(w, src, dst, add, sub, base);
        base += 256;
    }
    if base + 128 <= h {
        acc_block_avx2::<8>(w, src, dst, add, sub, base);
        base += 128;
    }
    while base < h {
        acc_block_avx2::<1>(w, src, dst, add, sub, base);
        base += 16;
    }
}

/// One block of `16 · R` lanes from `base`. `R` is a constant so that the loops over the
/// registers unroll and the block stays in registers (with a run-time count it was kept
/// on the stack and copied on every call).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn acc_block_avx2<const R: usize>(
    w: &[i16],
    src: &[i16],
    dst: &mut [i16],
    add: &[u16],
    sub: &[u16],
    base: usize,
) {
    use std::arch::x86_64::*;
    let h = src.len();
    // SAFETY (whole block): the caller keeps base + 16·R ≤ h, and `acc_update` checked
    // that every column lies in `w`.
    let s = src.as_ptr().add(base);
    let mut r = [_mm256_setzero_si256(); R];
    for (k, reg) in r.iter_mut().enumerate() {
        *reg = _mm256_loadu_si256(s.add(16 * k) as *const __m256i);
    }
    for &f in add {
        let c = w.as_ptr().add(f as usize * h + base);
        for (k, reg) in r.iter_mut().enumerate() {
            *reg = _mm256_add_epi16(*reg, _mm256_loadu_si256(c.add(16 * k) as *const __m256i));
        }
    }
    for &f in sub {
        let c = w.as_ptr().add(f as usize * h + base);
        for (k, reg) in r.iter_mut().enumerate() {
            *reg = _mm256_sub_epi16(*reg, _mm256_loadu_si256(c.add(16 * k) as *const __m256i));
        }
    }
    let d = dst.as_mut_ptr().add(base);
    for (k, reg) in r.iter().enumerate() {
        _mm256_storeu_si256(d.add(16 * k) as *mut __m256i, *reg);
    }
}

// ---------------------------------------------------------------------------------------
// Feature-transformer activation
// ---------------------------------------------------------------------------------------

/// `out[i] = clamp((acc[i] +sat tab[i]) >> shift, 0, 127)`.
#[inline]
pub fn activate(path: Path, acc: &[i16], tab: &[i16], shift: u32, out: &mut [u8]) {
    let h = acc.len();
    assert!(
        tab.len() == h && out.len() == h && shift < 16,
        "activation sizes"
    );
    match path.for_width(h) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: AVX2 present and h % 32 == 0 (`for_width`); lengths checked above.
        Path::Avx2 | Path::Vnni => unsafe { activate_avx2(acc, tab, shift, out) },
        _ => activate_portable(acc, tab, shift, out),
    }
}

fn activate_portable(acc: &[i16], tab: &[i16], shift: u32, out: &mut [u8]) {
    for ((o, &a), &t) in out.iter_mut().zip(acc).zip(tab) {
        *o = (a.saturating_add(t) >> shift).clamp(0, ACT_MAX) as u8;
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn activate_avx2(acc: &[i16], tab: &[i16], shift: u32, out: &mut [u8]) {
    use std::arch::x86_64::*;
    let count = _mm_cvtsi32_si128(shift as i32);
    let zero = _mm256_setzero_si256();
    let top = _mm256_set1_epi16(ACT_MAX);
    let mut i = 0;
    while i < acc.len() {
        // SAFETY: i + 32 ≤ len (len % 32 == 0) for all three slices.
        let a0 = _mm256_loadu_si256(acc.as_ptr().add(i) as *const __m256i);
        let a1 = _mm256_loadu_si256(acc.as_ptr().add(i + 16) as *const __m256i);
        let t0 = _mm256_loadu_si256(tab.as_ptr().add(i) as *const __m256i);
        let t1 = _mm256_loadu_si256(tab.as_ptr().add(i + 16) as *const __m256i);
        let s0 = _mm256_sra_epi16(_mm256_adds_epi16(a0, t0), count);
        let s1 = _mm256_sra_epi16(_mm256_adds_epi16(a1, t1), count);
        let c0 = _mm256_min_epi16(_mm256_max_epi16(s0, zero), top);
        let c1 = _mm256_min_epi16(_mm256_max_epi16(s1, zero), top);
        // packus works per 128-bit lane; the permute restores the element order.
        let packed = _mm256_permute4x64_epi64(_mm256_packus_epi16(c0, c1), 0b11_01_10_00);
        _mm256_storeu_si256(out.as_mut_ptr().add(i) as *mut __m256i, packed);
        i += 32;
    }
}

/// Pairwise products at the accumulator's precision, as [`activate_squared`] squares: with
/// `c[i] = clamp(acc[i] +sat tab[i], 0, 127 · 2^shift)` and `a[i] = c[i] · 2^(8 − shift)`,
/// `out[i] = ((a[i] · a[i + h/2] >> 16) + 64) >> 7` for i < h/2 (0..=126). `shift` ≤ 3.
#[inline]
pub fn activate_pairwise(path: Path, acc: &[i16], tab: &[i16], shift: u32, out: &mut [u8]) {
    let h = acc.len();
    assert!(
        tab.len() == h && h.is_multiple_of(2) && out.len() == h / 2 && shift <= 3,
        "pairwise activation sizes"
    );
    match path.for_width(h / 2) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: AVX2 present and (h/2) % 32 == 0 (`for_width`); lengths checked above.
        Path::Avx2 | Path::Vnni => unsafe { activate_pairwise_avx2(acc, tab, shift, out) },
        _ => activate_pairwise_portable(acc, tab, shift, out),
    }
}

fn activate_pairwise_portable(acc: &[i16], tab: &[i16], shift: u32, out: &mut [u8]) {
    let half = acc.len() / 2;
    let a =
        |i: usize| (acc[i].saturating_add(tab[i]).clamp(0, ACT_MAX << shift) as u32) << (8 - shift);
    for (i, o) in out.iter_mut().enumerate() {
        *o = ((((a(i) * a(i + half)) >> 16) + 64) >> 7) as u8;
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn activate_pairwise_avx2(acc: &[i16], tab: &[i16], shift: u32, out: &mut [u8]) {
    use std::arch::x86_64::*;
    let half = acc.len() / 2;
    let no_shift = _mm_cvtsi32_si128(0);
    let up = _mm_cvtsi32_si128(8 - shift as i32);
    let zero = _mm256_setzero_si256();
    let top = _mm256_set1_epi16(ACT_MAX << shift);
    let round = _mm256_set1_epi16(64);
    // SAFETY: callers pass i + 16 ≤ acc.len() = tab.len().
    let scaled = |i: usize| _mm256_sll_epi16(clip16_avx2(acc, tab, i, no_shift, zero, top), up);
    let mut i = 0;
    while i < half {
        // a < 2^15, so (a · b) >> 16 ≤ 127² and + 64 stay inside u16.
        let p0 = _mm256_mulhi_epu16(scaled(i), scaled(i + half));
        let p1 = _mm256_mulhi_epu16(scaled(i + 16), scaled(i + 16 + half));
        let q0 = _mm256_srli_epi16(_mm256_add_epi16(p0, round), 7);
        let q1 = _mm256_srli_epi16(_mm256_add_epi16(p1, round), 7);
        // packus works per 128-bit lane; the permute restores the element order.
        let packed = _mm256_permute4x64_epi64(_mm256_packus_epi16(q0, q1), 0b11_01_10_00);
        _mm256_storeu_si256(out.as_mut_ptr().add(i) as *mut __m256i, packed);
        i += 32;
    }
}

/// Squared clipped ReLU at the accumulator's precision: with
/// `c[i] = clamp(acc[i] +sat tab[i], 0, 127 · 2^shift)` (127 · 2^shift is 1.0) and
/// `a = c[i] · 2^(8 − shift)` (< 2^15), `out[i] = ((a² >> 16) + 64) >> 7` (0..=126): the
/// square of the activation in units of 1/127, as `(c² + 64) >> 7` is for shift 0, but
/// without first rounding `c` to 1/127 (the square doubles that rounding error).
/// `shift` ≤ 3.
#[inline]
pub fn activate_squared(path: Path, acc: &[i16], tab: &[i16], shift: u32, out: &mut [u8]) {
    let h = acc.len();
    assert!(
        tab.len() == h && out.len() == h && shift <= 3,
        "squared activation sizes"
    );
    match path.for_width(h) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: AVX2 present and h % 32 == 0 (`for_width`); lengths checked above.
        Path::Avx2 | Path::Vnni => unsafe { activate_squared_avx2(acc, tab, shift, out) },
        _ => activate_squared_portable(acc, tab, shift, out),
    }
}

fn activate_squared_portable(acc: &[i16], tab: &[i16], shift: u32, out: &mut [u8]) {
    for ((o, &a), &t) in out.iter_mut().zip(acc).zip(tab) {
        let c = a.saturating_add(t).clamp(0, ACT_MAX << shift) as u32;
        let a = c << (8 - shift);
        *o = ((((a * a) >> 16) + 64) >> 7) as u8;
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn activate_squared_avx2(acc: &[i16], tab: &[i16], shift: u32, out: &mut [u8]) {
    use std::arch::x86_64::*;
    let no_shift = _mm_cvtsi32_si128(0);
    let up = _mm_cvtsi32_si128(8 - shift as i32);
    let zero = _mm256_setzero_si256();
    let top = _mm256_set1_epi16(ACT_MAX << shift);
    let round = _mm256_set1_epi16(64);
    // a = c · 2^(8 − shift) < 2^15; (a² >> 16) ≤ 127² and + 64 stay inside u16.
    let square = |c: __m256i| {
        let a = _mm256_sll_epi16(c, up);
        _mm256_srli_epi16(_mm256_add_epi16(_mm256_mulhi_epu16(a, a), round), 7)
    };
    let mut i = 0;
    while i < acc.len() {
        // SAFETY: i + 32 ≤ len (len % 32 == 0) for all three slices.
        let c0 = clip16_avx2(acc, tab, i, no_shift, zero, top);
        let c1 = clip16_avx2(acc, tab, i + 16, no_shift, zero, top);
        let q0 = square(c0);
        let q1 = square(c1);
        // packus works per 128-bit lane; the permute restores the element order.
        let packed = _mm256_permute4x64_epi64(_mm256_packus_epi16(q0, q1), 0b11_01_10_00);
        _mm256_storeu_si256(out.as_mut_ptr().add(i) as *mut __m256i, packed);
        i += 32;
    }
}

/// `clamp((acc[i..i+16] +sat tab[i..i+16]) >> count, zero, top)`; needs i + 16 ≤ both
/// lengths.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn clip16_avx2(
    acc: &[i16],
    tab: &[i16],
    i: usize,
    count: std::arch::x86_64::__m128i,
    zero: std::arch::x86_64::__m256i,
    top: std::arch::x86_64::__m256i,
) -> std::arch::x86_64::__m256i {
    use std::arch::x86_64::*;
    debug_assert!(i + 16 <= acc.len() && i + 16 <= tab.len());
    // SAFETY: i + 16 ≤ both lengths (the caller's contract).
    let a = _mm256_loadu_si256(acc.as_ptr().add(i) as *const __m256i);
    let t = _mm256_loadu_si256(tab.as_ptr().add(i) as *const __m256i);
    let s = _mm256_sra_epi16(_mm256_adds_epi16(a, t), count);
    _mm256_min_epi16(_mm256_max_epi16(s, zero), top)
}

// ---------------------------------------------------------------------------------------
// Head layer 1: sparse u8 × i8
// ---------------------------------------------------------------------------------------

/// The `l1` weights (i8) of `width` outputs ([`L1_WIDTHS`]) in two layouts: grouped by
/// four inputs for the SIMD kernels (one group of inputs meets one contiguous block of
/// `4 · width` bytes), and one row of `width` outputs per input for the portable kernel.
pub struct L1Weights {
    /// Outputs: 32 or 16.
    pub width: usize,
    /// `[inputs/4][width][4]`.
    pub grouped: Vec<i8>,
    /// `[inputs][width]`.
    pub by_input: Vec<i8>,
}

impl L1Weights {
    /// From `w(output, input)` for `inputs` inputs and `width` outputs (one of
    /// [`L1_WIDTHS`]; panics otherwise).
    pub fn new(inputs: usize, width: usize, w: impl Fn(usize, usize) -> i8) -> Self {
        assert!(L1_WIDTHS.contains(&width), "unsupported l1 width {width}");
        let mut grouped = vec![0i8; inputs * width];
        let mut by_input = vec![0i8; inputs * width];
        for i in 0..inputs {
            for o in 0..width {
                grouped[(i / 4 * width + o) * 4 + i % 4] = w(o, i);
                by_input[i * width + o] = w(o, i);
            }
        }
        L1Weights {
            width,
            grouped,
            by_input,
        }
    }
}

/// `out[o] = bias[o] + Σ_i x[i] · w(o, i)` over inputs `x` in 0..=127 and weights in
/// −127..=127 (so `vpmaddubsw` never saturates), for the `w.width` outputs; the rest of
/// `out` is `bias`. Groups of four inputs that are all zero are skipped: their indices
/// are listed first (without branches), then the list is walked. `groups` is scratch
/// space of `x.len()/4 + 8` entries.
#[inline]
pub fn l1_sparse(
    path: Path,
    x: &[u8],
    w: &L1Weights,
    bias: &[i32; OUT],
    groups: &mut [u16],
    out: &mut [i32; OUT],
) {
    let grouped = &w.grouped;
    let width = w.width;
    assert!(
        x.len().is_multiple_of(4) && grouped.len() == x.len() * width,
        "l1 sizes"
    );
    assert!(
        w.by_input.len() == grouped.len(),
        "l1 layouts differ in size"
    );
    assert!(groups.len() >= x.len() / 4 + 8, "group list too short");
    match path.for_width(x.len()) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: AVX2 present and x.len() % 32 == 0 (`for_width`); sizes checked above;
        // `nonzero_groups_avx2` writes at most x.len()/4 + 8 entries.
        // The register count follows `width`, which `L1Weights::new` keeps to 16 or 32.
        Path::Avx2 => unsafe {
            let n = nonzero_groups_avx2(x, groups);
            if width == 16 {
                l1_groups_avx2::<2>(x, grouped, &groups[..n], bias, out)
            } else {
                l1_groups_avx2::<4>(x, grouped, &groups[..n], bias, out)
            }
        },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above; `Vnni` is only returned when the CPU has AVX-512 VNNI + VL.
        Path::Vnni => unsafe {
            let n = nonzero_groups_avx2(x, groups);
            if width == 16 {
                l1_groups_vnni::<2, 8>(x, grouped, &groups[..n], bias, out)
            } else {
                l1_groups_vnni::<4, 4>(x, grouped, &groups[..n], bias, out)
            }
        },
        _ => l1_sparse_portable(x, &w.by_input, width, bias, out),
    }
}

/// One nonzero input at a time (about half are zero), its row of `width` weights added
/// to the sums: a fixed-width loop the compiler vectorises on any target.
fn l1_sparse_portable(x: &[u8], w: &[i8], width: usize, bias: &[i32; OUT], out: &mut [i32; OUT]) {
    *out = *bias;
    if width == 16 {
        l1_rows_portable::<16>(x, w, out);
    } else {
        l1_rows_portable::<32>(x, w, out);
    }
}

fn l1_rows_portable<const W: usize>(x: &[u8], w: &[i8], out: &mut [i32; OUT]) {
    let out: &mut [i32; W] = (&mut out[..W]).try_into().expect("W ≤ 32");
    for (&xi, row) in x.iter().zip(w.chunks_exact(W)) {
        if xi == 0 {
            continue;
        }
        let row: &[i8; W] = row.try_into().expect("row of W");
        for (acc, &wo) in out.iter_mut().zip(row) {
            *acc += xi as i32 * wo as i32;
        }
    }
}

/// For each byte mask of eight groups, the positions of its set bits.
static BIT_POSITIONS: [[u16; 8]; 256] = {
    let mut table = [[0u16; 8]; 256];
    let mut mask = 0;
    while mask < 256 {
        let (mut bit, mut n) = (0, 0);
        while bit < 8 {
            if mask & (1 << bit) != 0 {
                table[mask][n] = bit as u16;
                n += 1;
            }
            bit += 1;
        }
        mask += 1;
    }
    table
};

/// Writes the indices of the groups of four inputs that are not all zero to `out` and
/// returns how many there are. Needs `x.len() % 32 == 0` and `out.len() ≥ x.len()/4 + 8`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn nonzero_groups_avx2(x: &[u8], out: &mut [u16]) -> usize {
    use std::arch::x86_64::*;
    let zero = _mm256_setzero_si256();
    let mut n = 0;
    let mut first = 0;
    let groups = x.len() / 4;
    while first < groups {
        // SAFETY: first + 8 ≤ groups and n + 8 ≤ out.len().
        let v = _mm256_loadu_si256(x.as_ptr().add(4 * first) as *const __m256i);
        let zeros = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(v, zero)));
        let mask = (!zeros & 0xff) as usize;
        let positions = _mm_loadu_si128(BIT_POSITIONS[mask].as_ptr() as *const __m128i);
        let indices = _mm_add_epi16(positions, _mm_set1_epi16(first as i16));
        _mm_storeu_si128(out.as_mut_ptr().add(n) as *mut __m128i, indices);
        n += mask.count_ones() as usize;
        first += 8;
    }
    n
}

/// The listed groups, two at a time into two sets of accumulators (so the additions of
/// consecutive groups do not wait on each other); `R` registers of eight i32 outputs
/// (`w` is laid out for `8 · R` outputs).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn l1_groups_avx2<const R: usize>(
    x: &[u8],
    w: &[i8],
    groups: &[u16],
    bias: &[i32; OUT],
    out: &mut [i32; OUT],
) {
    use std::arch::x86_64::*;
    let ones = _mm256_set1_epi16(1);
    let bp = bias.as_ptr() as *const __m256i;
    // SAFETY (whole function): R ≤ 4 and `bias`/`out` hold 32 i32 = 4 registers; every
    // listed group g < x.len()/4 reads x[4g .. 4g + 4] and the 32R bytes of
    // w[32Rg .. 32R(g + 1)].
    let mut a: [__m256i; R] = std::array::from_fn(|k| _mm256_loadu_si256(bp.add(k)));
    let mut b = [_mm256_setzero_si256(); R];
    let xp = x.as_ptr();
    let wp = w.as_ptr();
    let one_group = |acc: &mut [__m256i; R], g: u16| {
        let g = g as usize;
        let inputs = _mm256_set1_epi32((xp.add(4 * g) as *const i32).read_unaligned());
        let block = wp.add(g * 32 * R) as *const __m256i;
        for (k, r) in acc.iter_mut().enumerate() {
            let pairs = _mm256_maddubs_epi16(inputs, _mm256_loadu_si256(block.add(k)));
            *r = _mm256_add_epi32(*r, _mm256_madd_epi16(pairs, ones));
        }
    };
    let mut two = groups.chunks_exact(2);
    for both in &mut two {
        one_group(&mut a, both[0]);
        one_group(&mut b, both[1]);
    }
    if let [g] = two.remainder() {
        one_group(&mut a, *g);
    }
    let op = out.as_mut_ptr() as *mut __m256i;
    for k in 0..R {
        _mm256_storeu_si256(op.add(k), _mm256_add_epi32(a[k], b[k]));
    }
    for k in R..4 {
        _mm256_storeu_si256(op.add(k), _mm256_loadu_si256(bp.add(k)));
    }
}

/// [`l1_groups_avx2`] with `vpdpbusd` (four u8 × i8 products summed into i32 in one
/// instruction), `S` groups at a time into `S` sets of `R` accumulators: `R · S` = 16
/// independent sums cover the instruction's latency (5 cycles at 2 per cycle), also
/// for a 16-wide `l1` (R = 2, S = 8).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,avx512vnni,avx512vl")]
#[allow(clippy::needless_range_loop)] // register k of the sets reads clearer by index
unsafe fn l1_groups_vnni<const R: usize, const S: usize>(
    x: &[u8],
    w: &[i8],
    groups: &[u16],
    bias: &[i32; OUT],
    out: &mut [i32; OUT],
) {
    use std::arch::x86_64::*;
    let bp = bias.as_ptr() as *const __m256i;
    // SAFETY (whole function): as in `l1_groups_avx2`.
    let mut sets = [[_mm256_setzero_si256(); R]; S];
    for k in 0..R {
        sets[0][k] = _mm256_loadu_si256(bp.add(k));
    }
    let xp = x.as_ptr();
    let wp = w.as_ptr();
    let one_group = |acc: &mut [__m256i; R], g: u16| {
        let g = g as usize;
        let inputs = _mm256_set1_epi32((xp.add(4 * g) as *const i32).read_unaligned());
        let block = wp.add(g * 32 * R) as *const __m256i;
        for (k, r) in acc.iter_mut().enumerate() {
            *r = _mm256_dpbusd_epi32(*r, inputs, _mm256_loadu_si256(block.add(k)));
        }
    };
    let mut chunks = groups.chunks_exact(S);
    for chunk in &mut chunks {
        for (set, &g) in sets.iter_mut().zip(chunk) {
            one_group(set, g);
        }
    }
    for (set, &g) in sets.iter_mut().zip(chunks.remainder()) {
        one_group(set, g);
    }
    let op = out.as_mut_ptr() as *mut __m256i;
    for k in 0..R {
        let mut sum = sets[0][k];
        for set in &sets[1..] {
            sum = _mm256_add_epi32(sum, set[k]);
        }
        _mm256_storeu_si256(op.add(k), sum);
    }
    for k in R..4 {
        _mm256_storeu_si256(op.add(k), _mm256_loadu_si256(bp.add(k)));
    }
}

// ---------------------------------------------------------------------------------------
// Head layer 2: dense i16 × i16
// ---------------------------------------------------------------------------------------

/// `out[o] = bias[o] + Σ_i x[i] · w[(i/2 · 32 + o) · 2 + i%2]` for the first `inputs`
/// inputs (the width of `l1`, even and at most 32).
#[inline]
pub fn l2_dense(
    path: Path,
    x: &[i16; OUT],
    inputs: usize,
    w: &[i16],
    bias: &[i32; OUT],
    out: &mut [i32; OUT],
) {
    assert!(w.len() == OUT * OUT, "l2 sizes");
    assert!(inputs.is_multiple_of(2) && inputs <= OUT, "l2 inputs");
    match path.for_width(OUT) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU has AVX2 (`for_width`); sizes are fixed by the types and
        // checked above.
        Path::Avx2 | Path::Vnni => unsafe { l2_dense_avx2(x, inputs, w, bias, out) },
        _ => l2_dense_portable(x, inputs, w, bias, out),
    }
}

fn l2_dense_portable(
    x: &[i16; OUT],
    inputs: usize,
    w: &[i16],
    bias: &[i32; OUT],
    out: &mut [i32; OUT],
) {
    *out = *bias;
    for (pair, xs) in x[..inputs].chunks_exact(2).enumerate() {
        let block = &w[pair * 2 * OUT..(pair + 1) * 2 * OUT];
        for (o, ws) in out.iter_mut().zip(block.chunks_exact(2)) {
            *o += xs[0] as i32 * ws[0] as i32 + xs[1] as i32 * ws[1] as i32;
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn l2_dense_avx2(
    x: &[i16; OUT],
    inputs: usize,
    w: &[i16],
    bias: &[i32; OUT],
    out: &mut [i32; OUT],
) {
    use std::arch::x86_64::*;
    let bp = bias.as_ptr() as *const __m256i;
    // SAFETY: 32 i32 / 32 i16 arrays and a 1024-entry weight block (checked by caller).
    let mut acc = [
        _mm256_loadu_si256(bp),
        _mm256_loadu_si256(bp.add(1)),
        _mm256_loadu_si256(bp.add(2)),
        _mm256_loadu_si256(bp.add(3)),
    ];
    let xp = x.as_ptr() as *const i32;
    for pair in 0..inputs / 2 {
        let xs = _mm256_set1_epi32(xp.add(pair).read_unaligned());
        let wp = w.as_ptr().add(pair * 2 * OUT) as *const __m256i;
        for (k, a) in acc.iter_mut().enumerate() {
            *a = _mm256_add_epi32(*a, _mm256_madd_epi16(xs, _mm256_loadu_si256(wp.add(k))));
        }
    }
    let op = out.as_mut_ptr() as *mut __m256i;
    for (k, a) in acc.iter().enumerate() {
        _mm256_storeu_si256(op.add(k), *a);
    }
}

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
                let mut pair = vec![0u8; h / 2];
                activate_pairwise(p, &src, &tab, 3, &mut pair);
                let mut squared = vec![0u8; h];
                activate_squared(p, &src, &tab, 3, &mut squared);
                results.push((dst, x, s1, s2, pair, squared));
            }
            for r in &results[1..] {
                assert_eq!(r, &results[0], "h = {h}, width {width}");
            }
            // The portable results are what the definitions say.
            let (dst, x, s1, s2, pair, squared) = &results[0];
            for (i, &v) in pair.iter().enumerate() {
                // Multiplied before the shift of 3, as the squares below.
                let a = |i: usize| (src[i] as i32 + tab[i] as i32).clamp(0, 127 << 3) << 5;
                assert_eq!(
                    v as i32,
                    (((a(i) * a(i + h / 2)) >> 16) + 64) >> 7,
                    "pair {i}"
                );
            }
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
            assert!(
                pair.iter().any(|&v| v > 60),
                "some products should be large"
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

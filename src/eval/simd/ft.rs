//! The feature transformer's kernels: the accumulator update and the activations.

use super::{Path, ACT_MAX};

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

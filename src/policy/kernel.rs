//! The policy's second layer, from the integer first layer's sums to the position vector:
//! `out = bias + Σ ReLU(sums[i] / scale) · weights row i`, in two versions that give the
//! same floats bit for bit (the same products and sums in the same order, no fused
//! multiply-add): AVX2 intrinsics for the 64-wide position vector of every trained net,
//! and plain Rust for any width or CPU.
//!
//! About half the units are zero after the ReLU. A branch per unit on such a coin flip
//! mispredicts half the time, which cost more than the products, so the positive units
//! are read off a bit mask; and the 64 outputs stay in eight registers across all units
//! (the compiler's version of the loop kept them in memory).

use crate::eval::simd::Path;

/// The position-vector width that has an AVX2 kernel.
pub const SIMD_WIDTH: usize = 64;

/// `out = bias + Σ_{sums[i] > 0} (sums[i] · unit) · weights[i·d .. (i+1)·d]`, units in
/// increasing order, where `d = out.len()`.
pub fn second_layer(
    path: Path,
    sums: &[i16],
    unit: f32,
    weights: &[f32],
    bias: &[f32],
    out: &mut [f32],
) {
    let d = out.len();
    assert!(
        bias.len() == d && weights.len() == sums.len() * d,
        "second layer sizes"
    );
    #[cfg(target_arch = "x86_64")]
    if path != Path::Portable && path.available() && d == SIMD_WIDTH {
        // SAFETY: the CPU has AVX2 (`available`); sizes checked above.
        unsafe { second_layer_avx2(sums, unit, weights, bias, out) };
        return;
    }
    let _ = path;
    second_layer_portable(sums, unit, weights, bias, out);
}

fn second_layer_portable(sums: &[i16], unit: f32, weights: &[f32], bias: &[f32], out: &mut [f32]) {
    let d = out.len();
    out.copy_from_slice(bias);
    for (i, &s) in sums.iter().enumerate() {
        if s > 0 {
            let x = s as f32 * unit;
            let row = &weights[i * d..(i + 1) * d];
            out.iter_mut().zip(row).for_each(|(o, w)| *o += x * w);
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn second_layer_avx2(
    sums: &[i16],
    unit: f32,
    weights: &[f32],
    bias: &[f32],
    out: &mut [f32],
) {
    use std::arch::x86_64::*;
    const REGS: usize = SIMD_WIDTH / 8;
    let mut acc = [_mm256_setzero_ps(); REGS];
    for (k, a) in acc.iter_mut().enumerate() {
        *a = _mm256_loadu_ps(bias.as_ptr().add(8 * k));
    }
    let mut add_unit = |i: usize| {
        let x = _mm256_set1_ps(sums[i] as f32 * unit);
        let row = weights.as_ptr().add(i * SIMD_WIDTH);
        for (k, a) in acc.iter_mut().enumerate() {
            *a = _mm256_add_ps(*a, _mm256_mul_ps(x, _mm256_loadu_ps(row.add(8 * k))));
        }
    };
    let zero = _mm256_setzero_si256();
    let whole = sums.len() / 16 * 16;
    for base in (0..whole).step_by(16) {
        let v = _mm256_loadu_si256(sums.as_ptr().add(base) as *const __m256i);
        // Two mask bits per positive i16 lane.
        let mut mask = _mm256_movemask_epi8(_mm256_cmpgt_epi16(v, zero)) as u32;
        while mask != 0 {
            let bit = mask.trailing_zeros();
            add_unit(base + bit as usize / 2);
            mask &= !(3 << bit);
        }
    }
    for (i, &s) in sums.iter().enumerate().skip(whole) {
        if s > 0 {
            add_unit(i);
        }
    }
    for (k, a) in acc.iter().enumerate() {
        _mm256_storeu_ps(out.as_mut_ptr().add(8 * k), *a);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    #[test]
    fn every_version_gives_the_same_floats() {
        let mut rng = StdRng::seed_from_u64(3);
        for (hidden, d) in [(512, 64), (24, 64), (40, 12), (16, 8)] {
            let weights: Vec<f32> = (0..hidden * d).map(|_| rng.gen_range(-0.4..0.4)).collect();
            let bias: Vec<f32> = (0..d).map(|_| rng.gen_range(-0.4..0.4)).collect();
            for _ in 0..20 {
                let sums: Vec<i16> = (0..hidden).map(|_| rng.gen_range(-3000..3000)).collect();
                let mut reference = vec![0f32; d];
                second_layer_portable(&sums, 1.0 / 800.0, &weights, &bias, &mut reference);
                for path in Path::all_available() {
                    let mut out = vec![f32::NAN; d];
                    second_layer(path, &sums, 1.0 / 800.0, &weights, &bias, &mut out);
                    assert_eq!(out, reference, "{path:?}, {hidden} → {d}");
                }
                // Against the definition, in f64.
                for (j, &r) in reference.iter().enumerate() {
                    let exact: f64 = bias[j] as f64
                        + (0..hidden)
                            .filter(|&i| sums[i] > 0)
                            .map(|i| sums[i] as f64 / 800.0 * weights[i * d + j] as f64)
                            .sum::<f64>();
                    assert!((r as f64 - exact).abs() < 1e-3, "{r} vs {exact}");
                }
            }
        }
    }
}

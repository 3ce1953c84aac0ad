//! The head's kernels: the sparse `l1` (u8 × i8) and the dense `l2` (i16 × i16).

use super::{Path, OUT};
use crate::eval::shape::L1_WIDTHS;

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

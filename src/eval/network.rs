//! The network: its candle-nn definition (the trainer's model and the reference forward
//! pass), loading from safetensors with validation, and the quantised copy of the same
//! weights that the fast hand-written kernel in the search uses.
//!
//! Architecture: 782 inputs per perspective → feature transformer (`ft`, shared by both
//! perspectives) with H outputs → clipped ReLU → concatenation [side to move, other]
//! (2H) → `l1` (32) → CReLU → `l2` (32) → CReLU → `out` (1). The output `y` is in units
//! of `scale` centipawns: the win probability the net was trained on is `sigmoid(y)` and
//! the evaluation is `y * scale` centipawns.
//!
//! Quantisation (kernel only; candle stays f32): feature-transformer weights and biases
//! are multiplied by `qa` and stored as i16 (the accumulator), so the CReLU output is an
//! integer in 0..=qa. `l1` weights are multiplied by `qb` and stored as i16; the `l1` dot
//! product is exact in i32 and is divided by `qa * qb`. `l2` and `out` run in f32. The
//! scales are chosen per network at load time as large as the ranges allow (see
//! [`choose_scales`]); at least [`QA`] = 256 and [`QB`] = 512, which training's weight
//! clipping guarantees to fit. The side-to-move feature (768) and the halfmove clock (781)
//! are not kept in the accumulator: a table of 101 rows per half holds
//! `round(qa * (w768? + w781 * hmc / 100))` and is added while applying the CReLU.

use candle_core::{DType, Device, Module, Tensor};
use candle_nn::{linear, Linear, VarBuilder};
use std::collections::HashMap;

use super::features::{self, HMC, INPUTS, STM};

/// Size of the first head layer.
pub const L1: usize = 32;
/// Size of the second head layer.
pub const L2: usize = 32;
/// Smallest quantisation scale of the feature transformer (CReLU 1.0 ↔ qa).
pub const QA: i32 = 256;
/// Smallest quantisation scale of the `l1` weights.
pub const QB: i32 = 512;
/// Largest scales used (keeps CReLU outputs and weights well inside i16).
pub const QA_MAX: i32 = 1024;
pub const QB_MAX: i32 = 8192;

/// Per-network quantisation scales `(qa, qb)`: the largest powers of two up to the maxima
/// such that (1) no accumulator can leave i16: for every hidden unit,
/// `qa · (|bias| + the 38 largest |weights| over features 0..781) ≤ 32,000`, and (2) the
/// l1 sums stay in i32: `2H · qa · max|l1| · qb ≤ 2^30`, with `qb · max|l1| ≤ 32,000`.
/// Weight clipping at ±2 during training guarantees that (256, 512) fit for H ≤ 256;
/// an error if even the smallest scales do not fit.
pub fn choose_scales(
    ftw: &[Vec<f32>],
    ftb: &[f32],
    l1w: &[Vec<f32>],
) -> Result<(i32, i32), String> {
    let mut worst = 0f32;
    for (row, &b) in ftw.iter().zip(ftb) {
        let mut mags: Vec<f32> = row[..STM]
            .iter()
            .chain(&row[STM + 1..HMC])
            .map(|w| w.abs())
            .collect();
        mags.sort_by(|a, b| b.total_cmp(a));
        let bound = b.abs() + mags.iter().take(features::MAX_ACTIVE).sum::<f32>();
        worst = worst.max(bound);
    }
    let mut qa = QA_MAX;
    while qa > QA && qa as f32 * worst > 32_000.0 {
        qa /= 2;
    }
    let l1max = l1w
        .iter()
        .flatten()
        .fold(0f32, |m, w| m.max(w.abs()))
        .max(1e-6);
    let inputs = l1w.first().map_or(1, |r| r.len()) as f32;
    let mut qb = QB_MAX;
    while qb > QB
        && (qb as f32 * l1max > 32_000.0
            || inputs * qa as f32 * l1max * qb as f32 > (1u64 << 30) as f32)
    {
        qb /= 2;
    }
    if qa as f32 * worst > 32_000.0
        || qb as f32 * l1max > 32_000.0
        || inputs * qa as f32 * l1max * qb as f32 > (1u64 << 30) as f32
    {
        return Err("weights too large for the i16/i32 kernel (train with clipping)".into());
    }
    Ok((qa, qb))
}
/// Training keeps `ft` weights/biases and `l1` weights inside ±WEIGHT_CLIP, so the i16
/// accumulator (at most 39 × 2 × 255 = 19,890) and the i32 `l1` sums cannot overflow.
pub const WEIGHT_CLIP: f32 = 2.0;
/// Default cp-per-output-unit when a file has no `scale` tensor.
pub const DEFAULT_SCALE: f32 = 400.0;
/// Largest halfmove clock value the input distinguishes.
pub const HMC_MAX: usize = 100;

/// Clipped ReLU on a candle tensor.
pub fn crelu(x: &Tensor) -> candle_core::Result<Tensor> {
    x.clamp(0f32, 1f32)
}

/// The network as a candle-nn model (f32). Tensor names in the safetensors file:
/// `ft.weight` [H, 782], `ft.bias` [H], `l1.weight` [32, 2H], `l1.bias` [32],
/// `l2.weight` [32, 32], `l2.bias` [32], `out.weight` [1, 32], `out.bias` [1],
/// and optionally `scale` [1].
pub struct Model {
    pub ft: Linear,
    pub l1: Linear,
    pub l2: Linear,
    pub out: Linear,
    pub hidden: usize,
}

impl Model {
    /// Builds (or loads, depending on `vb`) a model with `hidden` accumulator outputs.
    pub fn new(vb: VarBuilder, hidden: usize) -> candle_core::Result<Self> {
        Ok(Model {
            ft: linear(INPUTS, hidden, vb.pp("ft"))?,
            l1: linear(2 * hidden, L1, vb.pp("l1"))?,
            l2: linear(L1, L2, vb.pp("l2"))?,
            out: linear(L2, 1, vb.pp("out"))?,
            hidden,
        })
    }

    /// The head after the feature transformer: `acc_stm`, `acc_other` are [B, H]
    /// pre-activation accumulators; returns [B, 1] raw outputs.
    pub fn head(&self, acc_stm: &Tensor, acc_other: &Tensor) -> candle_core::Result<Tensor> {
        let x = Tensor::cat(&[crelu(acc_stm)?, crelu(acc_other)?], 1)?;
        let x = crelu(&self.l1.forward(&x)?)?;
        let x = crelu(&self.l2.forward(&x)?)?;
        self.out.forward(&x)
    }

    /// Dense forward pass: `stm`, `other` are [B, 782] feature matrices.
    pub fn forward(&self, stm: &Tensor, other: &Tensor) -> candle_core::Result<Tensor> {
        self.head(&self.ft.forward(stm)?, &self.ft.forward(other)?)
    }
}

/// Quantised weights for the search kernel (see the module docs).
pub struct Quantised {
    pub hidden: usize,
    /// Accumulator scale (CReLU 1.0 ↔ qa).
    pub qa: i32,
    /// `l1` weight scale.
    pub qb: i32,
    /// Column per feature: `ft_w[f * H .. (f + 1) * H]`.
    pub ft_w: Vec<i16>,
    pub ft_b: Vec<i16>,
    /// `[hmc][H]`: what the side-to-move half adds (w768 + w781 · hmc/100).
    pub tab_stm: Vec<i16>,
    /// `[hmc][H]`: what the other half adds (w781 · hmc/100).
    pub tab_other: Vec<i16>,
    /// Row per output: `l1_w[o * 2H .. (o + 1) * 2H]`.
    pub l1_w: Vec<i16>,
    pub l1_b: [f32; L1],
    /// Transposed: `l2_wt[input][output]`.
    pub l2_wt: [[f32; L2]; L1],
    pub l2_b: [f32; L2],
    pub out_w: [f32; L2],
    pub out_b: f32,
}

/// A loaded network: the candle model (reference) and its quantised copy (kernel).
pub struct Network {
    pub name: String,
    pub bytes: usize,
    pub scale: f32,
    pub model: Model,
    pub q: Quantised,
}

fn ce(context: &str) -> impl Fn(candle_core::Error) -> String + '_ {
    move |e| format!("{context}: {e}")
}

fn q16(x: f32, scale: i32) -> i16 {
    (x * scale as f32)
        .round()
        .clamp(i16::MIN as f32, i16::MAX as f32) as i16
}

impl Network {
    /// Parses and validates a safetensors network. `name` is used in descriptions.
    pub fn from_bytes(bytes: &[u8], name: &str) -> Result<Network, String> {
        let tensors = candle_core::safetensors::load_buffer(bytes, &Device::Cpu)
            .map_err(|e| format!("{name}: not a safetensors file ({e})"))?;
        Self::from_tensors(tensors, name, bytes.len())
    }

    /// Builds a network from named tensors (as saved by the trainer).
    pub fn from_tensors(
        tensors: HashMap<String, Tensor>,
        name: &str,
        bytes: usize,
    ) -> Result<Network, String> {
        let hidden = match tensors.get("ft.bias") {
            Some(t) => t.dims1().map_err(ce("ft.bias must be 1-D"))?,
            None => {
                return Err(format!(
                    "{name}: missing tensor 'ft.bias' (not a Rookery network?)"
                ))
            }
        };
        if hidden == 0 || hidden > 4096 {
            return Err(format!("{name}: unsupported hidden size {hidden}"));
        }
        let scale = match tensors.get("scale") {
            Some(t) => t
                .to_dtype(DType::F32)
                .and_then(|t| t.flatten_all())
                .and_then(|t| t.to_vec1::<f32>())
                .map_err(ce("bad 'scale' tensor"))?
                .first()
                .copied()
                .ok_or_else(|| format!("{name}: empty 'scale' tensor"))?,
            None => DEFAULT_SCALE,
        };
        if !(scale.is_finite() && scale > 0.0) {
            return Err(format!("{name}: bad scale {scale}"));
        }
        let vb = VarBuilder::from_tensors(tensors, DType::F32, &Device::Cpu);
        let model = Model::new(vb, hidden).map_err(|e| format!("{name}: {e}"))?;
        let q = Self::quantise(&model).map_err(|e| format!("{name}: {e}"))?;
        Ok(Network {
            name: name.to_string(),
            bytes,
            scale,
            model,
            q,
        })
    }

    fn quantise(model: &Model) -> Result<Quantised, String> {
        let h = model.hidden;
        let get2 = |t: &Tensor, what: &str| -> Result<Vec<Vec<f32>>, String> {
            t.to_vec2::<f32>().map_err(|e| format!("{what}: {e}"))
        };
        let get1 = |t: Option<&Tensor>, what: &str| -> Result<Vec<f32>, String> {
            t.ok_or_else(|| format!("{what} missing"))?
                .to_vec1::<f32>()
                .map_err(|e| format!("{what}: {e}"))
        };
        let ftw = get2(model.ft.weight(), "ft.weight")?;
        let ftb = get1(model.ft.bias(), "ft.bias")?;
        let l1w = get2(model.l1.weight(), "l1.weight")?;
        let l1b = get1(model.l1.bias(), "l1.bias")?;
        let l2w = get2(model.l2.weight(), "l2.weight")?;
        let l2b = get1(model.l2.bias(), "l2.bias")?;
        let ow = get2(model.out.weight(), "out.weight")?;
        let ob = get1(model.out.bias(), "out.bias")?;
        let all = ftw.iter().flatten().chain(&ftb).chain(l1w.iter().flatten());
        let all = all
            .chain(&l1b)
            .chain(l2w.iter().flatten())
            .chain(&l2b)
            .chain(ow.iter().flatten());
        if let Some(x) = all.chain(&ob).find(|x| !x.is_finite()) {
            return Err(format!("non-finite weight {x}"));
        }
        let limit = WEIGHT_CLIP + 1e-3;
        if ftw
            .iter()
            .flatten()
            .chain(&ftb)
            .chain(l1w.iter().flatten())
            .any(|x| x.abs() > limit)
        {
            return Err(format!(
                "ft/l1 weights exceed the quantisation range ±{WEIGHT_CLIP} (train with clipping)"
            ));
        }
        let (qa, qb) = choose_scales(&ftw, &ftb, &l1w)?;
        let mut ft_w = vec![0i16; INPUTS * h];
        for (j, row) in ftw.iter().enumerate() {
            for (f, &w) in row.iter().enumerate() {
                ft_w[f * h + j] = q16(w, qa);
            }
        }
        let ft_b = ftb.iter().map(|&b| q16(b, qa)).collect();
        let mut tab_stm = vec![0i16; (HMC_MAX + 1) * h];
        let mut tab_other = vec![0i16; (HMC_MAX + 1) * h];
        for c in 0..=HMC_MAX {
            let v = c as f32 / HMC_MAX as f32;
            for j in 0..h {
                tab_stm[c * h + j] = q16(ftw[j][STM] + ftw[j][HMC] * v, qa);
                tab_other[c * h + j] = q16(ftw[j][HMC] * v, qa);
            }
        }
        let l1_w = l1w.iter().flatten().map(|&w| q16(w, qb)).collect();
        let mut q = Quantised {
            hidden: h,
            qa,
            qb,
            ft_w,
            ft_b,
            tab_stm,
            tab_other,
            l1_w,
            l1_b: [0.0; L1],
            l2_wt: [[0.0; L2]; L1],
            l2_b: [0.0; L2],
            out_w: [0.0; L2],
            out_b: ob[0],
        };
        q.l1_b.copy_from_slice(&l1b);
        for (o, row) in l2w.iter().enumerate() {
            for (i, &w) in row.iter().enumerate() {
                q.l2_wt[i][o] = w;
            }
        }
        q.l2_b.copy_from_slice(&l2b);
        q.out_w.copy_from_slice(&ow[0]);
        Ok(q)
    }

    /// "name (size KiB, architecture)" for `info string` and logs.
    pub fn description(&self) -> String {
        format!(
            "{} ({} KiB, (782->{})x2->{}->{}->1, scale {}, q {}/{})",
            self.name,
            self.bytes.div_ceil(1024),
            self.q.hidden,
            L1,
            L2,
            self.scale,
            self.q.qa,
            self.q.qb
        )
    }

    /// Reference evaluation with candle (f32, dense features): centipawns from the
    /// side to move's point of view, not rounded or clamped.
    pub fn reference_cp(&self, board: &cozy_chess::Board) -> Result<f32, String> {
        let stm = board.side_to_move();
        let dev = Device::Cpu;
        let a = Tensor::from_vec(features::dense(board, stm), (1, INPUTS), &dev);
        let b = Tensor::from_vec(features::dense(board, !stm), (1, INPUTS), &dev);
        let y = a
            .and_then(|a| b.and_then(|b| self.model.forward(&a, &b)))
            .and_then(|y| y.flatten_all())
            .and_then(|y| y.to_vec1::<f32>())
            .map_err(|e| format!("candle forward: {e}"))?;
        Ok(y[0] * self.scale)
    }
}

impl Quantised {
    /// Raw network output `y` (cp / scale) from two accumulators (side to move first) and
    /// the clamped halfmove clock. `x` is scratch space of length 2H.
    #[inline(always)]
    fn forward_inner(&self, us: &[i16], them: &[i16], hmc: usize, x: &mut [i16]) -> f32 {
        let h = self.hidden;
        let (xs, xo) = x.split_at_mut(h);
        let ts = &self.tab_stm[hmc * h..(hmc + 1) * h];
        let to = &self.tab_other[hmc * h..(hmc + 1) * h];
        for ((d, &a), &t) in xs.iter_mut().zip(us).zip(ts) {
            *d = (a as i32 + t as i32).clamp(0, self.qa) as i16;
        }
        for ((d, &a), &t) in xo.iter_mut().zip(them).zip(to) {
            *d = (a as i32 + t as i32).clamp(0, self.qa) as i16;
        }
        let mut sums = [0i32; L1];
        l1_dot(&self.l1_w, x, &mut sums);
        let mut h1 = [0f32; L1];
        let inv = 1.0 / (self.qa as f32 * self.qb as f32);
        for ((out, &s), &b) in h1.iter_mut().zip(&sums).zip(&self.l1_b) {
            *out = (s as f32 * inv + b).clamp(0.0, 1.0);
        }
        // l2 with transposed weights: 32-wide vector updates per input.
        let mut h2 = self.l2_b;
        for (col, &v) in self.l2_wt.iter().zip(&h1) {
            for (acc, &w) in h2.iter_mut().zip(col) {
                *acc += w * v;
            }
        }
        let mut y = self.out_b;
        for (&w, &v) in self.out_w.iter().zip(&h2) {
            y += w * v.clamp(0.0, 1.0);
        }
        y
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn forward_avx2(&self, us: &[i16], them: &[i16], hmc: usize, x: &mut [i16]) -> f32 {
        self.forward_inner(us, them, hmc, x)
    }

    /// Raw output `y` (see [`Self::forward_inner`]); uses AVX2 code when the CPU has it.
    pub fn forward(&self, us: &[i16], them: &[i16], hmc: usize, x: &mut [i16]) -> f32 {
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU supports AVX2 (checked just above); the function body
                // is safe Rust compiled with that extra target feature.
                return unsafe { self.forward_avx2(us, them, hmc, x) };
            }
        }
        self.forward_inner(us, them, hmc, x)
    }
}

/// `sums[o] = Σ_i w[o·n + i] · x[i]` with `n = x.len()` (the `l1` layer in integers).
#[inline(always)]
fn l1_dot(w: &[i16], x: &[i16], sums: &mut [i32; L1]) {
    let n = x.len();
    assert_eq!(w.len(), L1 * n, "l1 weights do not match the input length");
    #[cfg(target_arch = "x86_64")]
    {
        if n.is_multiple_of(16) && std::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 is available (checked), and `l1_dot_avx2` reads only
            // `x[..n]` and `w[..L1 * n]`, whose lengths were checked above.
            unsafe { l1_dot_avx2(w, x, sums) };
            return;
        }
    }
    for (o, s) in sums.iter_mut().enumerate() {
        let row = &w[o * n..(o + 1) * n];
        *s = row.iter().zip(x).map(|(&a, &b)| a as i32 * b as i32).sum();
    }
}

/// AVX2 `l1`: four output rows at a time, 16 i16 products per `vpmaddwd`.
/// Requires `x.len() % 16 == 0` and `w.len() == L1 * x.len()`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn l1_dot_avx2(w: &[i16], x: &[i16], sums: &mut [i32; L1]) {
    use std::arch::x86_64::*;
    let n = x.len();
    let xp = x.as_ptr();
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn hsum(v: __m256i) -> i32 {
        let s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
        let s = _mm_hadd_epi32(s, s);
        let s = _mm_hadd_epi32(s, s);
        _mm_cvtsi128_si32(s)
    }
    for o in (0..L1).step_by(4) {
        // SAFETY (whole block): every pointer below stays inside `w` (rows o..o+4 of
        // length n, o + 4 <= L1) or `x` (offsets i < n, 16 elements, n % 16 == 0);
        // unaligned loads are used throughout.
        let r0 = w.as_ptr().add(o * n);
        let r1 = r0.add(n);
        let r2 = r1.add(n);
        let r3 = r2.add(n);
        let (mut a0, mut a1, mut a2, mut a3) = (
            _mm256_setzero_si256(),
            _mm256_setzero_si256(),
            _mm256_setzero_si256(),
            _mm256_setzero_si256(),
        );
        let mut i = 0;
        while i < n {
            let xv = _mm256_loadu_si256(xp.add(i) as *const __m256i);
            a0 = _mm256_add_epi32(
                a0,
                _mm256_madd_epi16(xv, _mm256_loadu_si256(r0.add(i) as *const __m256i)),
            );
            a1 = _mm256_add_epi32(
                a1,
                _mm256_madd_epi16(xv, _mm256_loadu_si256(r1.add(i) as *const __m256i)),
            );
            a2 = _mm256_add_epi32(
                a2,
                _mm256_madd_epi16(xv, _mm256_loadu_si256(r2.add(i) as *const __m256i)),
            );
            a3 = _mm256_add_epi32(
                a3,
                _mm256_madd_epi16(xv, _mm256_loadu_si256(r3.add(i) as *const __m256i)),
            );
            i += 16;
        }
        sums[o] = hsum(a0);
        sums[o + 1] = hsum(a1);
        sums[o + 2] = hsum(a2);
        sums[o + 3] = hsum(a3);
    }
}

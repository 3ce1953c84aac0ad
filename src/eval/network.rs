//! The network: its candle-nn definition (the trainer's model and the reference forward
//! pass), loading from safetensors with validation, and the quantised copy of the same
//! weights that the fast hand-written kernel in the search uses.
//!
//! Architecture: 782 inputs per perspective → feature transformer (`ft`, shared by both
//! perspectives) with H outputs → clipped ReLU → concatenation [side to move, other]
//! (2H) → `l1` (32, or 16: its rows in the file say which) → CReLU → `l2` (32) → CReLU →
//! `out` (one output per bucket). The
//! output `y` is in units of `scale` centipawns: the win probability the net was trained
//! on is `sigmoid(y)` and the evaluation is `y * scale` centipawns.
//!
//! Pairwise products (optional): instead of passing the 2H clipped activations to `l1`,
//! each perspective's H activations are split in halves and multiplied element by element,
//! `x[i] = c(a[i]) · c(a[i + H/2])`, so `l1` sees H inputs (half the work of its widest
//! layer) that can express products of features; Stockfish's feature transformer does the
//! same. A file's `l1.weight` of [32, H] instead of [32, 2H] marks such a net.
//!
//! Squared clipped ReLU (optional, "SCReLU"): the feature transformer's activation is
//! `clamp(a, 0, 1)²` instead of `clamp(a, 0, 1)`, which bullet-trained engines found worth
//! its small cost; a file with a `screlu` tensor ([1], value 1) marks such a net. Not
//! combined with pairwise products.
//!
//! Horizontal mirroring (optional): each perspective whose king is on files a–d sees its
//! inputs mirrored left to right (`features::mirrored`); a file with a `mirror` tensor
//! ([1], value 1) marks such a net. Same weights and cost; the accumulator is rebuilt
//! when a king crosses between files d and e.
//!
//! Output buckets: a net may have B ≥ 1 outputs, one per range of the number of pieces on
//! the board ([`features::output_bucket`]); a position uses only its bucket's output, so
//! the last layer can weigh the same features differently in the opening and the ending at
//! almost no cost. Nets with `out.weight` [1, 32] have one bucket.
//!
//! Quantisation (kernel only; candle stays f32), all integer as in Stockfish's NNUE:
//! - feature transformer: weights and biases × `127 · 2^k` as i16 (the accumulator); the
//!   clipped ReLU is `clamp(acc >> k, 0, 127)` as u8, so 1.0 ↔ 127; k ≤ 3 keeps extra
//!   precision in the accumulator when the weights leave room. With pairwise products the u8 input is `(c(a) · c(b) + 64) >> 7` (0..=126, so 1.0 ↔
//!   127²/128), and the `l1` weights absorb the factor 128/127 that makes up for it;
//!   squared, the same with b = a;
//! - `l1`: i8 weights × `s_o`, one scale per output row chosen so that the row's largest
//!   weight becomes ±127 (the whole i8 range, not the nearest power of two below it),
//!   u8 × i8 products summed in i32 (only over groups of four inputs that are not all
//!   zero), then rescaled to an i16 activation in 0..=1016 (1.0 ↔ 1016) by an exact
//!   integer multiply and shift (`(sum · mul_o) >> 24` in i64, `mul_o ≈ 2^24 · 8 / s_o`);
//! - `l2`: i16 weights × `2^n`, i16 × i16 products in i32, shifted to 0..=1016;
//! - `out`: i32 weights × `2^p` (the position's bucket), summed in i64 and divided once
//!   at the end.
//!
//! The shifts are chosen per network at load time as large as the ranges allow (see
//! [`choose_shifts`]); training's weight clipping guarantees that a net always fits. The
//! side-to-move feature (768) and the halfmove clock (781) are not kept in the
//! accumulator: a table of 101 rows per half holds `round(qa * (w768? + w781 * hmc / 100))`
//! and is added while applying the clipped ReLU.

use candle_core::{DType, Device, Module, Tensor};
use candle_nn::{linear, Linear, VarBuilder};
use std::collections::HashMap;

use super::features::{self, HMC, INPUTS, STM};
use super::simd::{self, L1Weights, Path, L1_WEIGHT_MAX};

/// Largest size of the first head layer (the head's arrays are this long); a net's own
/// is one of [`simd::L1_WIDTHS`] ([`Model::l1`], [`Quantised::l1`]).
pub const L1: usize = 32;
/// The first head layer's size unless the trainer is asked for another.
pub const L1_DEFAULT: usize = 32;
/// Size of the second head layer.
pub const L2: usize = 32;
/// First-layer activation scale: the clipped ReLU's 1.0 is 127 (u8), as in Stockfish.
pub const ACT: i32 = simd::ACT_MAX as i32;
/// Head activation scale: `h1`/`h2` outputs of 1.0 are 1016 = 127 · 8 (i16).
pub const HEAD_ACT: i32 = ACT << HEAD_SHIFT;
const HEAD_SHIFT: u32 = 3;

/// Per-network quantisation shifts, as large as the ranges allow:
/// - `acc` k (≤ 3): the accumulator stores `127 · 2^k` per 1.0 and the activation shifts
///   the k extra bits away; no accumulator can leave i16: for every hidden unit,
///   `127 · 2^k · (its bound over all positions, [`accumulator_bound`]) ≤ 32,000`;
/// - `l1` scales (one per output row, [`L1_SCALE_MIN`]..=[`L1_SCALE_MAX`]): `l1` weights as
///   i8, `|round(w · s)| ≤ 127`;
/// - `l2` n (≤ 12): `l2` weights as i16, `|w| · 2^n ≤ 32,000`;
/// - `out` p (≤ 16): `out` weights as i32, `|w| · 2^p ≤ 32,000`.
///
/// Weight clipping at ±[`WEIGHT_CLIP`] during training guarantees that k = 0 and an `l1`
/// scale of 63.5 fit; an error if the weights are too large for any shift.
pub fn choose_shifts(
    ftw: &[Vec<f32>],
    ftb: &[f32],
    l1w: &[Vec<f32>],
    l2w: &[Vec<f32>],
    outw: &[f32],
) -> Result<Shifts, String> {
    let worst = ftw
        .iter()
        .zip(ftb)
        .map(|(row, &b)| accumulator_bound(row, b))
        .fold(0f32, f32::max);
    let largest_shift = |max: f32, limit: f32, least: u32, most: u32| {
        (least..=most)
            .rev()
            .find(|&s| max * (1u64 << s) as f32 <= limit)
    };
    let acc = largest_shift(worst * ACT as f32, 32_000.0, 0, 3).ok_or(
        "feature-transformer weights too large for the i16 accumulator (train with clipping)",
    )?;
    let max_abs = |it: &mut dyn Iterator<Item = &f32>| it.fold(1e-9f32, |m, w| m.max(w.abs()));
    // One scale per output row: its largest weight becomes ±127, so every row uses the
    // whole i8 range (a power-of-two scale would waste up to half of it). Rows a narrower
    // `l1` lacks keep the largest scale (unused).
    let mut l1 = [L1_SCALE_MAX; L1];
    for (scale, row) in l1.iter_mut().zip(l1w) {
        let s = L1_WEIGHT_MAX as f32 / max_abs(&mut row.iter());
        if s < L1_SCALE_MIN {
            return Err("l1 weights too large for i8 (train with clipping)".into());
        }
        *scale = s.min(L1_SCALE_MAX);
    }
    let l2 = largest_shift(max_abs(&mut l2w.iter().flatten()), 32_000.0, 0, 12)
        .ok_or("l2 weights too large for i16")?;
    let out = largest_shift(max_abs(&mut outw.iter()), 32_000.0, 0, 16)
        .ok_or("output weights too large")?;
    Ok(Shifts { acc, l1, l2, out })
}

/// The largest |accumulator| that any position can give one hidden unit, whose weights
/// over the inputs are `row` and bias `b`: each square holds at most one piece and the
/// board at most 32, so the piece features add at most the 32 largest per-square maxima
/// (over the 12 piece kinds); castling adds at most its four rights and en passant one
/// file (side to move and the halfmove clock are not in the accumulator). Bounded above
/// and below separately, since weights of one sign cannot cancel. (Until 2026-12-01 the
/// bound was |b| plus the 40 largest |weights| of the row, which often fell on one
/// square, and cost nets with larger weights a bit of accumulator precision.)
fn accumulator_bound(row: &[f32], b: f32) -> f32 {
    let (mut up, mut down) = ([0f32; 64], [0f32; 64]);
    for kind in row[..features::STM].chunks_exact(64) {
        for (sq, &w) in kind.iter().enumerate() {
            up[sq] = up[sq].max(w);
            down[sq] = down[sq].max(-w);
        }
    }
    let largest_32 = |v: &mut [f32; 64]| {
        v.sort_by(|a, b| b.total_cmp(a));
        v[..32].iter().sum::<f32>()
    };
    let castling = &row[features::CASTLE..features::EP];
    let ep = &row[features::EP..features::HMC];
    let most = |ws: &[f32], sign: f32| ws.iter().fold(0f32, |m, &w| m.max(sign * w));
    let rise =
        |sign: f32| castling.iter().map(|&w| (sign * w).max(0.0)).sum::<f32>() + most(ep, sign);
    let high = b + largest_32(&mut up) + rise(1.0);
    let low = b - largest_32(&mut down) - rise(-1.0);
    high.abs().max(low.abs())
}

/// The quantisation shifts of one network, and `l1`'s scale per output row (see
/// [`choose_shifts`]; only the net's `l1` rows are used).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shifts {
    pub acc: u32,
    pub l1: [f32; L1],
    pub l2: u32,
    pub out: u32,
}

/// Smallest `l1` row scale: weights up to 127 / 8 ≈ 15.9 (clipping keeps them within 2).
pub const L1_SCALE_MIN: f32 = 8.0;
/// Largest `l1` row scale (a row of tiny weights gains nothing from more).
pub const L1_SCALE_MAX: f32 = 4096.0;
/// `l1`'s sums become activations by `(sum · mul) >> L1_MUL_SHIFT` (see [`Quantised::l1_mul`]).
const L1_MUL_SHIFT: u32 = 24;

/// Training keeps `ft` weights/biases and `l1` weights inside ±WEIGHT_CLIP, so an
/// accumulator stays within 127 · 2 · (1 bias + 40 features) = 10,414 (i16) and `l1`
/// weights fit i8 at scale 2^5 (|w| · 32 ≤ 64).
pub const WEIGHT_CLIP: f32 = 2.0;
/// Default cp-per-output-unit when a file has no `scale` tensor.
pub const DEFAULT_SCALE: f32 = 400.0;
/// Largest halfmove clock value the input distinguishes.
pub const HMC_MAX: usize = 100;

/// Clipped ReLU on a candle tensor.
pub fn crelu(x: &Tensor) -> candle_core::Result<Tensor> {
    x.clamp(0f32, 1f32)
}

/// Name of the tensor that marks a SCReLU net.
pub const SCRELU_MARKER: &str = "screlu";
/// Name of the tensor that marks a horizontally mirrored net (`features::mirrored`).
pub const MIRROR_MARKER: &str = "mirror";

/// What a net file says about itself besides its tensor shapes: one-element marker
/// tensors of value 1 (0 or absent: off).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Markers {
    /// SCReLU activation (`screlu`).
    pub squared: bool,
    /// Horizontal mirroring of the inputs (`mirror`).
    pub mirroring: bool,
}

impl Markers {
    /// Reads the markers of `tensors`.
    pub fn of(tensors: &HashMap<String, Tensor>) -> Result<Markers, String> {
        Ok(Markers {
            squared: marker(tensors, SCRELU_MARKER)?,
            mirroring: marker(tensors, MIRROR_MARKER)?,
        })
    }

    /// The marker tensors to save with a net's weights (those that are on).
    pub fn tensors(self) -> candle_core::Result<Vec<(String, Tensor)>> {
        let mut out = Vec::new();
        for (on, name) in [
            (self.squared, SCRELU_MARKER),
            (self.mirroring, MIRROR_MARKER),
        ] {
            if on {
                out.push((name.to_string(), Tensor::new(&[1f32], &Device::Cpu)?));
            }
        }
        Ok(out)
    }
}

/// Whether `tensors` hold the marker `name` with value 1 (0 or absent: false).
fn marker(tensors: &HashMap<String, Tensor>, name: &str) -> Result<bool, String> {
    let Some(t) = tensors.get(name) else {
        return Ok(false);
    };
    let v = t
        .to_dtype(DType::F32)
        .and_then(|t| t.flatten_all())
        .and_then(|t| t.to_vec1::<f32>())
        .map_err(|e| format!("bad '{name}' tensor: {e}"))?;
    match v[..] {
        [1.0] => Ok(true),
        [0.0] => Ok(false),
        _ => Err(format!("bad '{name}' tensor {v:?}: expected [1] or [0]")),
    }
}

/// Whether `tensors` mark a SCReLU net (see [`Markers`]).
pub fn is_squared(tensors: &HashMap<String, Tensor>) -> Result<bool, String> {
    marker(tensors, SCRELU_MARKER)
}

/// The network as a candle-nn model (f32). Tensor names in the safetensors file:
/// `ft.weight` [H, 782], `ft.bias` [H], `l1.weight` [L, 2H], `l1.bias` [L] (L = 32 or
/// 16), `l2.weight` [32, L], `l2.bias` [32], `out.weight` [B, 32], `out.bias` [B] (B output
/// buckets), and optionally `scale` [1] and the SCReLU marker `screlu` [1].
pub struct Model {
    pub ft: Linear,
    pub l1: Linear,
    pub l2: Linear,
    pub out: Linear,
    pub hidden: usize,
    /// Outputs of `l1` (one of [`simd::L1_WIDTHS`]).
    pub l1_width: usize,
    pub buckets: usize,
    /// `l1` sees the pairwise products of each half (H inputs) instead of 2H activations.
    pub pairwise: bool,
    /// The feature transformer's activation is squared (SCReLU).
    pub squared: bool,
}

/// Inputs of `l1` for a net with `hidden` accumulator outputs.
pub fn l1_inputs(hidden: usize, pairwise: bool) -> usize {
    if pairwise {
        hidden
    } else {
        2 * hidden
    }
}

impl Model {
    /// Builds (or loads, depending on `vb`) a model with `hidden` accumulator outputs,
    /// `l1_width` outputs of `l1` (16 or 32), `buckets` output buckets, and pairwise
    /// products before `l1` or not (`hidden` must then be even), squared activations
    /// (SCReLU) or not.
    pub fn new(
        vb: VarBuilder,
        hidden: usize,
        l1_width: usize,
        buckets: usize,
        pairwise: bool,
        squared: bool,
    ) -> candle_core::Result<Self> {
        if !simd::L1_WIDTHS.contains(&l1_width) {
            candle_core::bail!(
                "l1 width {l1_width} not supported (one of {:?})",
                simd::L1_WIDTHS
            );
        }
        if pairwise && !hidden.is_multiple_of(2) {
            candle_core::bail!("pairwise products need an even hidden size, got {hidden}");
        }
        if pairwise && squared {
            candle_core::bail!("pairwise products and SCReLU do not go together");
        }
        Ok(Model {
            ft: linear(INPUTS, hidden, vb.pp("ft"))?,
            l1: linear(l1_inputs(hidden, pairwise), l1_width, vb.pp("l1"))?,
            l2: linear(l1_width, L2, vb.pp("l2"))?,
            out: linear(L2, buckets, vb.pp("out"))?,
            hidden,
            l1_width,
            buckets,
            pairwise,
            squared,
        })
    }

    /// Each row's own bucket from [B, buckets] outputs: `bucket` is [B, 1] u32 (ignored
    /// with one bucket); returns [B, 1].
    pub fn select_bucket(&self, y: &Tensor, bucket: &Tensor) -> candle_core::Result<Tensor> {
        if self.buckets == 1 {
            Ok(y.clone())
        } else {
            y.gather(bucket, 1)
        }
    }

    /// The head after the feature transformer: `acc_stm`, `acc_other` are [B, H]
    /// pre-activation accumulators; returns [B, buckets] raw outputs.
    pub fn head(&self, acc_stm: &Tensor, acc_other: &Tensor) -> candle_core::Result<Tensor> {
        self.head_activated(&Tensor::cat(&[crelu(acc_stm)?, crelu(acc_other)?], 1)?)
    }

    /// The head from the activated feature transformer, [B, 2H] (side to move first), as
    /// the trainer's fused op produces it; returns [B, buckets] raw outputs.
    pub fn head_activated(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        let x = if self.pairwise {
            let (h, half) = (self.hidden, self.hidden / 2);
            let us = (x.narrow(1, 0, half)? * x.narrow(1, half, half)?)?;
            let them = (x.narrow(1, h, half)? * x.narrow(1, h + half, half)?)?;
            Tensor::cat(&[us, them], 1)?
        } else if self.squared {
            x.sqr()?
        } else {
            x.clone()
        };
        let x = crelu(&self.l1.forward(&x)?)?;
        let x = crelu(&self.l2.forward(&x)?)?;
        self.out.forward(&x)
    }

    /// Dense forward pass: `stm`, `other` are [B, 782] feature matrices, `bucket` [B, 1]
    /// u32 output buckets; returns [B, 1].
    pub fn forward(
        &self,
        stm: &Tensor,
        other: &Tensor,
        bucket: &Tensor,
    ) -> candle_core::Result<Tensor> {
        let y = self.head(&self.ft.forward(stm)?, &self.ft.forward(other)?)?;
        self.select_bucket(&y, bucket)
    }
}

/// The `l1` inputs of one perspective ordered from least to most often active (clipped
/// ReLU output above half a quantisation step, or squared (`squared`) at least one step;
/// with `pairwise`, both units of the pair)
/// over positions from seeded random playouts, both perspectives. Inputs that are rarely
/// active then share groups of four, which the sparse `l1` kernel skips when all four are
/// zero. Returns indices into the H units (H/2 pairs with `pairwise`: pair j is units j
/// and j + H/2).
pub fn sparsity_order(
    ftw: &[Vec<f32>],
    ftb: &[f32],
    pairwise: bool,
    squared: bool,
    mirroring: bool,
) -> Vec<usize> {
    use rand::seq::SliceRandom;
    use rand::SeedableRng;
    let h = ftb.len();
    let inputs = if pairwise { h / 2 } else { h };
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5EED);
    // The kernel's u8 input is 0 below half a step, or squared, below c = 8 of 127.
    let on_above = if squared { 7.5 } else { 0.5 } / ACT as f32;
    let mut active = vec![0u32; inputs];
    let mut on = vec![false; h];
    let mut board = cozy_chess::Board::default();
    let mut feats = Vec::with_capacity(features::MAX_ACTIVE);
    for ply in 0..1024 {
        let mut moves = Vec::new();
        board.generate_moves(|pm| {
            moves.extend(pm);
            false
        });
        match moves.choose(&mut rng) {
            Some(&mv) if ply % 80 != 79 => board.play_unchecked(mv),
            _ => board = cozy_chess::Board::default(),
        }
        let hmc = features::hmc(&board) as f32 / HMC_MAX as f32;
        for persp in [cozy_chess::Color::White, cozy_chess::Color::Black] {
            feats.clear();
            features::active(&board, persp, mirroring, &mut feats);
            for ((row, &b), unit_on) in ftw.iter().zip(ftb).zip(on.iter_mut()) {
                let pre = b + row[HMC] * hmc + feats.iter().map(|&f| row[f as usize]).sum::<f32>();
                *unit_on = pre > on_above;
            }
            for (j, count) in active.iter_mut().enumerate() {
                if on[j] && (!pairwise || on[j + inputs]) {
                    *count += 1;
                }
            }
        }
    }
    let mut order: Vec<usize> = (0..inputs).collect();
    order.sort_by_key(|&j| active[j]);
    order
}

/// Quantised weights for the integer kernel (see the module docs and [`simd`]).
pub struct Quantised {
    pub hidden: usize,
    /// Outputs of `l1` (16 or 32); the arrays below have 32 entries and the rest are 0.
    pub l1_width: usize,
    /// `l1` inputs are pairwise products (see the module docs).
    pub pairwise: bool,
    /// `l1` inputs are squared clipped activations.
    pub squared: bool,
    /// The inputs are mirrored horizontally (`features::mirrored`).
    pub mirroring: bool,
    pub shifts: Shifts,
    /// Column per feature: `ft_w[f * H .. (f + 1) * H]`, scale `127 · 2^acc`.
    pub ft_w: Vec<i16>,
    /// Bias (plus half a unit where the activation shifts, so the shift rounds to nearest).
    pub ft_b: Vec<i16>,
    /// `[hmc][H]`: what the side-to-move half adds (w768 + w781 · hmc/100).
    pub tab_stm: Vec<i16>,
    /// `[hmc][H]`: what the other half adds (w781 · hmc/100).
    pub tab_other: Vec<i16>,
    /// i8 at scale `s_o = shifts.l1[o]` for output o (two layouts, see [`L1Weights`]).
    pub l1_w: L1Weights,
    /// Scale `127 · s_o`.
    pub l1_b: [i32; L1],
    /// `round(2^24 · 8 / s_o)`: an `l1` sum (scale `127 · s_o`) times this, shifted right
    /// by 24 with rounding, is the activation at scale [`HEAD_ACT`]. Sums fit i32 and
    /// multipliers are at most 2^24 (scales ≥ [`L1_SCALE_MIN`]), so the products of
    /// non-negative sums fit u64 and, shifted, u32.
    pub l1_mul: [u32; L1],
    /// Scale `2^l2`, grouped by two inputs: `[16][32][2]` (inputs beyond `l1_width`: 0).
    pub l2_w: Vec<i16>,
    /// Scale `1016 · 2^l2`, plus the rounding half.
    pub l2_b: [i32; L2],
    /// Per output bucket, scale `2^out`.
    pub out_w: Vec<[i32; L2]>,
    /// Per output bucket, scale `1016 · 2^out`.
    pub out_b: Vec<i64>,
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
        let buckets = match tensors.get("out.bias") {
            Some(t) => t.dims1().map_err(ce("out.bias must be 1-D"))?,
            None => return Err(format!("{name}: missing tensor 'out.bias'")),
        };
        if buckets == 0 || buckets > features::MAX_BUCKETS {
            return Err(format!(
                "{name}: unsupported number of output buckets {buckets} (1..={})",
                features::MAX_BUCKETS
            ));
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
        let l1_width = match tensors.get("l1.bias") {
            Some(t) => t.dims1().map_err(ce("l1.bias must be 1-D"))?,
            None => return Err(format!("{name}: missing tensor 'l1.bias'")),
        };
        if !simd::L1_WIDTHS.contains(&l1_width) {
            return Err(format!(
                "{name}: l1 has {l1_width} outputs; supported: {:?}",
                simd::L1_WIDTHS
            ));
        }
        let pairwise = match tensors.get("l1.weight").map(|t| t.dims()) {
            Some([_, n]) if *n == 2 * hidden => false,
            Some([_, n]) if *n == hidden && hidden % 2 == 0 => true,
            Some(dims) => {
                return Err(format!(
                    "{name}: l1.weight is {dims:?}; expected [{l1_width}, {}] or, with \
                     pairwise products, [{l1_width}, {hidden}]",
                    2 * hidden
                ))
            }
            None => return Err(format!("{name}: missing tensor 'l1.weight'")),
        };
        let markers = Markers::of(&tensors).map_err(|e| format!("{name}: {e}"))?;
        let vb = VarBuilder::from_tensors(tensors, DType::F32, &Device::Cpu);
        let model = Model::new(vb, hidden, l1_width, buckets, pairwise, markers.squared)
            .map_err(|e| format!("{name}: {e}"))?;
        let q = Self::quantise(&model, markers.mirroring).map_err(|e| format!("{name}: {e}"))?;
        Ok(Network {
            name: name.to_string(),
            bytes,
            scale,
            model,
            q,
        })
    }

    fn quantise(model: &Model, mirroring: bool) -> Result<Quantised, String> {
        let h = model.hidden;
        let width = model.l1_width;
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
        // Rarely active `l1` inputs side by side, so the sparse `l1` skips more groups of
        // four (a reordering of the units: the network computes exactly the same).
        let pairwise = model.pairwise;
        let squared = model.squared;
        let order = sparsity_order(&ftw, &ftb, pairwise, squared, mirroring);
        // New unit/input k comes from old unit/input `units[k]` / `inputs[k]`.
        let n = order.len();
        let inputs: Vec<usize> = order
            .iter()
            .chain(&order)
            .enumerate()
            .map(|(k, &j)| if k < n { j } else { j + n })
            .collect();
        // Plain: `l1` input k of each half is unit k. Pairwise: inputs k and k + n of a
        // half multiply units k and k + n, so units move exactly as inputs do.
        let units = if pairwise { &inputs[..] } else { &order[..] };
        let ftw: Vec<Vec<f32>> = units.iter().map(|&j| ftw[j].clone()).collect();
        let ftb: Vec<f32> = units.iter().map(|&j| ftb[j]).collect();
        // With pairwise products or squares the u8 inputs come out at 127²/128 per 1.0
        // instead of 127: the weights carry the difference.
        let input_gain = if pairwise || squared {
            128.0 / ACT as f32
        } else {
            1.0
        };
        let l1w: Vec<Vec<f32>> = l1w
            .iter()
            .map(|row| inputs.iter().map(|&i| row[i] * input_gain).collect())
            .collect();
        let all_out: Vec<f32> = ow.iter().flatten().copied().collect();
        let shifts = choose_shifts(&ftw, &ftb, &l1w, &l2w, &all_out)?;
        let qa = ACT << shifts.acc;
        let mut ft_w = vec![0i16; INPUTS * h];
        for (j, row) in ftw.iter().enumerate() {
            for (f, &w) in row.iter().enumerate() {
                ft_w[f * h + j] = q16(w, qa);
            }
        }
        // The activation's shift rounds to nearest with half a unit in the bias; squares and
        // pairwise products multiply the unshifted accumulator and need none.
        let half_acc = if squared || pairwise {
            0
        } else {
            (1i16 << shifts.acc) >> 1
        };
        let ft_b = ftb.iter().map(|&b| q16(b, qa) + half_acc).collect();
        let mut tab_stm = vec![0i16; (HMC_MAX + 1) * h];
        let mut tab_other = vec![0i16; (HMC_MAX + 1) * h];
        for c in 0..=HMC_MAX {
            let v = c as f32 / HMC_MAX as f32;
            for j in 0..h {
                tab_stm[c * h + j] = q16(ftw[j][STM] + ftw[j][HMC] * v, qa);
                tab_other[c * h + j] = q16(ftw[j][HMC] * v, qa);
            }
        }
        let s1 = |o: usize| shifts.l1[o];
        let l1_w = L1Weights::new(l1_inputs(h, pairwise), width, |o, i| {
            (l1w[o][i] * s1(o)).round() as i8
        });
        // Outputs a 16-wide `l1` lacks: bias and multiplier 0, so their activations are 0.
        let l1_b = std::array::from_fn(|o| {
            if o < width {
                (l1b[o] * ACT as f32 * s1(o)).round() as i32
            } else {
                0
            }
        });
        let l1_mul = std::array::from_fn(|o| {
            if o < width {
                ((1u64 << L1_MUL_SHIFT) as f64 * (HEAD_ACT / ACT) as f64 / s1(o) as f64).round()
                    as u32
            } else {
                0
            }
        });
        let s2 = (1i32 << shifts.l2) as f32;
        let mut l2_w = vec![0i16; L1 * L2];
        for (o, row) in l2w.iter().enumerate() {
            for (i, &w) in row.iter().enumerate() {
                l2_w[(i / 2 * L2 + o) * 2 + i % 2] = (w * s2).round() as i16;
            }
        }
        let l2_round = (1i32 << shifts.l2) >> 1;
        let l2_b =
            std::array::from_fn(|o| (l2b[o] * HEAD_ACT as f32 * s2).round() as i32 + l2_round);
        let so = (1i64 << shifts.out) as f64;
        let out_w = ow
            .iter()
            .map(|row| std::array::from_fn(|i| (row[i] as f64 * so).round() as i32))
            .collect();
        let out_b = ob
            .iter()
            .map(|&b| (b as f64 * HEAD_ACT as f64 * so).round() as i64)
            .collect();
        let l2_bound = l2_b
            .iter()
            .map(|b| b.unsigned_abs() as f64)
            .fold(0.0, f64::max)
            + (width as f64) * HEAD_ACT as f64 * 32_000.0;
        if l2_bound > i32::MAX as f64 {
            return Err("l2 biases too large for the i32 kernel".into());
        }
        if l1_b.iter().any(|b| b.unsigned_abs() > 1 << 30) {
            return Err("l1 biases too large for the i32 kernel".into());
        }
        Ok(Quantised {
            hidden: h,
            l1_width: width,
            pairwise,
            squared,
            mirroring,
            shifts,
            ft_w,
            ft_b,
            tab_stm,
            tab_other,
            l1_w,
            l1_b,
            l1_mul,
            l2_w,
            l2_b,
            out_w,
            out_b,
        })
    }

    /// "name (size KiB, architecture)" for `info string` and logs.
    pub fn description(&self) -> String {
        let scales = &self.q.shifts.l1[..self.q.l1_width];
        let l1_scales = format!(
            "{:.0}..{:.0}",
            scales.iter().fold(f32::INFINITY, |m, &s| m.min(s)),
            scales.iter().fold(0f32, |m, &s| m.max(s))
        );
        format!(
            "{} ({} KiB, (782{}->{})x2{}{}->{}->{}->1{}, scale {}, shifts {}/{}/{}/{})",
            self.name,
            self.bytes.div_ceil(1024),
            if self.q.mirroring { " mirrored" } else { "" },
            self.q.hidden,
            if self.q.pairwise { " pairwise" } else { "" },
            if self.q.squared { " screlu" } else { "" },
            self.q.l1_width,
            L2,
            match self.q.buckets() {
                1 => String::new(),
                b => format!(" x{b} output buckets"),
            },
            self.scale,
            self.q.shifts.acc,
            l1_scales,
            self.q.shifts.l2,
            self.q.shifts.out
        )
    }

    /// Reference evaluation with candle (f32, dense features): centipawns from the
    /// side to move's point of view, not rounded or clamped.
    pub fn reference_cp(&self, board: &cozy_chess::Board) -> Result<f32, String> {
        let stm = board.side_to_move();
        let dev = Device::Cpu;
        let hm = self.q.mirroring;
        let a = Tensor::from_vec(features::dense(board, stm, hm), (1, INPUTS), &dev);
        let b = Tensor::from_vec(features::dense(board, !stm, hm), (1, INPUTS), &dev);
        let bucket = features::output_bucket(board.occupied().len() as usize, self.model.buckets);
        let k = Tensor::from_vec(vec![bucket as u32], (1, 1), &dev);
        let y = a
            .and_then(|a| b.and_then(|b| k.and_then(|k| self.model.forward(&a, &b, &k))))
            .and_then(|y| y.flatten_all())
            .and_then(|y| y.to_vec1::<f32>())
            .map_err(|e| format!("candle forward: {e}"))?;
        Ok(y[0] * self.scale)
    }
}

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
        let inputs = l1_inputs(self.hidden, self.pairwise);
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
    /// [`l1_inputs`] bytes, the side to move's half first.
    #[inline]
    pub fn activate(&self, path: Path, us: &[i16], them: &[i16], hmc: usize, x: &mut [u8]) {
        let h = self.hidden;
        let (xs, xo) = x.split_at_mut(x.len() / 2);
        let shift = self.shifts.acc;
        let (tab_us, tab_them) = (
            &self.tab_stm[hmc * h..(hmc + 1) * h],
            &self.tab_other[hmc * h..(hmc + 1) * h],
        );
        if self.pairwise {
            simd::activate_pairwise(path, us, tab_us, shift, xs);
            simd::activate_pairwise(path, them, tab_them, shift, xo);
        } else if self.squared {
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

#[cfg(test)]
mod tests {
    use super::*;
    use cozy_chess::Color;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// The bound holds on real positions (every position of random playouts, both
    /// perspectives, mirrored or not), is reached by a row built for it, and is tighter
    /// than |bias| plus the 40 largest |weights| on a row whose large weights share squares.
    #[test]
    fn accumulator_bound_holds_and_is_tight() {
        let mut rng = StdRng::seed_from_u64(3);
        let rows: Vec<Vec<f32>> = (0..8)
            .map(|_| (0..INPUTS).map(|_| rng.gen_range(-2.0..2.0)).collect())
            .collect();
        let walk = crate::train::bench_eval::random_walk(3000, 5);
        for (row, b) in rows
            .iter()
            .zip([-1.5f32, -0.5, 0.0, 0.3, 0.9, 1.2, 2.0, -2.0])
        {
            let bound = accumulator_bound(row, b);
            for (_, _, board) in &walk {
                for persp in [Color::White, Color::Black] {
                    for mirroring in [false, true] {
                        let mut feats = Vec::new();
                        features::active(board, persp, mirroring, &mut feats);
                        let acc: f32 = b + feats
                            .iter()
                            .filter(|&&f| f as usize != features::STM)
                            .map(|&f| row[f as usize])
                            .sum::<f32>();
                        assert!(acc.abs() <= bound + 1e-4, "{acc} beyond {bound} on {board}");
                    }
                }
            }
        }
        // Every piece kind on a1 weighs 2: one piece can stand there, so 2 counts once
        // (the old bound counted 12 of them).
        let mut row = vec![0f32; INPUTS];
        for kind in 0..12 {
            row[kind * 64] = 2.0;
        }
        row[features::CASTLE] = 1.0;
        row[features::EP + 3] = -0.5;
        assert_eq!(accumulator_bound(&row, 0.25), 3.25);
        assert_eq!(accumulator_bound(&row, -1.0), 2.0);
    }
}

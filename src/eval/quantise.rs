//! The quantised copy of a [`Model`]'s weights that the integer kernel in the search
//! uses, and how it is derived. All integer, as in Stockfish's NNUE (candle stays f32):
//! - feature transformer: weights and biases × `127 · 2^k` as i16 (the accumulator); the
//!   clipped ReLU is `clamp(acc >> k, 0, 127)` as u8, so 1.0 ↔ 127; k ≤ 3 keeps extra
//!   precision in the accumulator when the weights leave room. Squared (SCReLU), the u8
//!   input is `(c · c + 64) >> 7` (0..=126, so 1.0 ↔ 127²/128), and the `l1` weights
//!   absorb the factor 128/127 that makes up for it;
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
//! and is added while applying the activation. The forward pass is in [`super::inference`].

use candle_core::Tensor;

use super::features::{self, HMC, HMC_MAX, STM};
use super::model::{Model, WEIGHT_CLIP};
use super::shape::{INPUTS, L1, L2};
use super::simd::{self, L1Weights, L1_WEIGHT_MAX};

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
fn choose_shifts(
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
/// and below separately, since weights of one sign cannot cancel.
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
pub(super) const L1_MUL_SHIFT: u32 = 24;

/// The `l1` inputs of one perspective ordered from least to most often active (clipped
/// ReLU output above half a quantisation step, or squared (`squared`) at least one step)
/// over positions from seeded random playouts, both perspectives. Inputs that are rarely
/// active then share groups of four, which the sparse `l1` kernel skips when all four are
/// zero. Returns indices into the H units.
fn sparsity_order(ftw: &[Vec<f32>], ftb: &[f32], squared: bool, mirroring: bool) -> Vec<usize> {
    use rand::seq::SliceRandom;
    use rand::SeedableRng;
    let h = ftb.len();
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5EED);
    // The kernel's u8 input is 0 below half a step, or squared, below c = 8 of 127.
    let on_above = if squared { 7.5 } else { 0.5 } / ACT as f32;
    let mut active = vec![0u32; h];
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
                if on[j] {
                    *count += 1;
                }
            }
        }
    }
    let mut order: Vec<usize> = (0..h).collect();
    order.sort_by_key(|&j| active[j]);
    order
}

/// Quantised weights for the integer kernel (see the module docs and [`simd`]).
pub struct Quantised {
    pub hidden: usize,
    /// Outputs of `l1` (16 or 32); the arrays below have 32 entries and the rest are 0.
    pub l1_width: usize,
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

fn q16(x: f32, scale: i32) -> i16 {
    (x * scale as f32)
        .round()
        .clamp(i16::MIN as f32, i16::MAX as f32) as i16
}

/// A model's f32 weights as rows (`[out][in]`), checked finite and inside the range
/// training's clipping keeps them in.
struct Weights {
    ftw: Vec<Vec<f32>>,
    ftb: Vec<f32>,
    l1w: Vec<Vec<f32>>,
    l1b: Vec<f32>,
    l2w: Vec<Vec<f32>>,
    l2b: Vec<f32>,
    ow: Vec<Vec<f32>>,
    ob: Vec<f32>,
}

impl Weights {
    fn of(model: &Model) -> Result<Weights, String> {
        let get2 = |t: &Tensor, what: &str| -> Result<Vec<Vec<f32>>, String> {
            t.to_vec2::<f32>().map_err(|e| format!("{what}: {e}"))
        };
        let get1 = |t: Option<&Tensor>, what: &str| -> Result<Vec<f32>, String> {
            t.ok_or_else(|| format!("{what} missing"))?
                .to_vec1::<f32>()
                .map_err(|e| format!("{what}: {e}"))
        };
        let w = Weights {
            ftw: get2(model.ft.weight(), "ft.weight")?,
            ftb: get1(model.ft.bias(), "ft.bias")?,
            l1w: get2(model.l1.weight(), "l1.weight")?,
            l1b: get1(model.l1.bias(), "l1.bias")?,
            l2w: get2(model.l2.weight(), "l2.weight")?,
            l2b: get1(model.l2.bias(), "l2.bias")?,
            ow: get2(model.out.weight(), "out.weight")?,
            ob: get1(model.out.bias(), "out.bias")?,
        };
        let all = w.ftw.iter().flatten().chain(&w.ftb);
        let all = all
            .chain(w.l1w.iter().flatten())
            .chain(&w.l1b)
            .chain(w.l2w.iter().flatten())
            .chain(&w.l2b)
            .chain(w.ow.iter().flatten());
        if let Some(x) = all.chain(&w.ob).find(|x| !x.is_finite()) {
            return Err(format!("non-finite weight {x}"));
        }
        let limit = WEIGHT_CLIP + 1e-3;
        let clipped = w.ftw.iter().flatten().chain(&w.ftb);
        if clipped
            .chain(w.l1w.iter().flatten())
            .any(|x| x.abs() > limit)
        {
            return Err(format!(
                "ft/l1 weights exceed the quantisation range ±{WEIGHT_CLIP} (train with clipping)"
            ));
        }
        Ok(w)
    }

    /// The same network with its hidden units reordered so that rarely active `l1` inputs
    /// sit side by side (the sparse `l1` then skips more groups of four), and the `l1`
    /// weights scaled for the kernel's unit of a squared input.
    fn reordered(self, squared: bool, mirroring: bool) -> Weights {
        let order = sparsity_order(&self.ftw, &self.ftb, squared, mirroring);
        // New unit k comes from old unit `order[k]`, new input k from old `inputs[k]`.
        let n = order.len();
        let inputs: Vec<usize> = order
            .iter()
            .chain(&order)
            .enumerate()
            .map(|(k, &j)| if k < n { j } else { j + n })
            .collect();
        // Squared, the u8 inputs come out at 127²/128 per 1.0 instead of 127: the weights
        // carry the difference.
        let input_gain = if squared { 128.0 / ACT as f32 } else { 1.0 };
        Weights {
            ftw: order.iter().map(|&j| self.ftw[j].clone()).collect(),
            ftb: order.iter().map(|&j| self.ftb[j]).collect(),
            l1w: (self.l1w.iter())
                .map(|row| inputs.iter().map(|&i| row[i] * input_gain).collect())
                .collect(),
            ..self
        }
    }
}

/// The feature transformer in integers: weights by feature column, biases, and the
/// side-to-move/halfmove-clock tables of each half.
struct QuantisedFt {
    ft_w: Vec<i16>,
    ft_b: Vec<i16>,
    tab_stm: Vec<i16>,
    tab_other: Vec<i16>,
}

fn quantise_ft(w: &Weights, shifts: &Shifts, squared: bool) -> QuantisedFt {
    let h = w.ftb.len();
    let qa = ACT << shifts.acc;
    let mut ft_w = vec![0i16; INPUTS * h];
    for (j, row) in w.ftw.iter().enumerate() {
        for (f, &x) in row.iter().enumerate() {
            ft_w[f * h + j] = q16(x, qa);
        }
    }
    // The activation's shift rounds to nearest with half a unit in the bias; squares
    // multiply the unshifted accumulator and need none.
    let half_acc = if squared {
        0
    } else {
        (1i16 << shifts.acc) >> 1
    };
    let ft_b = w.ftb.iter().map(|&b| q16(b, qa) + half_acc).collect();
    let mut tab_stm = vec![0i16; (HMC_MAX + 1) * h];
    let mut tab_other = vec![0i16; (HMC_MAX + 1) * h];
    for c in 0..=HMC_MAX {
        let v = c as f32 / HMC_MAX as f32;
        for j in 0..h {
            tab_stm[c * h + j] = q16(w.ftw[j][STM] + w.ftw[j][HMC] * v, qa);
            tab_other[c * h + j] = q16(w.ftw[j][HMC] * v, qa);
        }
    }
    QuantisedFt {
        ft_w,
        ft_b,
        tab_stm,
        tab_other,
    }
}

impl Quantised {
    /// Quantises `model` (mirrored inputs or not); an error if a weight is out of range.
    pub fn new(model: &Model, mirroring: bool) -> Result<Quantised, String> {
        let h = model.hidden;
        let width = model.l1_width;
        let squared = model.squared;
        let w = Weights::of(model)?.reordered(squared, mirroring);
        let all_out: Vec<f32> = w.ow.iter().flatten().copied().collect();
        let shifts = choose_shifts(&w.ftw, &w.ftb, &w.l1w, &w.l2w, &all_out)?;
        let QuantisedFt {
            ft_w,
            ft_b,
            tab_stm,
            tab_other,
        } = quantise_ft(&w, &shifts, squared);
        let s1 = |o: usize| shifts.l1[o];
        let l1_w = L1Weights::new(2 * h, width, |o, i| (w.l1w[o][i] * s1(o)).round() as i8);
        // Outputs a 16-wide `l1` lacks: bias and multiplier 0, so their activations are 0.
        let l1_b = std::array::from_fn(|o| {
            if o < width {
                (w.l1b[o] * ACT as f32 * s1(o)).round() as i32
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
        for (o, row) in w.l2w.iter().enumerate() {
            for (i, &x) in row.iter().enumerate() {
                l2_w[(i / 2 * L2 + o) * 2 + i % 2] = (x * s2).round() as i16;
            }
        }
        let l2_round = (1i32 << shifts.l2) >> 1;
        let l2_b =
            std::array::from_fn(|o| (w.l2b[o] * HEAD_ACT as f32 * s2).round() as i32 + l2_round);
        let so = (1i64 << shifts.out) as f64;
        let out_w = (w.ow.iter())
            .map(|row| std::array::from_fn(|i| (row[i] as f64 * so).round() as i32))
            .collect();
        let out_b = (w.ob.iter())
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use cozy_chess::Color;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// The bound holds on real positions (every position of random playouts, both
    /// perspectives, mirrored or not) and is reached by rows built for it, whose large
    /// weights share a square.
    #[test]
    fn accumulator_bound_holds_and_is_tight() {
        let mut rng = StdRng::seed_from_u64(3);
        let rows: Vec<Vec<f32>> = (0..8)
            .map(|_| (0..INPUTS).map(|_| rng.gen_range(-2.0..2.0)).collect())
            .collect();
        let walk = crate::bench::eval::random_walk(3000, 5);
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
        // Every piece kind on a1 weighs 2: one piece can stand there, so 2 counts once.
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

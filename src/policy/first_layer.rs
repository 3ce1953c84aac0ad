//! The policy's first layer in 16-bit integers: the sum of one weight row per active
//! board input, as the value net's accumulator computes it (`eval::simd::acc_update`,
//! AVX2 when the CPU has it). Half the bytes of the f32 rows to fetch, which is what the
//! layer costs: ~40 rows picked from a table of a few megabytes, mostly outside the
//! caches during a tree search.
//!
//! The scale is chosen per net when it is loaded, as large as it can be while no sum of
//! [`MAX_ACTIVE`] rows and the bias can leave i16 in any lane; the integer sums are then
//! exact, and the only error is each weight's rounding (about 1/1600 of the largest
//! possible sum).

use crate::eval::simd::{acc_update, Path};

/// More active inputs than any position has: one per piece (at most 32), side to move,
/// four castling rights, en passant.
pub const MAX_ACTIVE: usize = 40;

/// The finest step used, for nets whose weights are all tiny (or zero): far below any
/// difference that matters.
const MAX_SCALE: f32 = 8192.0;

/// A first layer quantised to i16, rows input-major.
pub struct QuantisedLayer {
    weights: Vec<i16>,
    bias: Vec<i16>,
    /// Integer units per float unit.
    scale: f32,
    path: Path,
}

impl QuantisedLayer {
    /// Quantises `weights` (`rows × width`, input-major) and `bias` (`width`).
    pub fn new(weights: &[f32], bias: &[f32]) -> QuantisedLayer {
        let width = bias.len();
        assert!(
            width > 0 && weights.len().is_multiple_of(width),
            "a first layer of {} weights does not have rows of {width}",
            weights.len()
        );
        let bound = worst_sum(weights, bias);
        let mut scale = (i16::MAX as f32 / bound).min(MAX_SCALE);
        // Rounding can push a lane's worst sum a little past the float bound.
        loop {
            let layer = QuantisedLayer::at_scale(weights, bias, scale);
            if layer.worst_integer_sum() <= i16::MAX as i32 {
                return layer;
            }
            scale *= 0.99;
        }
    }

    fn at_scale(weights: &[f32], bias: &[f32], scale: f32) -> QuantisedLayer {
        let q = |w: &f32| (w * scale).round() as i16;
        QuantisedLayer {
            weights: weights.iter().map(q).collect(),
            bias: bias.iter().map(q).collect(),
            scale,
            path: Path::best(),
        }
    }

    /// The largest |bias + Σ rows| a lane can reach with [`MAX_ACTIVE`] rows, in integers.
    fn worst_integer_sum(&self) -> i32 {
        let as_f32: Vec<f32> = self.weights.iter().map(|&w| w as f32).collect();
        let bias: Vec<f32> = self.bias.iter().map(|&b| b as f32).collect();
        worst_sum(&as_f32, &bias).ceil() as i32
    }

    /// Width of the layer.
    pub fn width(&self) -> usize {
        self.bias.len()
    }

    /// Integer units per float unit: a sum divided by it is the float layer's value.
    pub fn scale(&self) -> f32 {
        self.scale
    }

    /// `out = bias + Σ rows(features)` in integers; features past the table are ignored,
    /// as are any past the first [`MAX_ACTIVE`].
    pub fn accumulate(&self, features: &[u16], out: &mut [i16]) {
        let rows = (self.weights.len() / self.width()) as u16;
        let mut active = [0u16; MAX_ACTIVE];
        let mut n = 0;
        for &f in features.iter().filter(|&&f| f < rows).take(MAX_ACTIVE) {
            active[n] = f;
            n += 1;
        }
        acc_update(self.path, &self.weights, &self.bias, out, &active[..n], &[]);
    }
}

/// The largest |bias + Σ of MAX_ACTIVE rows| any lane can reach: per lane, its bias's
/// size plus its MAX_ACTIVE largest weights' sizes.
fn worst_sum(weights: &[f32], bias: &[f32]) -> f32 {
    let width = bias.len();
    let rows = weights.len() / width;
    let mut column = Vec::with_capacity(rows);
    (0..width)
        .map(|j| {
            column.clear();
            column.extend((0..rows).map(|r| weights[r * width + j].abs()));
            let k = MAX_ACTIVE.min(rows);
            let split = rows - k;
            if split > 0 {
                column.select_nth_unstable_by(split, f32::total_cmp);
            }
            bias[j].abs() + column[split..].iter().sum::<f32>()
        })
        .fold(0.0, f32::max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    fn random_layer(rows: usize, width: usize, seed: u64) -> (Vec<f32>, Vec<f32>) {
        let mut rng = StdRng::seed_from_u64(seed);
        let weights = (0..rows * width)
            .map(|_| rng.gen_range(-1.0..1.0))
            .collect();
        let bias = (0..width).map(|_| rng.gen_range(-0.5..0.5)).collect();
        (weights, bias)
    }

    #[test]
    fn sums_equal_the_float_layer_within_its_rounding() {
        for width in [24, 64, 512] {
            let (w, b) = random_layer(300, width, width as u64);
            let layer = QuantisedLayer::new(&w, &b);
            let mut rng = StdRng::seed_from_u64(1);
            let mut out = vec![0i16; width];
            for _ in 0..50 {
                let features: Vec<u16> = (0..38).map(|_| rng.gen_range(0..300)).collect();
                layer.accumulate(&features, &mut out);
                for j in 0..width {
                    let exact: f32 = b[j]
                        + features
                            .iter()
                            .map(|&f| w[f as usize * width + j])
                            .sum::<f32>();
                    let ours = out[j] as f32 / layer.scale();
                    // Each of 39 terms is off by at most half an integer step.
                    assert!(
                        (ours - exact).abs() <= 39.0 * 0.5 / layer.scale() + 1e-4,
                        "width {width} lane {j}: {ours} vs {exact}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_worst_sum_stays_inside_i16() {
        // All weights of one sign: the worst case is reached by any 40 rows at once.
        let width = 32;
        let w = vec![0.7f32; 100 * width];
        let b = vec![-0.3f32; width];
        let layer = QuantisedLayer::new(&w, &b);
        assert!(layer.worst_integer_sum() <= i16::MAX as i32);
        let mut out = vec![0i16; width];
        let features: Vec<u16> = (0..MAX_ACTIVE as u16).collect();
        layer.accumulate(&features, &mut out);
        let expected = (0.7 * MAX_ACTIVE as f32 - 0.3) * layer.scale();
        assert!(
            out.iter()
                .all(|&o| o > 0 && (o as f32 - expected).abs() < 25.0),
            "{out:?} vs {expected}"
        );
        // A layer of zeros (an untrained net) loads at the finest step and sums to zero.
        let zeros = QuantisedLayer::new(&vec![0.0; 100 * width], &vec![0.0; width]);
        assert_eq!(zeros.scale(), MAX_SCALE);
        zeros.accumulate(&features, &mut out);
        assert!(out.iter().all(|&o| o == 0));
        layer.accumulate(&features, &mut out);
        // Rows past the table are ignored rather than read.
        layer.accumulate(&[5000, 1], &mut out);
        assert!(out
            .iter()
            .all(|&o| (o as f32 / layer.scale() - 0.4).abs() < 0.01));
    }
}

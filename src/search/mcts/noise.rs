//! Dirichlet noise on the root's priors (AlphaZero): self-play mixes
//! P' = (1 − ε)·P + ε·η, η ~ Dir(α), into the root's priors so that every root move
//! gets some playouts and the visit counts can teach the policy moves it does not yet
//! like. Off in play; `rookery datagen --mode mcts` turns it on with a seeded
//! generator, so a seed gives the same noise (and the same games).
//!
//! The Gamma samples behind the Dirichlet are drawn here (Marsaglia–Tsang), since the
//! crate depends on `rand` only, not `rand_distr`.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// AlphaZero's chess values: α ≈ 10 / (typical legal moves), a quarter of the mass.
pub const DIRICHLET_ALPHA: f64 = 0.3;
pub const DIRICHLET_EPSILON: f64 = 0.25;

/// The noise settings and the generator they draw from.
pub struct RootNoise {
    pub alpha: f64,
    pub epsilon: f64,
    rng: StdRng,
}

impl RootNoise {
    /// AlphaZero's α and ε with a generator seeded by `seed`.
    pub fn new(seed: u64) -> RootNoise {
        RootNoise::with(DIRICHLET_ALPHA, DIRICHLET_EPSILON, seed)
    }

    pub fn with(alpha: f64, epsilon: f64, seed: u64) -> RootNoise {
        RootNoise {
            alpha: alpha.max(1e-3),
            epsilon: epsilon.clamp(0.0, 1.0),
            rng: StdRng::seed_from_u64(seed),
        }
    }

    /// Mixes a fresh Dirichlet sample into `priors` (which sum to 1; they still do).
    pub fn apply(&mut self, priors: &mut [f32]) {
        if priors.len() < 2 {
            return;
        }
        let eta = dirichlet(&mut self.rng, self.alpha, priors.len());
        for (p, n) in priors.iter_mut().zip(eta) {
            *p = ((1.0 - self.epsilon) * *p as f64 + self.epsilon * n) as f32;
        }
    }
}

/// A sample of the symmetric Dirichlet distribution Dir(α, …, α) with `n` components.
pub fn dirichlet(rng: &mut impl Rng, alpha: f64, n: usize) -> Vec<f64> {
    let mut sample: Vec<f64> = (0..n).map(|_| gamma(rng, alpha)).collect();
    let sum: f64 = sample.iter().sum();
    if sum > 0.0 && sum.is_finite() {
        for x in &mut sample {
            *x /= sum;
        }
    } else {
        // Every Gamma draw underflowed (tiny α): the limit is all mass on one component.
        sample.iter_mut().for_each(|x| *x = 0.0);
        sample[rng.gen_range(0..n)] = 1.0;
    }
    sample
}

/// A Gamma(shape, 1) sample: Marsaglia and Tsang's squeeze method for shape ≥ 1, and for
/// shape < 1 the boost Gamma(a) = Gamma(a + 1) · U^(1/a).
pub fn gamma(rng: &mut impl Rng, shape: f64) -> f64 {
    if shape < 1.0 {
        let u: f64 = rng.gen::<f64>().max(f64::MIN_POSITIVE);
        return gamma(rng, shape + 1.0) * u.powf(1.0 / shape);
    }
    let d = shape - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = standard_normal(rng);
        let v = 1.0 + c * x;
        if v <= 0.0 {
            continue;
        }
        let v = v * v * v;
        let u: f64 = rng.gen();
        if u < 1.0 - 0.0331 * x.powi(4) || u.ln() < 0.5 * x * x + d * (1.0 - v + v.ln()) {
            return d * v;
        }
    }
}

/// A standard normal sample (Box–Muller; one of the pair is dropped for simplicity).
fn standard_normal(rng: &mut impl Rng) -> f64 {
    let u1: f64 = rng.gen::<f64>().max(f64::MIN_POSITIVE);
    let u2: f64 = rng.gen();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clean() -> Vec<f32> {
        let raw = [5.0f32, 3.0, 1.0, 1.0, 0.5, 0.25, 0.25, 4.0];
        let sum: f32 = raw.iter().sum();
        raw.iter().map(|x| x / sum).collect()
    }

    #[test]
    fn noised_priors_sum_to_one_differ_from_the_clean_ones_and_repeat_with_the_seed() {
        let mut a = clean();
        RootNoise::new(7).apply(&mut a);
        let sum: f32 = a.iter().sum();
        assert!((sum - 1.0).abs() < 1e-5, "sum {sum}");
        assert!(a.iter().all(|&p| p >= 0.0));
        let moved: f32 = a.iter().zip(clean()).map(|(x, y)| (x - y).abs()).sum();
        assert!(moved > 1e-3, "noise changed the priors by only {moved}");
        let mut b = clean();
        RootNoise::new(7).apply(&mut b);
        assert_eq!(a, b);
        let mut c = clean();
        RootNoise::new(8).apply(&mut c);
        assert_ne!(a, c);
    }

    #[test]
    fn gamma_samples_have_the_right_mean() {
        // E[Gamma(k)] = k; 20,000 samples give a standard error below 1 % of the mean.
        let mut rng = StdRng::seed_from_u64(1);
        for shape in [0.3, 1.0, 2.5] {
            let n = 20_000;
            let mean = (0..n).map(|_| gamma(&mut rng, shape)).sum::<f64>() / n as f64;
            assert!(
                (mean - shape).abs() < 0.05 * shape,
                "shape {shape}: mean {mean}"
            );
        }
    }

    #[test]
    fn a_small_alpha_concentrates_the_dirichlet_mass() {
        // With α = 0.3 over 30 moves, a few components carry most of the mass.
        let mut rng = StdRng::seed_from_u64(3);
        let mut top_share = 0.0;
        for _ in 0..200 {
            let mut s = dirichlet(&mut rng, 0.3, 30);
            s.sort_by(|a, b| b.total_cmp(a));
            top_share += s[..3].iter().sum::<f64>() / 200.0;
        }
        assert!(top_share > 0.5, "top three carry {top_share}");
    }
}

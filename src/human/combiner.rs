//! The combiner: the second of the human model's two networks. It reads each legal
//! move's features ([`super::features`]: the prior's log-probability, Rookery's scores
//! at several depths, what the move is) with the player's rating, and gives one logit
//! per move; a softmax over the legal moves is the prediction. The rating enters as
//! `r = (R − 1500) / 500`, multiplied into a copy of the features, so each feature's
//! weight can change with the rating:
//!   logit = skip · [x, r·x] + out · ReLU(hidden · [x, r·x] + bias).
//! Plain Rust here (a few hundred multiply-adds per move); the trainer's candle graph
//! (`train::human::combiner`) computes the same function.

use std::path::Path;

use safetensors::SafeTensors;

use super::features::{DEPTHS, MOVE_FEATURES};
use crate::policy::network::f32_tensor;

/// Inputs of the combiner per move: the features and the features times the rating.
pub const COMBINER_INPUTS: usize = 2 * MOVE_FEATURES;
/// Rating at which `r` is 0, and the rating step that makes `r` one.
pub const RATING_CENTRE: f32 = 1500.0;
pub const RATING_SCALE: f32 = 500.0;
/// Ratings beyond these read as these (the data has few games outside them).
pub const RATING_RANGE: (f32, f32) = (600.0, 2900.0);

/// Tensor names: the hidden layer, its output weights, the direct (skip) weights, and
/// the depths the net was trained with (a net for other depths is refused).
pub const TENSORS: [&str; 5] = [
    "hidden.weight",
    "hidden.bias",
    "out.weight",
    "skip.weight",
    "depths",
];

/// The combiner's rating input.
pub fn rating_input(rating: f32) -> f32 {
    (rating.clamp(RATING_RANGE.0, RATING_RANGE.1) - RATING_CENTRE) / RATING_SCALE
}

/// `[x, r·x]`.
pub fn conditioned(x: &[f32; MOVE_FEATURES], r: f32) -> [f32; COMBINER_INPUTS] {
    let mut out = [0.0; COMBINER_INPUTS];
    out[..MOVE_FEATURES].copy_from_slice(x);
    for (o, v) in out[MOVE_FEATURES..].iter_mut().zip(x) {
        *o = r * v;
    }
    out
}

/// A loaded combiner.
pub struct Combiner {
    pub hidden: usize,
    /// `[COMBINER_INPUTS][hidden]`, input-major.
    hidden_w: Vec<f32>,
    hidden_b: Vec<f32>,
    out_w: Vec<f32>,
    skip_w: Vec<f32>,
}

impl Combiner {
    pub fn load(path: &Path) -> Result<Combiner, String> {
        let bytes = std::fs::read(path)
            .map_err(|e| format!("cannot read combiner '{}': {e}", path.display()))?;
        Combiner::from_bytes(&bytes).map_err(|e| format!("combiner '{}': {e}", path.display()))
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<Combiner, String> {
        let st =
            SafeTensors::deserialize(bytes).map_err(|e| format!("not a safetensors file ({e})"))?;
        let read = |name: &str| f32_tensor(&st, name, "a human-model combiner");
        let (shape, hidden_w) = read("hidden.weight")?;
        let hidden = *shape.get(1).ok_or("hidden.weight is not a matrix")?;
        let expect = |name: &str, got: &[usize], want: &[usize]| {
            if got == want {
                Ok(())
            } else {
                Err(format!(
                    "tensor '{name}' has shape {got:?}, expected {want:?}"
                ))
            }
        };
        expect("hidden.weight", &shape, &[COMBINER_INPUTS, hidden])?;
        let (s, hidden_b) = read("hidden.bias")?;
        expect("hidden.bias", &s, &[hidden])?;
        let (s, out_w) = read("out.weight")?;
        expect("out.weight", &s, &[hidden])?;
        let (s, skip_w) = read("skip.weight")?;
        expect("skip.weight", &s, &[COMBINER_INPUTS])?;
        let (_, depths) = read("depths")?;
        let want: Vec<f32> = DEPTHS.iter().map(|&d| d as f32).collect();
        if depths != want {
            return Err(format!(
                "trained with search depths {depths:?}; this engine reads {DEPTHS:?}"
            ));
        }
        Ok(Combiner {
            hidden,
            hidden_w,
            hidden_b,
            out_w,
            skip_w,
        })
    }

    /// One move's logit.
    pub fn logit(&self, x: &[f32; MOVE_FEATURES], r: f32) -> f32 {
        let input = conditioned(x, r);
        let mut h = self.hidden_b.clone();
        for (i, &v) in input.iter().enumerate() {
            if v != 0.0 {
                let row = &self.hidden_w[i * self.hidden..(i + 1) * self.hidden];
                h.iter_mut().zip(row).for_each(|(a, w)| *a += v * w);
            }
        }
        let deep: f32 = h.iter().zip(&self.out_w).map(|(a, w)| a.max(0.0) * w).sum();
        let direct: f32 = input.iter().zip(&self.skip_w).map(|(a, w)| a * w).sum();
        deep + direct
    }

    /// Probabilities over the moves (softmax of their logits) for a player of `rating`.
    pub fn probabilities(&self, features: &[[f32; MOVE_FEATURES]], rating: f32) -> Vec<f32> {
        let r = rating_input(rating);
        let logits: Vec<f32> = features.iter().map(|x| self.logit(x, r)).collect();
        crate::policy::network::softmax(&logits)
    }
}

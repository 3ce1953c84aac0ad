//! The network as a candle-nn model (f32): the trainer's model and the reference forward
//! pass that the integer kernel is tested against.
//!
//! Architecture: 782 inputs per perspective → feature transformer (`ft`, shared by both
//! perspectives) with H outputs → activation → concatenation [side to move, other] (2H)
//! → `l1` (32, or 16: its rows in the file say which) → CReLU → `l2` (32) → CReLU →
//! `out` (one output per bucket). The output `y` is in units of `scale` centipawns: the
//! win probability the net was trained on is `sigmoid(y)` and the evaluation is
//! `y * scale` centipawns. Sizes: [`super::shape`].
//!
//! The feature transformer's activation is the clipped ReLU `clamp(a, 0, 1)`, or its
//! square ("SCReLU") in a file with a `screlu` tensor ([1], value 1).
//!
//! Horizontal mirroring: each perspective whose king is on files a–d sees its inputs
//! mirrored left to right (`features::mirrored`); a file with a `mirror` tensor ([1],
//! value 1) marks such a net. Same weights and cost; the accumulator is rebuilt when a
//! king crosses between files d and e.
//!
//! Output buckets: a net may have B ≥ 1 outputs, one per range of the number of pieces on
//! the board ([`super::features::output_bucket`]); a position uses only its bucket's output, so
//! the last layer can weigh the same features differently in the opening and the ending at
//! almost no cost. Nets with `out.weight` [1, 32] have one bucket.

use candle_core::{DType, Device, Module, Tensor};
use candle_nn::{linear, Linear, VarBuilder};
use std::collections::HashMap;

use super::shape::{INPUTS, L1_WIDTHS, L2};

/// Training keeps `ft` weights/biases and `l1` weights inside ±WEIGHT_CLIP, so that every
/// trained net quantises: an accumulator shift of 0 and an `l1` row scale of 63.5 always
/// fit (`quantise.rs`, `choose_shifts`).
pub const WEIGHT_CLIP: f32 = 2.0;
/// Default cp-per-output-unit when a file has no `scale` tensor.
pub const DEFAULT_SCALE: f32 = 400.0;

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

/// The network as a candle-nn model (f32); tensor names as in `network`'s file format.
pub struct Model {
    pub ft: Linear,
    pub l1: Linear,
    pub l2: Linear,
    pub out: Linear,
    pub hidden: usize,
    /// Outputs of `l1` (one of [`L1_WIDTHS`]).
    pub l1_width: usize,
    pub buckets: usize,
    /// The feature transformer's activation is squared (SCReLU).
    pub squared: bool,
}

impl Model {
    /// Builds (or loads, depending on `vb`) a model with `hidden` accumulator outputs,
    /// `l1_width` outputs of `l1` (16 or 32), `buckets` output buckets, and squared
    /// activations (SCReLU) or not.
    pub fn new(
        vb: VarBuilder,
        hidden: usize,
        l1_width: usize,
        buckets: usize,
        squared: bool,
    ) -> candle_core::Result<Self> {
        if !L1_WIDTHS.contains(&l1_width) {
            candle_core::bail!("l1 width {l1_width} not supported (one of {L1_WIDTHS:?})");
        }
        Ok(Model {
            ft: linear(INPUTS, hidden, vb.pp("ft"))?,
            l1: linear(2 * hidden, l1_width, vb.pp("l1"))?,
            l2: linear(l1_width, L2, vb.pp("l2"))?,
            out: linear(L2, buckets, vb.pp("out"))?,
            hidden,
            l1_width,
            buckets,
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
        let x = if self.squared { x.sqr()? } else { x.clone() };
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

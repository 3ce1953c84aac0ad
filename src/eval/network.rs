//! A loaded network: a safetensors file parsed and validated into the candle [`Model`]
//! (reference) and its [`Quantised`] copy (kernel).
//!
//! Tensor names in the file: `ft.weight` [H, 782], `ft.bias` [H], `l1.weight` [L, 2H],
//! `l1.bias` [L] (L = 32 or 16), `l2.weight` [32, L], `l2.bias` [32], `out.weight` [B, 32],
//! `out.bias` [B] (B output buckets), and optionally `scale` [1] and the markers `screlu`
//! and `mirror` [1] ([`Markers`]).

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use std::collections::HashMap;

use super::features;
use super::model::{Markers, Model, DEFAULT_SCALE};
use super::quantise::Quantised;
use super::shape::{INPUTS, L1_WIDTHS, L2, MAX_BUCKETS, MAX_HIDDEN};

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
        if hidden == 0 || hidden > MAX_HIDDEN {
            return Err(format!("{name}: unsupported hidden size {hidden}"));
        }
        let buckets = match tensors.get("out.bias") {
            Some(t) => t.dims1().map_err(ce("out.bias must be 1-D"))?,
            None => return Err(format!("{name}: missing tensor 'out.bias'")),
        };
        if buckets == 0 || buckets > MAX_BUCKETS {
            return Err(format!(
                "{name}: unsupported number of output buckets {buckets} (1..={})",
                MAX_BUCKETS
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
        if !L1_WIDTHS.contains(&l1_width) {
            return Err(format!(
                "{name}: l1 has {l1_width} outputs; supported: {:?}",
                L1_WIDTHS
            ));
        }
        match tensors.get("l1.weight").map(|t| t.dims()) {
            Some([_, n]) if *n == 2 * hidden => {}
            Some(dims) => {
                return Err(format!(
                    "{name}: l1.weight is {dims:?}; expected [{l1_width}, {}]",
                    2 * hidden
                ))
            }
            None => return Err(format!("{name}: missing tensor 'l1.weight'")),
        }
        let markers = Markers::of(&tensors).map_err(|e| format!("{name}: {e}"))?;
        let vb = VarBuilder::from_tensors(tensors, DType::F32, &Device::Cpu);
        let model = Model::new(vb, hidden, l1_width, buckets, markers.squared)
            .map_err(|e| format!("{name}: {e}"))?;
        let q = Quantised::new(&model, markers.mirroring).map_err(|e| format!("{name}: {e}"))?;
        Ok(Network {
            name: name.to_string(),
            bytes,
            scale,
            model,
            q,
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
            "{} ({} KiB, ({}{}->{})x2{}->{}->{}->1{}, scale {}, shifts {}/{}/{}/{})",
            self.name,
            self.bytes.div_ceil(1024),
            INPUTS,
            if self.q.mirroring { " mirrored" } else { "" },
            self.q.hidden,
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

//! The self-play policy as a candle graph for training: the mover's features (dense)
//! → ReLU(hidden) → position vector (d); each legal move's logit is the position vector
//! dotted with the sum of its three embedding rows (`policy::moves`); padded move slots
//! get −1e9 so the softmax runs over the legal moves only. Same tensors and names as
//! `policy::policy_net`, whose plain-Rust pass the engine runs.

use std::collections::HashMap;

use candle_core::{DType, Device, Result, Tensor, Var, D};
use rand::rngs::StdRng;
use rand::Rng;

use super::data::PositionSet;
use crate::policy::policy_net::{tensor_shape, PolicyShape, TENSORS};
use crate::policy::shape::INPUTS;

/// Logit of a padded (non-existent) move slot.
const MASKED: f32 = -1e9;

/// A batch as candle inputs.
pub struct Batch {
    /// Dense inputs `[batch, INPUTS]` (a dense product beats candle's gathers here).
    pub x: Tensor,
    /// For each move slot, the row of its position in the batch.
    pub slot_pos: Tensor,
    /// The move slots' from–to, piece-to and promotion rows, one tensor each.
    pub move_ids: [Tensor; 3],
    pub mask: Tensor,
    pub target: Tensor,
    /// Visit data: the target distribution `[batch, slots]` (0 on padded slots).
    pub soft: Option<Tensor>,
    pub slots: usize,
}

impl Batch {
    /// Builds the batch of positions `ids` of `set`.
    pub fn new(set: &PositionSet, ids: &[usize], dev: &Device) -> Result<Batch> {
        let b = ids.len();
        let slots = ids
            .iter()
            .map(|&i| set.move_rows(i).len())
            .max()
            .unwrap_or(1);
        let mut x = vec![0f32; b * INPUTS];
        let mut move_ids = [
            vec![0u32; b * slots],
            vec![0u32; b * slots],
            vec![0u32; b * slots],
        ];
        let mut mask = vec![MASKED; b * slots];
        let mut soft = vec![0f32; if set.has_soft_targets() { b * slots } else { 0 }];
        for (r, &i) in ids.iter().enumerate() {
            if set.has_soft_targets() {
                let p = set.soft_target(i);
                soft[r * slots..r * slots + p.len()].copy_from_slice(p);
            }
            for &f in set.features(i) {
                x[r * INPUTS + f as usize] = 1.0;
            }
            for (k, rows) in set.move_rows(i).iter().enumerate() {
                for (j, &row) in rows.iter().enumerate() {
                    move_ids[j][r * slots + k] = row as u32;
                }
                mask[r * slots + k] = 0.0;
            }
        }
        let [ft, pt, promo] = move_ids;
        let slot_pos: Vec<u32> = (0..b * slots).map(|s| (s / slots) as u32).collect();
        let target: Vec<u32> = ids.iter().map(|&i| set.target[i] as u32).collect();
        Ok(Batch {
            x: Tensor::from_vec(x, (b, INPUTS), dev)?,
            slot_pos: Tensor::from_vec(slot_pos, b * slots, dev)?,
            move_ids: [
                Tensor::from_vec(ft, b * slots, dev)?,
                Tensor::from_vec(pt, b * slots, dev)?,
                Tensor::from_vec(promo, b * slots, dev)?,
            ],
            mask: Tensor::from_vec(mask, (b, slots), dev)?,
            target: Tensor::from_vec(target, b, dev)?,
            soft: if soft.is_empty() {
                None
            } else {
                Some(Tensor::from_vec(soft, (b, slots), dev)?)
            },
            slots,
        })
    }
}

/// The trainable tensors.
pub struct PolicyModel {
    pub shape: PolicyShape,
    pub vars: HashMap<String, Var>,
}

impl PolicyModel {
    /// Fresh weights: He-scaled layers (the first for ~30 active inputs), small move
    /// embeddings, zero biases.
    pub fn new(shape: PolicyShape, rng: &mut StdRng, dev: &Device) -> Result<PolicyModel> {
        let mut vars = HashMap::new();
        for name in TENSORS {
            let dims = tensor_shape(name, shape);
            let n: usize = dims.iter().product();
            let std = match name {
                "policy.l1.weight" => (2.0f32 / 30.0).sqrt(),
                "policy.l2.weight" => (2.0 / shape.hidden as f32).sqrt(),
                "policy.moves" => (1.0 / (3.0 * shape.d as f32)).sqrt(),
                _ => 0.0,
            };
            let values: Vec<f32> = (0..n)
                .map(|_| {
                    // Sum of 4 uniforms: close enough to a normal for an init.
                    let u: f32 = (0..4).map(|_| rng.gen::<f32>() - 0.5).sum();
                    u * std * 3f32.sqrt()
                })
                .collect();
            let t = Tensor::from_vec(values, dims, dev)?;
            vars.insert(name.to_string(), Var::from_tensor(&t)?);
        }
        Ok(PolicyModel { shape, vars })
    }

    /// A model holding the given tensors (a saved net).
    pub fn from_tensors(map: &HashMap<String, Tensor>) -> std::result::Result<PolicyModel, String> {
        let get = |n: &str| map.get(n).ok_or_else(|| format!("no tensor '{n}'"));
        let dim = |n: &str| -> std::result::Result<usize, String> {
            get(n)?
                .dims()
                .get(1)
                .copied()
                .ok_or_else(|| format!("tensor '{n}' is not a matrix"))
        };
        let shape = PolicyShape {
            hidden: dim("policy.l1.weight")?,
            d: dim("policy.l2.weight")?,
        };
        let mut vars = HashMap::new();
        for name in TENSORS {
            let t = get(name)?.to_dtype(DType::F32).map_err(|e| e.to_string())?;
            if t.dims() != tensor_shape(name, shape).as_slice() {
                return Err(format!("tensor '{name}' has shape {:?}", t.dims()));
            }
            let var = Var::from_tensor(&t).map_err(|e| e.to_string())?;
            vars.insert(name.to_string(), var);
        }
        Ok(PolicyModel { shape, vars })
    }

    fn v(&self, name: &str) -> &Tensor {
        self.vars[name].as_tensor()
    }

    /// Masked logits `[batch, slots]`.
    pub fn logits(&self, b: &Batch) -> Result<Tensor> {
        let n = b.target.dims1()?;
        let hidden =
            b.x.matmul(self.v("policy.l1.weight"))?
                .broadcast_add(self.v("policy.l1.bias"))?
                .relu()?;
        let h = hidden
            .matmul(self.v("policy.l2.weight"))?
            .broadcast_add(self.v("policy.l2.bias"))?;
        // Per move slot everything stays contiguous `[slots, d]`: candle's strided
        // broadcasts and middle-axis sums are several times slower on the CPU.
        let table = self.v("policy.moves");
        let [ft, pt, promo] = &b.move_ids;
        let moves = ((table.index_select(ft, 0)? + table.index_select(pt, 0)?)?
            + table.index_select(promo, 0)?)?;
        let logits = (moves * h.index_select(&b.slot_pos, 0)?)?
            .sum(1)?
            .reshape((n, b.slots))?;
        logits + &b.mask
    }

    /// Mean cross-entropy of the targets: the played moves, or for visit data the
    /// visit distributions (−Σ π·log p; padded slots have π = 0).
    pub fn loss(&self, b: &Batch) -> Result<Tensor> {
        let logits = self.logits(b)?;
        let logp = candle_nn::ops::log_softmax(&logits, D::Minus1)?;
        if let Some(soft) = &b.soft {
            return (soft * logp)?.sum(1)?.mean_all()?.neg();
        }
        let picked = logp.gather(&b.target.unsqueeze(1)?, 1)?;
        picked.mean_all()?.neg()
    }

    /// The tensors to save (a copy of each variable).
    pub fn tensors(&self) -> Result<HashMap<String, Tensor>> {
        self.vars
            .iter()
            .map(|(k, v)| Ok((k.clone(), v.as_tensor().copy()?)))
            .collect()
    }
}

//! The prior network as a candle graph for training: the mover's features (dense)
//! → ReLU(h1) → + mover/opponent rating and time embeddings → ReLU(h2) → position
//! vector (d); each legal move's logit is the position vector dotted with the sum of its
//! three embedding rows (`policy::moves`); padded move slots get −1e9 so the softmax
//! runs over the legal moves only. Same tensors and names as `policy::network`.

use std::collections::HashMap;

use candle_core::{DType, Device, Result, Tensor, Var, D};
use rand::rngs::StdRng;
use rand::Rng;

use super::data::PolicySet;
use crate::policy::network::{tensor_shape, TENSORS};
use crate::policy::shape::{PriorShape, INPUTS};

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
    pub mover: Tensor,
    pub opp: Tensor,
    pub time: Tensor,
    pub mask: Tensor,
    pub target: Tensor,
    pub slots: usize,
}

impl Batch {
    /// Builds the batch of positions `ids` of `set`.
    pub fn new(set: &PolicySet, ids: &[usize], dev: &Device) -> Result<Batch> {
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
        for (r, &i) in ids.iter().enumerate() {
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
        let ids_of = |f: &dyn Fn(usize) -> u32| -> Result<Tensor> {
            Tensor::from_vec(ids.iter().map(|&i| f(i)).collect::<Vec<u32>>(), b, dev)
        };
        Ok(Batch {
            x: Tensor::from_vec(x, (b, INPUTS), dev)?,
            slot_pos: Tensor::from_vec(
                (0..b * slots)
                    .map(|s| (s / slots) as u32)
                    .collect::<Vec<u32>>(),
                b * slots,
                dev,
            )?,
            mover: ids_of(&|i| set.mover_bucket(i) as u32)?,
            opp: ids_of(&|i| set.opponent_bucket(i) as u32)?,
            time: ids_of(&|i| set.time[i] as u32)?,
            move_ids: [
                Tensor::from_vec(ft, b * slots, dev)?,
                Tensor::from_vec(pt, b * slots, dev)?,
                Tensor::from_vec(promo, b * slots, dev)?,
            ],
            mask: Tensor::from_vec(mask, (b, slots), dev)?,
            target: ids_of(&|i| set.target[i] as u32)?,
            slots,
        })
    }
}

/// The trainable tensors.
pub struct PriorModel {
    pub shape: PriorShape,
    pub vars: HashMap<String, Var>,
}

impl PriorModel {
    /// Fresh weights: He-scaled layers (the first for ~30 active inputs), small move
    /// embeddings, zero conditioning embeddings and biases.
    pub fn new(shape: PriorShape, rng: &mut StdRng, dev: &Device) -> Result<PriorModel> {
        let mut vars = HashMap::new();
        for name in TENSORS {
            let dims = tensor_shape(name, shape);
            let n: usize = dims.iter().product();
            let std = match name {
                "l1.weight" => (2.0f32 / 30.0).sqrt(),
                "l2.weight" => (2.0 / shape.h1 as f32).sqrt(),
                "l3.weight" => (1.0 / shape.h2 as f32).sqrt(),
                "moves.emb" => (1.0 / (3.0 * shape.d as f32)).sqrt(),
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
        Ok(PriorModel { shape, vars })
    }

    /// A model holding the given tensors (a saved net).
    pub fn from_tensors(map: &HashMap<String, Tensor>) -> std::result::Result<PriorModel, String> {
        let get = |n: &str| map.get(n).ok_or_else(|| format!("no tensor '{n}'"));
        let dim = |n: &str| -> std::result::Result<usize, String> {
            get(n)?
                .dims()
                .get(1)
                .copied()
                .ok_or_else(|| format!("tensor '{n}' is not a matrix"))
        };
        let shape = PriorShape {
            h1: dim("l1.weight")?,
            h2: dim("l2.weight")?,
            d: dim("l3.weight")?,
        };
        let mut vars = HashMap::new();
        for name in TENSORS {
            let t = get(name)?.to_dtype(DType::F32).map_err(|e| e.to_string())?;
            if t.dims() != tensor_shape(name, shape).as_slice() {
                return Err(format!("tensor '{name}' has shape {:?}", t.dims()));
            }
            vars.insert(
                name.to_string(),
                Var::from_tensor(&t).map_err(|e| e.to_string())?,
            );
        }
        Ok(PriorModel { shape, vars })
    }

    fn v(&self, name: &str) -> &Tensor {
        self.vars[name].as_tensor()
    }

    /// Masked logits `[batch, slots]`.
    pub fn logits(&self, b: &Batch) -> Result<Tensor> {
        let n = b.target.dims1()?;
        let h1 =
            b.x.matmul(self.v("l1.weight"))?
                .broadcast_add(self.v("l1.bias"))?
                .relu()?;
        let h2 = (h1
            .matmul(self.v("l2.weight"))?
            .broadcast_add(self.v("l2.bias"))?
            + self.v("mover.emb").index_select(&b.mover, 0)?)?;
        let h2 = (h2 + self.v("opp.emb").index_select(&b.opp, 0)?)?;
        let h2 = (h2 + self.v("time.emb").index_select(&b.time, 0)?)?.relu()?;
        let h = h2
            .matmul(self.v("l3.weight"))?
            .broadcast_add(self.v("l3.bias"))?;
        // Everything per move slot stays contiguous `[slots, d]`: candle's strided
        // broadcasts and middle-axis sums are several times slower on the CPU.
        let table = self.v("moves.emb");
        let [ft, pt, promo] = &b.move_ids;
        let moves = ((table.index_select(ft, 0)? + table.index_select(pt, 0)?)?
            + table.index_select(promo, 0)?)?;
        let logits = (moves * h.index_select(&b.slot_pos, 0)?)?
            .sum(1)?
            .reshape((n, b.slots))?;
        logits + &b.mask
    }

    /// Mean cross-entropy of the played moves.
    pub fn loss(&self, b: &Batch) -> Result<Tensor> {
        let logits = self.logits(b)?;
        let logp = candle_nn::ops::log_softmax(&logits, D::Minus1)?;
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

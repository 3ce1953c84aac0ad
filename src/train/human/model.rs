//! The prior network as a candle graph for training: the mover's features (dense)
//! → ReLU(h1) → + mover/opponent rating (rows per rating scale) and time embeddings
//! → ReLU(h2) → position
//! vector (d); each legal move's logit is the position vector dotted with the sum of its
//! three embedding rows (`policy::moves`); padded move slots get −1e9 so the softmax
//! runs over the legal moves only. Same tensors and names as `policy::network`.

use std::collections::HashMap;

use candle_core::{Device, Result, Tensor, Var, D};
use rand::rngs::StdRng;

use super::data::PolicySet;
use crate::policy::moves::MOVE_ROWS;
use crate::policy::network::{scales_of_rows, tensor_shape, TENSORS};
use crate::policy::shape::PriorShape;
use crate::policy::tactics::TACTIC_ROWS;
use crate::train::move_net::{tensors, MoveBatch, MoveNetModel};

/// A batch as candle inputs: the moves and the conditioning.
pub struct Batch {
    pub moves: MoveBatch,
    pub mover: Tensor,
    pub opp: Tensor,
    pub time: Tensor,
}

impl Batch {
    /// Builds the batch of positions `ids` of `set`.
    pub fn new(set: &PolicySet, ids: &[usize], dev: &Device) -> Result<Batch> {
        let ids_of = |f: &dyn Fn(usize) -> u32| -> Result<Tensor> {
            Tensor::from_vec(
                ids.iter().map(|&i| f(i)).collect::<Vec<u32>>(),
                ids.len(),
                dev,
            )
        };
        Ok(Batch {
            moves: MoveBatch::new(set, ids, dev)?,
            mover: ids_of(&|i| set.mover_row(i) as u32)?,
            opp: ids_of(&|i| set.opponent_row(i) as u32)?,
            time: ids_of(&|i| set.time[i] as u32)?,
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
        let std = |name: &str| match name {
            "l1.weight" => (2.0f32 / 30.0).sqrt(),
            "l2.weight" => (2.0 / shape.h1 as f32).sqrt(),
            "l3.weight" => (1.0 / shape.h2 as f32).sqrt(),
            "moves.emb" => (1.0 / (3.0 * shape.d as f32)).sqrt(),
            _ => 0.0,
        };
        let dims = |name: &str| tensor_shape(name, shape);
        let vars = tensors::fresh_vars(&TENSORS, dims, std, rng, dev)?;
        Ok(PriorModel { shape, vars })
    }

    /// A model holding the given tensors (a saved net).
    pub fn from_tensors(map: &HashMap<String, Tensor>) -> std::result::Result<PriorModel, String> {
        let shape = PriorShape {
            h1: tensors::width(map, "l1.weight")?,
            h2: tensors::width(map, "l2.weight")?,
            d: tensors::width(map, "l3.weight")?,
            tactics: map
                .get("moves.emb")
                .map(|t| t.dims().first() == Some(&(MOVE_ROWS + TACTIC_ROWS)))
                .unwrap_or(false),
            scales: scales_of_rows(
                map.get("mover.emb")
                    .and_then(|t| t.dims().first().copied())
                    .ok_or("no tensor 'mover.emb'")?,
            )?,
        };
        let vars = tensors::vars_from_tensors(map, &TENSORS, |name| tensor_shape(name, shape))?;
        Ok(PriorModel { shape, vars })
    }

    fn v(&self, name: &str) -> &Tensor {
        self.vars[name].as_tensor()
    }

    /// Masked logits `[batch, slots]`.
    pub fn logits(&self, b: &Batch) -> Result<Tensor> {
        let h1 = b
            .moves
            .x
            .matmul(self.v("l1.weight"))?
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
        b.moves.logits(&h, self.v("moves.emb"))
    }

    /// Mean cross-entropy of the played moves.
    pub fn loss(&self, b: &Batch) -> Result<Tensor> {
        let logp = candle_nn::ops::log_softmax(&self.logits(b)?, D::Minus1)?;
        b.moves.target_loss(&logp)
    }

    /// The tensors to save (a copy of each variable).
    pub fn tensors(&self) -> Result<HashMap<String, Tensor>> {
        tensors::copies(&self.vars)
    }
}

impl MoveNetModel for PriorModel {
    type Positions = PolicySet;
    type Batch = Batch;

    fn vars(&self) -> &HashMap<String, Var> {
        &self.vars
    }

    fn batch(set: &PolicySet, ids: &[usize], dev: &Device) -> Result<Batch> {
        Batch::new(set, ids, dev)
    }

    fn loss(&self, batch: &Batch) -> Result<Tensor> {
        PriorModel::loss(self, batch)
    }
}

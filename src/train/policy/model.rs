//! The self-play policy as a candle graph for training: the mover's features (dense)
//! → ReLU(hidden) → position vector (d); each legal move's logit is the position vector
//! dotted with the sum of its three embedding rows (`policy::moves`); padded move slots
//! get −1e9 so the softmax runs over the legal moves only. Same tensors and names as
//! `policy::policy_net`, whose plain-Rust pass the engine runs.

use std::collections::HashMap;

use candle_core::{Device, Result, Tensor, Var, D};
use rand::rngs::StdRng;

use super::data::PositionSet;
use crate::policy::moves::MOVE_ROWS;
use crate::policy::policy_net::{tensor_shape, PolicyShape, TENSORS};
use crate::policy::threat_features::THREAT_INPUTS;
use crate::train::move_net::{tensors, MoveBatch, MoveNetModel};

/// A batch as candle inputs.
pub struct Batch {
    pub moves: MoveBatch,
    /// Visit data: the target distribution `[batch, slots]` (0 on padded slots).
    pub soft: Option<Tensor>,
}

impl Batch {
    /// Builds the batch of positions `ids` of `set`.
    pub fn new(set: &PositionSet, ids: &[usize], dev: &Device) -> Result<Batch> {
        let moves = MoveBatch::new(set, ids, dev)?;
        let soft = if set.has_soft_targets() {
            let slots = moves.slots;
            let mut soft = vec![0f32; ids.len() * slots];
            for (r, &i) in ids.iter().enumerate() {
                let p = set.soft_target(i);
                soft[r * slots..r * slots + p.len()].copy_from_slice(p);
            }
            Some(Tensor::from_vec(soft, (ids.len(), slots), dev)?)
        } else {
            None
        };
        Ok(Batch { moves, soft })
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
        let std = |name: &str| match name {
            "policy.l1.weight" => (2.0f32 / 30.0).sqrt(),
            "policy.l2.weight" => (2.0 / shape.hidden as f32).sqrt(),
            "policy.moves" => {
                let rows_per_move = if shape.tactics { 4.0 } else { 3.0 };
                (1.0 / (rows_per_move * shape.d as f32)).sqrt()
            }
            _ => 0.0,
        };
        let dims = |name: &str| tensor_shape(name, shape);
        let vars = tensors::fresh_vars(&TENSORS, dims, std, rng, dev)?;
        Ok(PolicyModel { shape, vars })
    }

    /// A model holding the given tensors (a saved net).
    pub fn from_tensors(map: &HashMap<String, Tensor>) -> std::result::Result<PolicyModel, String> {
        let shape = PolicyShape {
            hidden: tensors::width(map, "policy.l1.weight")?,
            d: tensors::width(map, "policy.l2.weight")?,
            tactics: map
                .get("policy.moves")
                .and_then(|t| t.dim(0).ok())
                .is_some_and(|rows| rows > MOVE_ROWS),
            threat_inputs: map
                .get("policy.l1.weight")
                .and_then(|t| t.dim(0).ok())
                .is_some_and(|rows| rows == THREAT_INPUTS),
        };
        let vars = tensors::vars_from_tensors(map, &TENSORS, |name| tensor_shape(name, shape))?;
        Ok(PolicyModel { shape, vars })
    }

    fn v(&self, name: &str) -> &Tensor {
        self.vars[name].as_tensor()
    }

    /// Masked logits `[batch, slots]`.
    pub fn logits(&self, b: &Batch) -> Result<Tensor> {
        let hidden = b
            .moves
            .x
            .matmul(self.v("policy.l1.weight"))?
            .broadcast_add(self.v("policy.l1.bias"))?
            .relu()?;
        let h = hidden
            .matmul(self.v("policy.l2.weight"))?
            .broadcast_add(self.v("policy.l2.bias"))?;
        b.moves.logits(&h, self.v("policy.moves"))
    }

    /// Mean cross-entropy of the targets: the played moves, or for visit data the
    /// visit distributions (−Σ π·log p; padded slots have π = 0).
    pub fn loss(&self, b: &Batch) -> Result<Tensor> {
        let logp = candle_nn::ops::log_softmax(&self.logits(b)?, D::Minus1)?;
        if let Some(soft) = &b.soft {
            return (soft * logp)?.sum(1)?.mean_all()?.neg();
        }
        b.moves.target_loss(&logp)
    }

    /// The tensors to save (a copy of each variable).
    pub fn tensors(&self) -> Result<HashMap<String, Tensor>> {
        tensors::copies(&self.vars)
    }
}

impl MoveNetModel for PolicyModel {
    type Positions = PositionSet;
    type Batch = Batch;

    fn vars(&self) -> &HashMap<String, Var> {
        &self.vars
    }

    fn batch(set: &PositionSet, ids: &[usize], dev: &Device) -> Result<Batch> {
        Batch::new(set, ids, dev)
    }

    fn loss(&self, batch: &Batch) -> Result<Tensor> {
        PolicyModel::loss(self, batch)
    }
}

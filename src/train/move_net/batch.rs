//! The move part of a training batch (inputs, move slots, mask, targets) and the logits
//! and loss built on it; each trainer's batch adds its own inputs beside it.

use candle_core::{Device, Result, Tensor};

use super::positions::MovePositions;
use crate::policy::moves::MOVE_ROWS;

/// Logit of a padded (non-existent) move slot.
const MASKED: f32 = -1e9;

/// A batch as candle inputs.
pub struct MoveBatch {
    /// Dense inputs `[batch, inputs]` (a dense product beats candle's gathers here).
    pub x: Tensor,
    /// For each move slot, the row of its position in the batch.
    pub slot_pos: Tensor,
    /// The move slots' from–to, piece-to and promotion rows, one tensor each.
    pub move_ids: [Tensor; 3],
    /// Their tactical rows, when the positions carry them (`MovePositions::with_tactics`).
    pub tactic_ids: Option<Tensor>,
    pub mask: Tensor,
    pub target: Tensor,
    pub slots: usize,
}

impl MoveBatch {
    /// Builds the batch of positions `ids` of `set`.
    pub fn new(set: &MovePositions, ids: &[usize], dev: &Device) -> Result<MoveBatch> {
        let b = ids.len();
        let inputs = set.inputs();
        let slots = ids
            .iter()
            .map(|&i| set.move_rows(i).len())
            .max()
            .unwrap_or(1);
        let mut x = vec![0f32; b * inputs];
        let mut move_ids: [Vec<u32>; 3] = std::array::from_fn(|_| vec![0u32; b * slots]);
        let mut tactic_ids = vec![0u32; if set.with_tactics { b * slots } else { 0 }];
        let mut mask = vec![MASKED; b * slots];
        for (r, &i) in ids.iter().enumerate() {
            for &f in set.features(i) {
                x[r * inputs + f as usize] = 1.0;
            }
            for (k, rows) in set.move_rows(i).iter().enumerate() {
                for (j, &row) in rows.iter().enumerate() {
                    move_ids[j][r * slots + k] = row as u32;
                }
                mask[r * slots + k] = 0.0;
            }
            for (k, &row) in set.tactic_rows(i).iter().enumerate() {
                tactic_ids[r * slots + k] = row as u32;
            }
        }
        let [ft, pt, promo] = move_ids;
        let slot_pos: Vec<u32> = (0..b * slots).map(|s| (s / slots) as u32).collect();
        let target: Vec<u32> = ids.iter().map(|&i| set.target[i] as u32).collect();
        Ok(MoveBatch {
            x: Tensor::from_vec(x, (b, inputs), dev)?,
            slot_pos: Tensor::from_vec(slot_pos, b * slots, dev)?,
            move_ids: [
                Tensor::from_vec(ft, b * slots, dev)?,
                Tensor::from_vec(pt, b * slots, dev)?,
                Tensor::from_vec(promo, b * slots, dev)?,
            ],
            tactic_ids: match set.with_tactics {
                true => Some(Tensor::from_vec(tactic_ids, b * slots, dev)?),
                false => None,
            },
            mask: Tensor::from_vec(mask, (b, slots), dev)?,
            target: Tensor::from_vec(target, b, dev)?,
            slots,
        })
    }

    /// Masked logits `[batch, slots]`: the position vectors `h` `[batch, d]` dotted with
    /// the sum of each move's three rows of the embedding `table`, and its tactical row
    /// when the table has the tactical block.
    pub fn logits(&self, h: &Tensor, table: &Tensor) -> Result<Tensor> {
        let n = self.target.dims1()?;
        // Per move slot everything stays contiguous `[slots, d]`: candle's strided
        // broadcasts and middle-axis sums are several times slower on the CPU.
        let [ft, pt, promo] = &self.move_ids;
        let mut moves = ((table.index_select(ft, 0)? + table.index_select(pt, 0)?)?
            + table.index_select(promo, 0)?)?;
        if table.dim(0)? > MOVE_ROWS {
            // A table with the tactical block must never read positions without it.
            let tactic = self.tactic_ids.as_ref().ok_or_else(|| {
                candle_core::Error::Msg("the net has tactical rows, the positions do not".into())
            })?;
            moves = (moves + table.index_select(tactic, 0)?)?;
        }
        let logits = (moves * h.index_select(&self.slot_pos, 0)?)?
            .sum(1)?
            .reshape((n, self.slots))?;
        logits + &self.mask
    }

    /// Mean cross-entropy of the target moves, given the log-probabilities `logp`
    /// `[batch, slots]`.
    pub fn target_loss(&self, logp: &Tensor) -> Result<Tensor> {
        let picked = logp.gather(&self.target.unsqueeze(1)?, 1)?;
        picked.mean_all()?.neg()
    }
}

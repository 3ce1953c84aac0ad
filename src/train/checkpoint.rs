//! Resume checkpoints: weights, optimiser state and the position in the data, so that a
//! run stopped part-way continues to the net an uninterrupted run would give.

use std::collections::HashMap;

use candle_core::{Device, Tensor, Var};

use super::weights::{set_vars, tensors_to_save};
use super::{ce, optim};
use crate::eval::model::Markers;

/// Where a run is: the next batch to train is batch `in_epoch` of `epoch`.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Position {
    pub epoch: usize,
    pub in_epoch: usize,
    /// Optimiser steps done in all (drives the learning-rate schedule).
    pub step: usize,
    /// The epoch's running loss so far (for its reported mean).
    pub loss_sum: f64,
    pub loss_count: usize,
}

/// Writes `<dir>/resume.safetensors`: weights, `scale`, optimiser state and position.
/// Written to a temporary file first, so a run killed mid-write keeps the previous one.
pub(super) fn save_checkpoint(
    dir: &str,
    vars: &HashMap<String, Var>,
    opt: &optim::ResumableAdamW,
    scale: f32,
    markers: Markers,
    at: &Position,
) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {dir}: {e}"))?;
    let mut map = tensors_to_save(vars, scale, markers)?;
    map.extend(opt.state().map_err(ce)?);
    let dev = Device::Cpu;
    let position = [
        at.epoch as u32,
        at.in_epoch as u32,
        at.step as u32,
        at.loss_count as u32,
    ];
    map.insert(
        "train.position".into(),
        Tensor::new(&position, &dev).map_err(ce)?,
    );
    map.insert(
        "train.loss_sum".into(),
        Tensor::new(&[at.loss_sum], &dev).map_err(ce)?,
    );
    let path = format!("{dir}/resume.safetensors");
    let tmp = format!("{path}.tmp");
    candle_core::safetensors::save(&map, &tmp).map_err(|e| format!("cannot save '{tmp}': {e}"))?;
    std::fs::rename(&tmp, &path).map_err(|e| format!("cannot rename to '{path}': {e}"))
}

/// Restores weights and optimiser state from a resume checkpoint; returns its position.
pub(super) fn load_checkpoint(
    path: &str,
    vars: &HashMap<String, Var>,
    opt: &mut optim::ResumableAdamW,
    markers: Markers,
) -> Result<Position, String> {
    let map = candle_core::safetensors::load(path, &Device::Cpu)
        .map_err(|e| format!("cannot read checkpoint '{path}': {e}"))?;
    set_vars(&map, vars, markers, &format!("checkpoint '{path}'"))?;
    opt.load_state(&map)
        .map_err(|e| format!("checkpoint '{path}': {e}"))?;
    let position = map
        .get("train.position")
        .ok_or("checkpoint lacks train.position")?
        .to_vec1::<u32>()
        .map_err(ce)?;
    let loss_sum = map
        .get("train.loss_sum")
        .ok_or("checkpoint lacks train.loss_sum")?
        .to_vec1::<f64>()
        .map_err(ce)?;
    if position.len() != 4 || loss_sum.len() != 1 {
        return Err(format!("checkpoint '{path}': malformed position"));
    }
    Ok(Position {
        epoch: position[0] as usize,
        in_epoch: position[1] as usize,
        step: position[2] as usize,
        loss_count: position[3] as usize,
        loss_sum: loss_sum[0],
    })
}

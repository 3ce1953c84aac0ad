//! The loss: of one batch (the training objective), over a set of positions, and of a
//! saved net on the fixed validation set (`--score-net`).

use std::sync::Arc;

use candle_core::{DType, Device, Tensor};
use candle_nn::{VarBuilder, VarMap};

use super::data::{Dataset, SparseBufs};
use super::sets::load_validation;
use super::weights::set_vars;
use super::{ce, sparse, TrainArgs};
use crate::eval::model::{Markers, Model};

/// Loss (MSE between sigmoid(output) and target) of one batch; returns the loss tensor.
pub(super) fn batch_loss(
    model: &Model,
    bufs: &SparseBufs,
    n: usize,
) -> candle_core::Result<Tensor> {
    let dev = Device::Cpu;
    let target = Tensor::from_slice(&bufs.target, (n, 1), &dev)?;
    let w = model.ft.weight();
    let b = match model.ft.bias() {
        Some(b) => b,
        None => candle_core::bail!("ft has no bias"),
    };
    let x = sparse::ft_crelu_pair(w, b, Arc::clone(&bufs.stm), Arc::clone(&bufs.other))?;
    let y = model.head_activated(&x)?;
    let y = if model.buckets == 1 {
        y
    } else {
        let bucket: Vec<u32> = (bufs.pieces.iter())
            .map(|&p| crate::eval::features::output_bucket(p as usize, model.buckets) as u32)
            .collect();
        model.select_bucket(&y, &Tensor::from_vec(bucket, (n, 1), &dev)?)?
    };
    let p = candle_nn::ops::sigmoid(&y)?;
    if !bufs.weighted {
        return candle_nn::loss::mse(&p, &target);
    }
    // Weighted mean of the squared errors (data sets mixed by `FILE@WEIGHT`).
    let w = Tensor::from_slice(&bufs.weight, (n, 1), &dev)?;
    let sq = (&p - &target)?.sqr()?;
    (sq * &w)?.sum_all()? / w.sum_all()?.to_scalar::<f32>()? as f64
}

/// Mean loss over `ids` without training.
pub(super) fn evaluate_loss(
    model: &Model,
    ds: &Dataset,
    ids: &[usize],
    args: &TrainArgs,
) -> Result<f64, String> {
    let mut bufs = SparseBufs::default();
    let (mut sum, mut count) = (0.0f64, 0usize);
    for chunk in ids.chunks(args.batch_size.max(1)) {
        ds.sparse_batch(chunk, args.wdl_lambda, args.scale, &mut bufs);
        let loss = batch_loss(model, &bufs, chunk.len()).map_err(ce)?;
        let l = loss.to_scalar::<f32>().map_err(ce)? as f64;
        sum += l * chunk.len() as f64;
        count += chunk.len();
    }
    Ok(if count == 0 {
        f64::NAN
    } else {
        sum / count as f64
    })
}

/// The loss of the network in `path` on the `--val-data` positions, with the net's own
/// `scale` and the run's `--wdl-lambda`; returns (loss, positions).
pub fn score_net(args: &TrainArgs, path: &str) -> Result<(f64, usize), String> {
    let map = candle_core::safetensors::load(path, &Device::Cpu)
        .map_err(|e| format!("cannot read '{path}': {e}"))?;
    let dims = |name: &str| -> Result<Vec<usize>, String> {
        Ok(map
            .get(name)
            .ok_or_else(|| format!("'{path}' lacks {name}"))?
            .dims()
            .to_vec())
    };
    let hidden = dims("ft.bias")?[0];
    let buckets = dims("out.bias")?[0];
    let l1_width = dims("l1.bias")?[0];
    let markers = Markers::of(&map).map_err(|e| format!("'{path}': {e}"))?;
    let scale = match map.get("scale") {
        Some(t) => t.to_vec1::<f32>().map_err(ce)?[0],
        None => args.scale,
    };
    let varmap = VarMap::new();
    let vb = VarBuilder::from_varmap(&varmap, DType::F32, &Device::Cpu);
    let model = Model::new(vb, hidden, l1_width, buckets, markers.squared).map_err(ce)?;
    let vars = varmap
        .data()
        .lock()
        .map_err(|_| "var map lock poisoned")?
        .clone();
    set_vars(&map, &vars, markers, &format!("'{path}'"))?;
    let scored = TrainArgs {
        scale,
        mirror: markers.mirroring,
        ..args.clone()
    };
    let ds = load_validation(&scored)?;
    let ids: Vec<usize> = (0..ds.len()).collect();
    Ok((evaluate_loss(&model, &ds, &ids, &scored)?, ds.len()))
}

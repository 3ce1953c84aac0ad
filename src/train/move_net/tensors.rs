//! A move net's named tensors: fresh weights, a saved net's tensors checked against
//! the expected shapes, and saving.

use std::collections::HashMap;
use std::path::Path;

use candle_core::{DType, Device, Result, Tensor, Var};
use rand::rngs::StdRng;
use rand::Rng;

use super::train_loop::MoveNetModel;
use crate::train::ce;

/// Fresh variables for `names` in that order (so a seed gives the same weights): each
/// of shape `dims(name)`, drawn with standard deviation `std(name)` (0: all zero, the
/// draws still taken).
pub fn fresh_vars(
    names: &[&str],
    dims: impl Fn(&str) -> Vec<usize>,
    std: impl Fn(&str) -> f32,
    rng: &mut StdRng,
    dev: &Device,
) -> Result<HashMap<String, Var>> {
    let mut vars = HashMap::new();
    for &name in names {
        let dims = dims(name);
        let n: usize = dims.iter().product();
        let std = std(name);
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
    Ok(vars)
}

/// The second dimension of matrix `name` of `map` (a layer width of a saved net).
pub fn width(map: &HashMap<String, Tensor>, name: &str) -> std::result::Result<usize, String> {
    get(map, name)?
        .dims()
        .get(1)
        .copied()
        .ok_or_else(|| format!("tensor '{name}' is not a matrix"))
}

fn get<'m>(
    map: &'m HashMap<String, Tensor>,
    name: &str,
) -> std::result::Result<&'m Tensor, String> {
    map.get(name).ok_or_else(|| format!("no tensor '{name}'"))
}

/// Variables holding tensors `names` of `map` (a saved net) as f32, each checked to
/// have shape `dims(name)`.
pub fn vars_from_tensors(
    map: &HashMap<String, Tensor>,
    names: &[&str],
    dims: impl Fn(&str) -> Vec<usize>,
) -> std::result::Result<HashMap<String, Var>, String> {
    let mut vars = HashMap::new();
    for &name in names {
        let t = get(map, name)?
            .to_dtype(DType::F32)
            .map_err(|e| e.to_string())?;
        if t.dims() != dims(name).as_slice() {
            return Err(format!("tensor '{name}' has shape {:?}", t.dims()));
        }
        let var = Var::from_tensor(&t).map_err(|e| e.to_string())?;
        vars.insert(name.to_string(), var);
    }
    Ok(vars)
}

/// The tensors to save (a copy of each variable).
pub fn copies(vars: &HashMap<String, Var>) -> Result<HashMap<String, Tensor>> {
    vars.iter()
        .map(|(k, v)| Ok((k.clone(), v.as_tensor().copy()?)))
        .collect()
}

/// Saves the model's tensors as safetensors (creating the folder).
pub fn save<M: MoveNetModel>(model: &M, path: &Path) -> std::result::Result<(), String> {
    crate::train::save_tensors(&copies(model.vars()).map_err(ce)?, path)
}

//! The trained tensors: their names, seeded initialisation, saving, and setting them from
//! a saved net (`--init`, `--init-ft`, a resume checkpoint) with every shape checked.

use std::collections::HashMap;

use candle_core::{Device, Tensor, Var};
use rand::rngs::StdRng;
use rand::Rng;

use super::ce;
use crate::eval::model::{Markers, WEIGHT_CLIP};
use crate::eval::shape;

/// Names of the trained tensors, in save order.
pub(super) const NAMES: [&str; 8] = [
    "ft.weight",
    "ft.bias",
    "l1.weight",
    "l1.bias",
    "l2.weight",
    "l2.bias",
    "out.weight",
    "out.bias",
];

/// Seeded initialisation: uniform ±1/sqrt(fan-in); the feature transformer uses the
/// typical number of active inputs (32) as its fan-in.
pub(super) fn init_weights(
    vars: &HashMap<String, Var>,
    l1_inputs: usize,
    l1_width: usize,
    rng: &mut StdRng,
) -> Result<(), String> {
    for name in NAMES {
        let var = vars
            .get(name)
            .ok_or_else(|| format!("missing var {name}"))?;
        let fan_in = match name.split('.').next() {
            Some("ft") => 32,
            Some("l1") => l1_inputs,
            Some("l2") => l1_width,
            _ => shape::L2,
        };
        let bound = (1.0 / (fan_in as f32).sqrt()).min(WEIGHT_CLIP);
        let n = var.as_tensor().elem_count();
        let vals: Vec<f32> = (0..n).map(|_| rng.gen_range(-bound..bound)).collect();
        let t = Tensor::from_vec(vals, var.as_tensor().shape(), &Device::Cpu).map_err(ce)?;
        var.set(&t).map_err(ce)?;
    }
    Ok(())
}

/// The tensors to save (trained weights + `scale`, and the `markers` that are on).
pub(super) fn tensors_to_save(
    vars: &HashMap<String, Var>,
    scale: f32,
    markers: Markers,
) -> Result<HashMap<String, Tensor>, String> {
    let mut map = HashMap::new();
    for name in NAMES {
        let var = vars
            .get(name)
            .ok_or_else(|| format!("missing var {name}"))?;
        map.insert(name.to_string(), var.as_tensor().copy().map_err(ce)?);
    }
    map.insert(
        "scale".to_string(),
        Tensor::new(&[scale], &Device::Cpu).map_err(ce)?,
    );
    map.extend(markers.tensors().map_err(ce)?);
    Ok(map)
}

pub(super) fn save(
    vars: &HashMap<String, Var>,
    scale: f32,
    markers: Markers,
    path: &str,
) -> Result<(), String> {
    if let Some(dir) = std::path::Path::new(path).parent() {
        if !dir.as_os_str().is_empty() {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
    }
    let map = tensors_to_save(vars, scale, markers)?;
    candle_core::safetensors::save(&map, path).map_err(|e| format!("cannot save '{path}': {e}"))
}

/// Sets every trained tensor (`NAMES`) from `map`, checking each shape, the activation
/// and the mirroring (`markers`) against the net built for this run; `what` names the
/// file in errors.
pub(super) fn set_vars(
    map: &HashMap<String, Tensor>,
    vars: &HashMap<String, Var>,
    markers: Markers,
    what: &str,
) -> Result<(), String> {
    set_named_vars(map, vars, markers, what, &NAMES)
}

/// [`set_vars`] for the tensors `names` only (the rest keep their values).
pub(super) fn set_named_vars(
    map: &HashMap<String, Tensor>,
    vars: &HashMap<String, Var>,
    markers: Markers,
    what: &str,
    names: &[&str],
) -> Result<(), String> {
    let found = Markers::of(map).map_err(|e| format!("{what}: {e}"))?;
    if found.squared != markers.squared {
        return Err(format!(
            "{what}: its activation is not this run's (same --no-screlu?)"
        ));
    }
    if found.mirroring != markers.mirroring {
        return Err(format!(
            "{what}: its input mirroring is not this run's (same --no-mirror?)"
        ));
    }
    for &name in names {
        let t = map
            .get(name)
            .ok_or_else(|| format!("{what} lacks {name}"))?;
        let var = vars.get(name).ok_or("missing var")?;
        if t.shape() != var.shape() {
            return Err(format!(
                "{what}: {name} is {:?}, this net {:?} (same --hidden, --l1, --output-buckets?)",
                t.shape(),
                var.shape()
            ));
        }
        var.set(t).map_err(ce)?;
    }
    Ok(())
}

/// The tensors of a net a run starts from (`flag` is `--init` or `--init-ft`); its
/// `scale` (cp per unit of output) must be the run's.
pub(super) fn read_start_net(
    flag: &str,
    path: &str,
    want: f32,
) -> Result<HashMap<String, Tensor>, String> {
    let map = candle_core::safetensors::load(path, &Device::Cpu)
        .map_err(|e| format!("cannot read {flag} '{path}': {e}"))?;
    if let Some(scale) = map.get("scale") {
        let scale = scale.to_vec1::<f32>().map_err(ce)?[0];
        if scale != want {
            return Err(format!(
                "{flag} '{path}' has scale {scale}, this run --scale {want}"
            ));
        }
    }
    Ok(map)
}

/// A net can start a run with a wider feature transformer (`--hidden` above its own): the
/// new units get seeded random weights, as [`init_weights`] gives, and `l1` reads them
/// with zero weights, so the wider net starts out computing exactly what the narrower one
/// did and training grows the new units from there. A narrower `--hidden` is left to
/// `set_vars` to refuse.
/// Returns the net's own width when it was widened.
pub(super) fn widen_feature_transformer(
    mut map: HashMap<String, Tensor>,
    hidden: usize,
    rng: &mut StdRng,
) -> Result<(HashMap<String, Tensor>, Option<usize>), String> {
    let (Some(ft_w), Some(ft_b), Some(l1_w)) = (
        map.get("ft.weight"),
        map.get("ft.bias"),
        map.get("l1.weight"),
    ) else {
        return Ok((map, None)); // set_vars names what is missing
    };
    let old = ft_b.dims1().map_err(ce)?;
    if old >= hidden || l1_w.dims2().map_err(ce)?.1 != 2 * old {
        return Ok((map, None));
    }
    let extra = hidden - old;
    let inputs = ft_w.dims2().map_err(ce)?.1;
    let bound = 1.0 / 32f32.sqrt();
    let mut random =
        |n: usize| -> Vec<f32> { (0..n).map(|_| rng.gen_range(-bound..bound)).collect() };
    let new_w =
        Tensor::from_vec(random(extra * inputs), (extra, inputs), &Device::Cpu).map_err(ce)?;
    let new_b = Tensor::from_vec(random(extra), extra, &Device::Cpu).map_err(ce)?;
    let ft_w = Tensor::cat(&[ft_w, &new_w], 0).map_err(ce)?;
    let ft_b = Tensor::cat(&[ft_b, &new_b], 0).map_err(ce)?;
    // l1's inputs are the side to move's units, then the other side's.
    let rows = l1_w.dims2().map_err(ce)?.0;
    let zeros = Tensor::zeros((rows, extra), l1_w.dtype(), &Device::Cpu).map_err(ce)?;
    let stm = l1_w.narrow(1, 0, old).map_err(ce)?;
    let other = l1_w.narrow(1, old, old).map_err(ce)?;
    let l1_w = Tensor::cat(&[&stm, &zeros, &other, &zeros], 1).map_err(ce)?;
    map.insert("ft.weight".to_string(), ft_w);
    map.insert("ft.bias".to_string(), ft_b);
    map.insert("l1.weight".to_string(), l1_w);
    Ok((map, Some(old)))
}

/// A net with one output row can start a run with `buckets` output buckets: every bucket
/// begins as a copy of that row (the new net plays exactly like the old one until training
/// lets the buckets part). Any other bucket count is left to `set_vars` to refuse.
pub(super) fn spread_output_buckets(
    mut map: HashMap<String, Tensor>,
    buckets: usize,
) -> Result<HashMap<String, Tensor>, String> {
    let single = map.get("out.bias").is_some_and(|b| b.dims() == [1]);
    if buckets > 1 && single {
        for name in ["out.weight", "out.bias"] {
            let t = &map[name];
            let copies = t.repeat(buckets).map_err(ce)?; // along the first dimension
            map.insert(name.to_string(), copies);
        }
    }
    Ok(map)
}

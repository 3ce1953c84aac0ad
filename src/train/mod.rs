//! `rookery train`: trains the evaluation network with candle on labelled positions and
//! saves it as safetensors (see `docs/net.md` for the format, targets and loss). Also the
//! hidden `--bench-eval` measurement of the search kernel against candle's forward pass.

pub mod bench_eval;
pub mod data;
pub mod optim;
pub mod sparse;

use std::collections::HashMap;
use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

use candle_core::{DType, Device, Tensor, Var};
use candle_nn::{ParamsAdamW, VarBuilder, VarMap};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

use crate::eval::network::{l1_inputs, Markers, Model, Network, WEIGHT_CLIP};
use data::{Dataset, LoadStats, SparseBufs};

#[derive(clap::Args, Debug, Clone)]
pub struct TrainArgs {
    /// Training files: `FEN | score_cp_white | result_white` per line (plain or .gz), or
    /// self-play game files (`.vf`). `FILE@W` weighs the file's positions W in the loss
    /// (mixing data sets; default 1).
    #[arg(long, num_args = 1.., required_unless_present_any = ["bench_eval", "score_net"])]
    pub data: Vec<String>,
    /// Validate on these files (never trained on) instead of holding out
    /// `--val-fraction` of `--data`: a fixed set makes the losses of runs on different
    /// data comparable.
    #[arg(long, num_args = 1..)]
    pub val_data: Vec<String>,
    /// Print this network's loss on `--val-data` and exit (no training).
    #[arg(long, requires = "val_data")]
    pub score_net: Option<String>,
    /// Where to write the trained network (safetensors).
    #[arg(long, default_value = "nets/rookery-new.safetensors")]
    pub out: String,
    #[arg(long, default_value_t = 10)]
    pub epochs: usize,
    #[arg(long, default_value_t = 8192)]
    pub batch_size: usize,
    /// Peak learning rate (AdamW); decays by cosine to `lr * lr_final`.
    #[arg(long, default_value_t = 2e-3)]
    pub lr: f64,
    /// Final learning rate as a fraction of `--lr`.
    #[arg(long, default_value_t = 0.05)]
    pub lr_final: f64,
    /// Blend: target = λ·result + (1−λ)·sigmoid(cp/scale).
    #[arg(long, default_value_t = 0.3)]
    pub wdl_lambda: f32,
    /// Centipawns per unit of network output (cp → win probability: sigmoid(cp/scale)).
    #[arg(long, default_value_t = 400.0)]
    pub scale: f32,
    /// Fraction of positions held out for validation.
    #[arg(long, default_value_t = 0.02)]
    pub val_fraction: f64,
    /// Read at most this many positions (files in order).
    #[arg(long)]
    pub max_positions: Option<usize>,
    /// Accumulator size per perspective.
    #[arg(long, default_value_t = 256)]
    pub hidden: usize,
    /// Outputs of the first head layer `l1`: 32, or 16 (half its cost per evaluation).
    #[arg(long = "l1", default_value_t = crate::eval::network::L1_DEFAULT)]
    pub l1_width: usize,
    /// Output buckets by the number of pieces on the board (1 = a single output).
    #[arg(long, default_value_t = 1)]
    pub output_buckets: usize,
    /// Pairwise products of each accumulator half before `l1` (H inputs instead of 2H).
    #[arg(long)]
    pub pairwise: bool,
    /// Squared clipped ReLU (SCReLU) after the feature transformer: `clamp(a, 0, 1)²`.
    #[arg(long, conflicts_with = "pairwise")]
    pub screlu: bool,
    /// Horizontal mirroring: a perspective whose king is on files a–d sees the board
    /// mirrored left to right (the same 782 inputs; see `eval::features`).
    #[arg(long)]
    pub mirror: bool,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write `epoch-N.safetensors` here after every epoch.
    #[arg(long)]
    pub checkpoint_dir: Option<String>,
    /// Also write `<checkpoint-dir>/resume.safetensors` (weights, optimiser state and
    /// position in the data) every this many steps, besides each epoch's end.
    #[arg(long, default_value_t = 500)]
    pub checkpoint_every: usize,
    /// Continue a run from its `resume.safetensors`: the same arguments and data give the
    /// same net as a run that was never stopped.
    #[arg(long)]
    pub resume: Option<String>,
    /// Start from this network's weights instead of random ones (fine-tuning a net on new
    /// data): it must have the same `--hidden`, `--l1`, `--output-buckets`, `--pairwise`, `--screlu` and `--mirror`, and
    /// its `scale` must equal `--scale`; a net with one output bucket may also start a run
    /// with more (each bucket a copy of its output row). The optimiser starts afresh.
    #[arg(long, conflicts_with = "resume")]
    pub init: Option<String>,
    /// Start the feature transformer (`ft.weight`, `ft.bias`) from this network and the
    /// head from random weights: for a run that changes the head's shape (`--l1`,
    /// `--output-buckets`) without learning the first layer again from nothing. The net
    /// must have the same `--hidden`, `--screlu`, `--mirror` and `scale`.
    #[arg(long, conflicts_with_all = ["resume", "init"])]
    pub init_ft: Option<String>,
    /// Stop after this many optimiser steps in all, leaving a resume checkpoint (for runs
    /// that must fit a time slot).
    #[arg(long)]
    pub stop_after_steps: Option<usize>,
    /// Append `epoch,train_loss,val_loss,lr,seconds` rows here.
    #[arg(long)]
    pub csv: Option<String>,
    /// AdamW weight decay.
    #[arg(long, default_value_t = 0.0)]
    pub weight_decay: f64,
    /// No progress bar (logs and tests).
    #[arg(long)]
    pub quiet: bool,
    /// Measure ns/eval of the search kernel and of candle's forward pass, then exit.
    #[arg(long, hide = true)]
    pub bench_eval: bool,
    /// Network for `--bench-eval` (default: the embedded one).
    #[arg(long, hide = true)]
    pub net: Option<String>,
}

impl TrainArgs {
    /// Arguments with defaults for `data` (tests, tools).
    pub fn with_data(data: Vec<String>, out: String) -> Self {
        use clap::Parser;
        #[derive(clap::Parser)]
        struct Wrap {
            #[command(flatten)]
            args: TrainArgs,
        }
        let mut argv = vec!["train".to_string(), "--out".into(), out, "--data".into()];
        argv.extend(data);
        Wrap::parse_from(argv).args
    }
}

fn ce(e: candle_core::Error) -> String {
    format!("candle: {e}")
}

/// Names of the trained tensors, in save order.
const NAMES: [&str; 8] = [
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
fn init_weights(
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
            _ => crate::eval::network::L2,
        };
        let bound = (1.0 / (fan_in as f32).sqrt()).min(WEIGHT_CLIP);
        let n = var.as_tensor().elem_count();
        let vals: Vec<f32> = (0..n).map(|_| rng.gen_range(-bound..bound)).collect();
        let t = Tensor::from_vec(vals, var.as_tensor().shape(), &Device::Cpu).map_err(ce)?;
        var.set(&t).map_err(ce)?;
    }
    Ok(())
}

impl TrainArgs {
    /// The markers of the net this run trains (SCReLU, mirroring).
    pub fn markers(&self) -> Markers {
        Markers {
            squared: self.screlu,
            mirroring: self.mirror,
        }
    }
}

/// The tensors to save (trained weights + `scale`, and the `markers` that are on).
fn tensors_to_save(
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

fn save(
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

/// Loss (MSE between sigmoid(output) and target) of one batch; returns the loss tensor.
pub fn batch_loss(model: &Model, bufs: &SparseBufs, n: usize) -> candle_core::Result<Tensor> {
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
fn evaluate_loss(
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

fn cosine_lr(args: &TrainArgs, step: usize, total: usize) -> f64 {
    let t = if total <= 1 {
        1.0
    } else {
        step as f64 / (total - 1) as f64
    };
    let lo = args.lr * args.lr_final;
    lo + 0.5 * (args.lr - lo) * (1.0 + (std::f64::consts::PI * t).cos())
}

/// `FILE` or `FILE@WEIGHT` (a positive loss weight for the file's positions).
fn data_spec(spec: &str) -> Result<(&str, f32), String> {
    // A suffix that is not a number is part of the path (paths may contain '@').
    match spec.rsplit_once('@').map(|(p, w)| (p, w.parse::<f32>())) {
        Some((path, Ok(w))) if !path.is_empty() => {
            if w.is_finite() && w > 0.0 {
                Ok((path, w))
            } else {
                Err(format!(
                    "--data '{spec}': the weight after '@' must be positive"
                ))
            }
        }
        _ => Ok((spec, 1.0)),
    }
}

/// Loads all `--data` files.
pub fn load_data(args: &TrainArgs) -> Result<(Dataset, LoadStats), String> {
    let max = args.max_positions.unwrap_or(usize::MAX);
    let mut ds = Dataset::default();
    let mut stats = LoadStats::default();
    for spec in &args.data {
        let (path, weight) = data_spec(spec)?;
        ds.begin_source(weight);
        ds.read_file(path, max, &mut stats)?;
    }
    ds.mirroring = args.mirror;
    Ok((ds, stats))
}

/// Result of a training run.
pub struct TrainSummary {
    pub positions: usize,
    pub bad_lines: usize,
    pub train_loss: f64,
    pub val_loss: f64,
    pub seconds: f64,
    /// The trained tensors as saved (plus `scale`).
    pub tensors: HashMap<String, Tensor>,
}

/// Where a run is: the next batch to train is batch `in_epoch` of `epoch`.
#[derive(Clone, Copy, Debug, Default)]
struct Position {
    epoch: usize,
    in_epoch: usize,
    /// Optimiser steps done in all (drives the learning-rate schedule).
    step: usize,
    /// The epoch's running loss so far (for its reported mean).
    loss_sum: f64,
    loss_count: usize,
}

/// Writes `<dir>/resume.safetensors`: weights, `scale`, optimiser state and position.
/// Written to a temporary file first, so a run killed mid-write keeps the previous one.
fn save_checkpoint(
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

/// Sets every trained tensor (`NAMES`) from `map`, checking each shape, the activation
/// and the mirroring (`markers`) against the net built for this run; `what` names the
/// file in errors.
fn set_vars(
    map: &HashMap<String, Tensor>,
    vars: &HashMap<String, Var>,
    markers: Markers,
    what: &str,
) -> Result<(), String> {
    set_named_vars(map, vars, markers, what, &NAMES)
}

/// [`set_vars`] for the tensors `names` only (the rest keep their values).
fn set_named_vars(
    map: &HashMap<String, Tensor>,
    vars: &HashMap<String, Var>,
    markers: Markers,
    what: &str,
    names: &[&str],
) -> Result<(), String> {
    let found = Markers::of(map).map_err(|e| format!("{what}: {e}"))?;
    if found.squared != markers.squared {
        return Err(format!(
            "{what}: its activation is not this run's (same --screlu?)"
        ));
    }
    if found.mirroring != markers.mirroring {
        return Err(format!(
            "{what}: its input mirroring is not this run's (same --mirror?)"
        ));
    }
    for &name in names {
        let t = map
            .get(name)
            .ok_or_else(|| format!("{what} lacks {name}"))?;
        let var = vars.get(name).ok_or("missing var")?;
        if t.shape() != var.shape() {
            return Err(format!(
                "{what}: {name} is {:?}, this net {:?} (same --hidden, --l1, --output-buckets, --pairwise?)",
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
fn read_start_net(flag: &str, path: &str, want: f32) -> Result<HashMap<String, Tensor>, String> {
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

/// A net with one output row can start a run with `buckets` output buckets: every bucket
/// begins as a copy of that row (the new net plays exactly like the old one until training
/// lets the buckets part). Any other bucket count is left to `set_vars` to refuse.
fn spread_output_buckets(
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

/// Restores weights and optimiser state from a resume checkpoint; returns its position.
fn load_checkpoint(
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

pub fn run(args: TrainArgs) -> Result<(), String> {
    keep_freed_memory();
    if args.bench_eval {
        return bench_eval::run(&args);
    }
    if let Some(net) = &args.score_net {
        let (loss, n) = score_net(&args, net)?;
        println!("{net}: loss {loss:.6} on {n} positions");
        return Ok(());
    }
    train(&args).map(|_| ())
}

/// candle allocates each step's tensors afresh, many of them megabytes. glibc's malloc
/// serves blocks that large with `mmap` and unmaps them when freed (or trims the heap),
/// so every step faulted its memory in again and the kernel zeroed it: a third of the
/// training time went to page faults. Freed memory now stays in the heap for the next
/// step. Raising the mmap threshold is not enough: glibc caps it at 32 MiB, exactly the
/// size of a [8192, 1024] f32 tensor (batch × both perspectives at H = 512), so mmap is
/// switched off altogether (`M_MMAP_MAX` 0) and every block comes from the heap.
fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets allocator thresholds; called before any training thread.
    unsafe {
        libc::mallopt(libc::M_MMAP_MAX, 0);
        libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX);
    }
}

/// Loads the `--val-data` files (every position, unweighted unless `FILE@W`).
fn load_validation(args: &TrainArgs) -> Result<Dataset, String> {
    let mut ds = Dataset::default();
    let mut stats = LoadStats::default();
    for spec in &args.val_data {
        let (path, weight) = data_spec(spec)?;
        ds.begin_source(weight);
        ds.read_file(path, usize::MAX, &mut stats)?;
    }
    if ds.is_empty() {
        return Err("--val-data holds no positions".into());
    }
    ds.mirroring = args.mirror;
    Ok(ds)
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
    let pairwise = dims("l1.weight")?.get(1) == Some(&hidden);
    let l1_width = dims("l1.bias")?[0];
    let markers = Markers::of(&map).map_err(|e| format!("'{path}': {e}"))?;
    let scale = match map.get("scale") {
        Some(t) => t.to_vec1::<f32>().map_err(ce)?[0],
        None => args.scale,
    };
    let varmap = VarMap::new();
    let vb = VarBuilder::from_varmap(&varmap, DType::F32, &Device::Cpu);
    let model = Model::new(vb, hidden, l1_width, buckets, pairwise, markers.squared).map_err(ce)?;
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

/// Trains a network as described by `args` and saves it to `args.out`.
pub fn train(args: &TrainArgs) -> Result<TrainSummary, String> {
    if args.hidden == 0 || args.hidden > 4096 {
        return Err(format!("--hidden must be in 1..=4096, got {}", args.hidden));
    }
    if !crate::eval::simd::L1_WIDTHS.contains(&args.l1_width) {
        return Err(format!(
            "--l1 must be one of {:?}, got {}",
            crate::eval::simd::L1_WIDTHS,
            args.l1_width
        ));
    }
    if args.pairwise && !args.hidden.is_multiple_of(2) {
        return Err(format!(
            "--pairwise needs an even --hidden, got {}",
            args.hidden
        ));
    }
    if !(1..=crate::eval::features::MAX_BUCKETS).contains(&args.output_buckets) {
        return Err(format!(
            "--output-buckets must be in 1..={}, got {}",
            crate::eval::features::MAX_BUCKETS,
            args.output_buckets
        ));
    }
    if args.batch_size == 0 || args.epochs == 0 {
        return Err("--batch-size and --epochs must be positive".into());
    }
    if !(0.0..=1.0).contains(&args.wdl_lambda) || args.scale <= 0.0 {
        return Err("--wdl-lambda must be in [0, 1] and --scale positive".into());
    }
    let say = |msg: String| {
        if !args.quiet {
            eprintln!("{msg}");
        }
    };
    let start = Instant::now();
    let (ds, stats) = load_data(args)?;
    say(format!(
        "loaded {} positions from {} lines in {:.1}s; {} bad lines{}",
        ds.len(),
        stats.lines,
        start.elapsed().as_secs_f64(),
        stats.bad,
        stats
            .first_bad
            .as_deref()
            .map(|l| format!(" (first: '{l}')"))
            .unwrap_or_default()
    ));
    if ds.len() < 2 {
        return Err(format!("not enough valid positions ({})", ds.len()));
    }

    let mut rng = StdRng::seed_from_u64(args.seed);
    let mut ids: Vec<usize> = (0..ds.len()).collect();
    ids.shuffle(&mut rng);
    // Validation: a fixed set of its own, or a held-out part of the training data.
    let fixed_val = if args.val_data.is_empty() {
        None
    } else {
        Some(load_validation(args)?)
    };
    let n_val = match fixed_val {
        Some(_) => 0,
        None => ((ds.len() as f64 * args.val_fraction).round() as usize).min(ds.len() - 1),
    };
    let held_out = ids.split_off(ds.len() - n_val);
    let mut train_ids = ids;
    let (val_ds, val_ids) = match &fixed_val {
        Some(v) => (v, (0..v.len()).collect()),
        None => (&ds, held_out),
    };

    let dev = Device::Cpu;
    let varmap = VarMap::new();
    let vb = VarBuilder::from_varmap(&varmap, DType::F32, &dev);
    let model = Model::new(
        vb,
        args.hidden,
        args.l1_width,
        args.output_buckets,
        args.pairwise,
        args.screlu,
    )
    .map_err(ce)?;
    let vars: HashMap<String, Var> = varmap
        .data()
        .lock()
        .map_err(|_| "var map lock poisoned")?
        .clone();
    init_weights(
        &vars,
        l1_inputs(args.hidden, args.pairwise),
        args.l1_width,
        &mut rng,
    )?;
    if let Some(path) = &args.init {
        let map = read_start_net("--init", path, args.scale)?;
        let map = spread_output_buckets(map, args.output_buckets)?;
        set_vars(&map, &vars, args.markers(), &format!("--init '{path}'"))?;
        say(format!("starting from the weights of {path}"));
    }
    if let Some(path) = &args.init_ft {
        let map = read_start_net("--init-ft", path, args.scale)?;
        let what = format!("--init-ft '{path}'");
        set_named_vars(
            &map,
            &vars,
            args.markers(),
            &what,
            &["ft.weight", "ft.bias"],
        )?;
        say(format!(
            "feature transformer from {path}, head from random weights"
        ));
    }
    let clipped: Vec<Var> = ["ft.weight", "ft.bias", "l1.weight"]
        .iter()
        .filter_map(|n| vars.get(*n).cloned())
        .collect();
    let params = ParamsAdamW {
        lr: args.lr,
        weight_decay: args.weight_decay,
        ..Default::default()
    };
    let named: Vec<(String, Var)> = NAMES
        .iter()
        .map(|n| Ok((n.to_string(), vars.get(*n).ok_or("missing var")?.clone())))
        .collect::<Result<_, &str>>()?;
    let mut opt = optim::ResumableAdamW::new(named, params).map_err(ce)?;
    let mut resume_at = Position::default();
    if let Some(path) = &args.resume {
        resume_at = load_checkpoint(path, &vars, &mut opt, args.markers())?;
        say(format!(
            "resuming {path} at epoch {} step {} ({} steps done)",
            resume_at.epoch, resume_at.in_epoch, resume_at.step
        ));
    }

    let steps_per_epoch = train_ids.len().div_ceil(args.batch_size);
    let total_steps = steps_per_epoch * args.epochs;
    let pb = if args.quiet {
        indicatif::ProgressBar::hidden()
    } else {
        indicatif::ProgressBar::new(total_steps as u64)
    };
    pb.set_style(
        indicatif::ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {msg}")
            .map_err(|e| e.to_string())?
            .progress_chars("=> "),
    );
    let mut csv = match &args.csv {
        Some(path) => {
            let exists = std::path::Path::new(path).exists();
            let mut f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| format!("cannot open CSV '{path}': {e}"))?;
            if !exists {
                writeln!(f, "epoch,train_loss,val_loss,lr,seconds").map_err(|e| e.to_string())?;
            }
            Some(f)
        }
        None => None,
    };
    say(format!(
        "training {} positions, validating on {}, {} epochs x {} steps of {}",
        train_ids.len(),
        val_ids.len(),
        args.epochs,
        steps_per_epoch,
        args.batch_size
    ));

    let mut bufs = SparseBufs::default();
    let mut step = resume_at.step;
    pb.set_position(step as u64);
    let (mut last_train, mut last_val) = (f64::NAN, f64::NAN);
    let train_start = Instant::now();
    let mut last_log = Instant::now();
    train_ids.sort_unstable();
    for epoch in resume_at.epoch.max(1)..=args.epochs {
        let epoch_start = Instant::now();
        // Each epoch's order depends only on the seed and the epoch, so a resumed run
        // sees the batches the uninterrupted one would have.
        let mut order = train_ids.clone();
        order.shuffle(&mut StdRng::seed_from_u64(
            args.seed ^ (epoch as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
        ));
        let (mut sum, mut count) = if epoch == resume_at.epoch {
            (resume_at.loss_sum, resume_at.loss_count)
        } else {
            (0.0f64, 0usize)
        };
        let skip = if epoch == resume_at.epoch {
            resume_at.in_epoch
        } else {
            0
        };
        let mut lr = args.lr;
        for (in_epoch, chunk) in order.chunks(args.batch_size).enumerate().skip(skip) {
            if args.stop_after_steps.is_some_and(|n| step >= n) {
                let at = Position {
                    epoch,
                    in_epoch,
                    step,
                    loss_sum: sum,
                    loss_count: count,
                };
                if let Some(dir) = &args.checkpoint_dir {
                    save_checkpoint(dir, &vars, &opt, args.scale, args.markers(), &at)?;
                }
                pb.finish_and_clear();
                say(format!("stopped after {step} steps (--stop-after-steps)"));
                return Ok(TrainSummary {
                    positions: ds.len(),
                    bad_lines: stats.bad,
                    train_loss: sum / count.max(1) as f64,
                    val_loss: f64::NAN,
                    seconds: start.elapsed().as_secs_f64(),
                    tensors: tensors_to_save(&vars, args.scale, args.markers())?,
                });
            }
            lr = cosine_lr(args, step, total_steps);
            opt.set_learning_rate(lr);
            ds.sparse_batch(chunk, args.wdl_lambda, args.scale, &mut bufs);
            let loss = batch_loss(&model, &bufs, chunk.len()).map_err(ce)?;
            opt.backward_step(&loss).map_err(ce)?;
            for var in &clipped {
                let c = var
                    .as_tensor()
                    .clamp(-WEIGHT_CLIP, WEIGHT_CLIP)
                    .map_err(ce)?;
                var.set(&c).map_err(ce)?;
            }
            let l = loss.to_scalar::<f32>().map_err(ce)? as f64;
            if !l.is_finite() {
                return Err(format!("loss became {l} at step {step}; try a lower --lr"));
            }
            sum += l * chunk.len() as f64;
            count += chunk.len();
            step += 1;
            if let Some(dir) = &args.checkpoint_dir {
                if args.checkpoint_every > 0 && step.is_multiple_of(args.checkpoint_every) {
                    let at = Position {
                        epoch,
                        in_epoch: in_epoch + 1,
                        step,
                        loss_sum: sum,
                        loss_count: count,
                    };
                    save_checkpoint(dir, &vars, &opt, args.scale, args.markers(), &at)?;
                }
            }
            let rate = count as f64 / epoch_start.elapsed().as_secs_f64().max(1e-9);
            let msg = format!(
                "epoch {epoch} loss {:.5} {:.0} pos/s",
                sum / count as f64,
                rate
            );
            // Without a terminal the bar is hidden: log a line a minute instead.
            if pb.is_hidden() && !args.quiet && last_log.elapsed().as_secs() >= 60 {
                eprintln!("step {step}/{total_steps} {msg}");
                last_log = Instant::now();
            }
            pb.set_message(msg);
            pb.inc(1);
        }
        last_train = sum / count.max(1) as f64;
        last_val = evaluate_loss(&model, val_ds, &val_ids, args)?;
        let secs = epoch_start.elapsed().as_secs_f64();
        let line = format!(
            "epoch {epoch}: train {last_train:.6} val {last_val:.6} lr {lr:.2e} {secs:.0}s"
        );
        if pb.is_hidden() && !args.quiet {
            eprintln!("{line}");
        } else if !args.quiet {
            pb.println(line);
        }
        if let Some(f) = csv.as_mut() {
            writeln!(
                f,
                "{epoch},{last_train:.6},{last_val:.6},{lr:.6e},{secs:.1}"
            )
            .map_err(|e| format!("cannot write CSV: {e}"))?;
        }
        if let Some(dir) = &args.checkpoint_dir {
            save(
                &vars,
                args.scale,
                args.markers(),
                &format!("{dir}/epoch-{epoch}.safetensors"),
            )?;
            let next = Position {
                epoch: epoch + 1,
                in_epoch: 0,
                step,
                loss_sum: 0.0,
                loss_count: 0,
            };
            save_checkpoint(dir, &vars, &opt, args.scale, args.markers(), &next)?;
        }
    }
    pb.finish_and_clear();
    save(&vars, args.scale, args.markers(), &args.out)?;
    // Make sure what was written loads and quantises as a playing network.
    let bytes =
        std::fs::read(&args.out).map_err(|e| format!("cannot re-read '{}': {e}", args.out))?;
    let net = Network::from_bytes(&bytes, &args.out)?;
    say(format!(
        "saved {} in {:.0}s: train loss {last_train:.6}, val loss {last_val:.6}",
        net.description(),
        train_start.elapsed().as_secs_f64()
    ));
    Ok(TrainSummary {
        positions: ds.len(),
        bad_lines: stats.bad,
        train_loss: last_train,
        val_loss: last_val,
        seconds: start.elapsed().as_secs_f64(),
        tensors: tensors_to_save(&vars, args.scale, args.markers())?,
    })
}

#[cfg(test)]
mod tests {
    use super::data_spec;

    #[test]
    fn data_specs_take_an_optional_weight() {
        assert_eq!(data_spec("a.txt.gz"), Ok(("a.txt.gz", 1.0)));
        assert_eq!(
            data_spec("data/gen1/seed1.vf@2.5"),
            Ok(("data/gen1/seed1.vf", 2.5))
        );
        assert_eq!(data_spec("@home/x.vf"), Ok(("@home/x.vf", 1.0)));
        assert!(data_spec("a.vf@0").is_err());
        assert_eq!(data_spec("a@b.vf"), Ok(("a@b.vf", 1.0)));
        assert!(data_spec("a.vf@-1").is_err());
    }
}

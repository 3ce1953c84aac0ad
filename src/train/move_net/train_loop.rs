//! The training loop of a move net: AdamW with a warm-up and cosine learning rate over
//! shuffled batches, a loss CSV with a validation point every `curve_every` steps, and
//! a stop when the loss is no longer finite.

use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::ops::Deref;
use std::path::Path;
use std::time::Instant;

use candle_core::{Device, Tensor, Var};
use candle_nn::{AdamW, Optimizer, ParamsAdamW};
use indicatif::{ProgressBar, ProgressStyle};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;

use super::positions::MovePositions;
use crate::train::ce;

/// A trainable move net: its variables, how a batch of its positions is built, and
/// the loss on a batch.
pub trait MoveNetModel {
    /// The training set: the shared positions plus what this net's inputs need.
    type Positions: Deref<Target = MovePositions>;
    type Batch;

    fn vars(&self) -> &HashMap<String, Var>;

    /// The batch of positions `ids` of `set`.
    fn batch(
        set: &Self::Positions,
        ids: &[usize],
        dev: &Device,
    ) -> candle_core::Result<Self::Batch>;

    /// Mean loss on a batch (a scalar).
    fn loss(&self, batch: &Self::Batch) -> candle_core::Result<Tensor>;
}

/// How a run trains, from the trainer's arguments.
pub struct LoopSettings<'a> {
    /// Seeds the draws of the fresh weights, then the shuffles.
    pub seed: u64,
    pub epochs: usize,
    pub batch_size: usize,
    /// Peak learning rate.
    pub lr: f64,
    pub weight_decay: f64,
    /// Stop after this many steps (0: all epochs).
    pub max_steps: usize,
    /// Validation positions in the loss curve.
    pub curve_positions: usize,
    pub curve_every: usize,
    pub csv: &'a Path,
    /// No progress output.
    pub quiet: bool,
    /// Off a terminal, a log line per point of the curve (long runs write logs).
    pub log_points: bool,
}

/// Mean loss of `model` on positions `ids` of `set`.
pub fn mean_loss<M: MoveNetModel>(
    model: &M,
    set: &M::Positions,
    ids: &[usize],
    batch: usize,
) -> Result<f64, String> {
    let dev = Device::Cpu;
    let (mut sum, mut n) = (0.0, 0usize);
    for chunk in ids.chunks(batch) {
        let b = M::batch(set, chunk, &dev).map_err(ce)?;
        let l = model
            .loss(&b)
            .and_then(|l| l.to_scalar::<f32>())
            .map_err(ce)?;
        sum += l as f64 * chunk.len() as f64;
        n += chunk.len();
    }
    Ok(sum / n.max(1) as f64)
}

/// Trains the model `init` makes on `train_set`; `init` draws any fresh weights from
/// the run's generator before the shuffles do (so a seed gives one run). The loss curve
/// uses the first `curve_positions` of `validation` (never trained on).
pub fn train<M: MoveNetModel>(
    settings: &LoopSettings,
    init: impl FnOnce(&mut StdRng) -> Result<M, String>,
    train_set: &M::Positions,
    validation: &M::Positions,
) -> Result<M, String> {
    if train_set.is_empty() {
        return Err("no training positions".into());
    }
    let mut rng = StdRng::seed_from_u64(settings.seed);
    let model = init(&mut rng)?;
    let dev = Device::Cpu;
    // Sorted names: the optimiser's state order (and so the run) does not depend on
    // the HashMap's.
    let mut names: Vec<&String> = model.vars().keys().collect();
    names.sort();
    let vars = names.iter().map(|n| model.vars()[*n].clone()).collect();
    let params = ParamsAdamW {
        lr: settings.lr,
        weight_decay: settings.weight_decay,
        ..Default::default()
    };
    let mut opt = AdamW::new(vars, params).map_err(ce)?;
    let steps_per_epoch = train_set.len().div_ceil(settings.batch_size);
    let mut total = steps_per_epoch * settings.epochs;
    if settings.max_steps > 0 {
        total = total.min(settings.max_steps);
    }
    let curve_ids: Vec<usize> = (0..validation.len().min(settings.curve_positions)).collect();
    if let Some(dir) = settings.csv.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let mut csv = std::fs::File::create(settings.csv)
        .map_err(|e| format!("cannot create {}: {e}", settings.csv.display()))?;
    writeln!(csv, "step,epoch,lr,train_loss,validation_loss").map_err(|e| e.to_string())?;
    let progress = Progress::new(settings, total);
    let started = Instant::now();
    let (mut step, mut run_sum, mut run_n) = (0usize, 0.0f64, 0usize);
    let mut ids: Vec<usize> = (0..train_set.len()).collect();
    'epochs: for epoch in 0..settings.epochs {
        ids.shuffle(&mut rng);
        for chunk in ids.chunks(settings.batch_size) {
            if step >= total {
                break 'epochs;
            }
            let lr = warmup_cosine_lr(settings.lr, step, total);
            opt.set_learning_rate(lr);
            let b = M::batch(train_set, chunk, &dev).map_err(ce)?;
            let loss = model.loss(&b).map_err(ce)?;
            opt.backward_step(&loss).map_err(ce)?;
            let l = loss.to_scalar::<f32>().map_err(ce)? as f64;
            if !l.is_finite() {
                return Err(format!("training diverged at step {step} (loss {l})"));
            }
            run_sum += l;
            run_n += 1;
            step += 1;
            progress.step();
            if step % settings.curve_every == 0 || step == total {
                let val = if curve_ids.is_empty() {
                    f64::NAN
                } else {
                    mean_loss(&model, validation, &curve_ids, settings.batch_size)?
                };
                let train_loss = run_sum / run_n.max(1) as f64;
                writeln!(csv, "{step},{epoch},{lr:.6},{train_loss:.5},{val:.5}")
                    .map_err(|e| e.to_string())?;
                let message = format!("train {train_loss:.4} val {val:.4}");
                progress.point(step, total, &message, &started);
                (run_sum, run_n) = (0.0, 0);
            }
        }
    }
    progress.finish();
    let secs = started.elapsed().as_secs_f64();
    if !settings.quiet {
        eprintln!(
            "trained {step} steps of {} in {secs:.0} s ({:.0} positions/s)",
            settings.batch_size,
            (step * settings.batch_size) as f64 / secs.max(1e-9)
        );
    }
    Ok(model)
}

/// Progress: a bar on a terminal, else (with `log_points`) a line a curve point.
struct Progress {
    bar: Option<ProgressBar>,
    lines: bool,
}

impl Progress {
    fn new(settings: &LoopSettings, total: usize) -> Progress {
        let terminal = std::io::stderr().is_terminal();
        let bar = (!settings.quiet && terminal).then(|| {
            let bar = ProgressBar::new(total as u64);
            if let Ok(style) = ProgressStyle::with_template(
                "training {bar:30} {pos}/{len} steps {per_sec} {eta} {msg}",
            ) {
                bar.set_style(style);
            }
            bar
        });
        Progress {
            bar,
            lines: settings.log_points && !settings.quiet && !terminal,
        }
    }

    fn step(&self) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
    }

    fn point(&self, step: usize, total: usize, message: &str, started: &Instant) {
        if let Some(bar) = &self.bar {
            bar.set_message(message.to_string());
        }
        if self.lines {
            eprintln!(
                "step {step}/{total} {message} ({:.0} s)",
                started.elapsed().as_secs_f64()
            );
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// Learning rate at `step` of `total`: a linear warm-up over the first 2 % of the steps,
/// then a cosine decay from `peak` to 2 % of it.
pub fn warmup_cosine_lr(peak: f64, step: usize, total: usize) -> f64 {
    let warmup = (total / 50).max(1);
    if step < warmup {
        return peak * (step + 1) as f64 / warmup as f64;
    }
    let t = (step - warmup) as f64 / (total - warmup).max(1) as f64;
    peak * (0.02 + 0.98 * 0.5 * (1.0 + (std::f64::consts::PI * t).cos()))
}

//! `rookery train-human`: trains the rating-conditioned human prior (`policy::network`)
//! with candle on the train split of `.rkh` games, validates on the validation split
//! only, and reports move-matching ([`eval`]). AdamW with a cosine learning rate, a
//! loss CSV, the net saved as safetensors. `--evaluate NET` only measures a net.

pub mod combiner;
pub mod data;
pub mod eval;
pub mod model;

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use candle_core::Device;
use candle_nn::{AdamW, Optimizer, ParamsAdamW};
use indicatif::{ProgressBar, ProgressStyle};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;

use self::data::PolicySet;
use self::model::{Batch, PriorModel};
use crate::policy::network::PriorNet;
use crate::policy::shape::PriorShape;

fn ce(e: candle_core::Error) -> String {
    format!("candle: {e}")
}

#[derive(clap::Args, Debug, Clone)]
pub struct TrainHumanArgs {
    /// .rkh files (default: every data/human/*.rkh); their train split trains, their
    /// validation split validates.
    pub files: Vec<PathBuf>,
    /// Where to save the net.
    #[arg(long, default_value = "nets/human-prior-v2.safetensors")]
    pub out: PathBuf,
    /// CSV of the losses (step, epoch, lr, train loss, validation loss).
    #[arg(long, default_value = "docs/nets/human-prior-v2.csv")]
    pub csv: PathBuf,
    #[arg(long, default_value_t = 4)]
    pub epochs: usize,
    #[arg(long, default_value_t = 1024)]
    pub batch_size: usize,
    /// Peak learning rate (cosine decay to 2 % of it).
    #[arg(long, default_value_t = 2e-3)]
    pub lr: f64,
    #[arg(long, default_value_t = 1e-4)]
    pub weight_decay: f64,
    /// Share of training games used (0, 1].
    #[arg(long, default_value_t = 1.0)]
    pub keep: f64,
    /// Stop after this many optimiser steps (0: all epochs), for timing runs.
    #[arg(long, default_value_t = 0)]
    pub max_steps: usize,
    /// Validation positions in the loss curve (the final report uses all).
    #[arg(long, default_value_t = 16384)]
    pub curve_positions: usize,
    /// Steps between two points of the loss curve.
    #[arg(long, default_value_t = 200)]
    pub curve_every: usize,
    #[arg(long, default_value_t = 384)]
    pub h1: usize,
    #[arg(long, default_value_t = 128)]
    pub h2: usize,
    #[arg(long, default_value_t = 64)]
    pub d: usize,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Measure this net on the validation split instead of training.
    #[arg(long)]
    pub evaluate: Option<PathBuf>,
    /// No progress bars or log lines (tests).
    #[arg(long)]
    pub quiet: bool,
}

impl TrainHumanArgs {
    fn check(&self) -> Result<(), String> {
        if !(self.keep > 0.0 && self.keep <= 1.0) {
            return Err(format!("--keep must be in (0, 1], got {}", self.keep));
        }
        if self.batch_size == 0 || self.epochs == 0 {
            return Err("--batch-size and --epochs must be positive".into());
        }
        if self.h1 == 0 || self.h2 == 0 || self.d == 0 {
            return Err("layer widths must be positive".into());
        }
        Ok(())
    }
}

/// The subcommand.
pub fn run(args: TrainHumanArgs) -> Result<(), String> {
    args.check()?;
    super::keep_freed_memory();
    let started = Instant::now();
    let games = data::read_games(&args.files)?;
    let (train_set, validation, stats) = data::prepare(&games, args.keep, !args.quiet);
    drop(games);
    eprintln!(
        "{stats:?}: {} training positions, {} validation positions ({:.1} s)",
        train_set.len(),
        validation.len(),
        started.elapsed().as_secs_f64()
    );
    let net = match &args.evaluate {
        Some(path) => PriorNet::load(path)?,
        None => {
            let model = train(&args, &train_set, &validation)?;
            save(&model, &args.out)?;
            PriorNet::load(&args.out)?
        }
    };
    let t = Instant::now();
    let acc = eval::accuracy(&net, &validation, !args.quiet);
    let secs = t.elapsed().as_secs_f64();
    print!("{}", eval::render(&acc));
    println!(
        "forward pass: {:.1} µs per position (validation, one thread, plain Rust, 5 conditionings for band positions)",
        1e6 * secs / validation.len().max(1) as f64
    );
    Ok(())
}

/// Saves the model's tensors as safetensors (creating the folder).
pub fn save(model: &PriorModel, path: &std::path::Path) -> Result<(), String> {
    super::save_tensors(&model.tensors().map_err(ce)?, path)
}

/// Mean cross-entropy of `model` on positions `ids` of `set`.
pub fn mean_loss(
    model: &PriorModel,
    set: &PolicySet,
    ids: &[usize],
    batch: usize,
) -> Result<f64, String> {
    let dev = Device::Cpu;
    let (mut sum, mut n) = (0.0, 0usize);
    for chunk in ids.chunks(batch) {
        let b = Batch::new(set, chunk, &dev).map_err(ce)?;
        let l = model
            .loss(&b)
            .and_then(|l| l.to_scalar::<f32>())
            .map_err(ce)?;
        sum += l as f64 * chunk.len() as f64;
        n += chunk.len();
    }
    Ok(sum / n.max(1) as f64)
}

/// Trains a model on `train_set`; the loss curve uses the first `curve_positions` of
/// `validation` (never trained on).
pub fn train(
    args: &TrainHumanArgs,
    train_set: &PolicySet,
    validation: &PolicySet,
) -> Result<PriorModel, String> {
    args.check()?;
    if train_set.is_empty() {
        return Err("no training positions".into());
    }
    let dev = Device::Cpu;
    let mut rng = StdRng::seed_from_u64(args.seed);
    let shape = PriorShape {
        h1: args.h1,
        h2: args.h2,
        d: args.d,
    };
    let model = PriorModel::new(shape, &mut rng, &dev).map_err(ce)?;
    let mut names: Vec<&String> = model.vars.keys().collect();
    names.sort();
    let vars = names.iter().map(|n| model.vars[*n].clone()).collect();
    let params = ParamsAdamW {
        lr: args.lr,
        weight_decay: args.weight_decay,
        ..Default::default()
    };
    let mut opt = AdamW::new(vars, params).map_err(ce)?;
    let steps_per_epoch = train_set.len().div_ceil(args.batch_size);
    let mut total = steps_per_epoch * args.epochs;
    if args.max_steps > 0 {
        total = total.min(args.max_steps);
    }
    let curve_ids: Vec<usize> = (0..validation.len().min(args.curve_positions)).collect();
    let mut csv = std::fs::File::create(&args.csv)
        .map_err(|e| format!("cannot create {}: {e}", args.csv.display()))?;
    writeln!(csv, "step,epoch,lr,train_loss,validation_loss").map_err(|e| e.to_string())?;
    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(total as u64)
    };
    if let Ok(style) =
        ProgressStyle::with_template("training {bar:30} {pos}/{len} steps {per_sec} {eta} {msg}")
    {
        bar.set_style(style);
    }
    let started = Instant::now();
    let (mut step, mut run_sum, mut run_n) = (0usize, 0.0f64, 0usize);
    let mut ids: Vec<usize> = (0..train_set.len()).collect();
    'epochs: for epoch in 0..args.epochs {
        ids.shuffle(&mut rng);
        for chunk in ids.chunks(args.batch_size) {
            if step >= total {
                break 'epochs;
            }
            let lr = super::warmup_cosine_lr(args.lr, step, total);
            opt.set_learning_rate(lr);
            let b = Batch::new(train_set, chunk, &dev).map_err(ce)?;
            let loss = model.loss(&b).map_err(ce)?;
            opt.backward_step(&loss).map_err(ce)?;
            let l = loss.to_scalar::<f32>().map_err(ce)? as f64;
            if !l.is_finite() {
                return Err(format!("training diverged at step {step} (loss {l})"));
            }
            run_sum += l;
            run_n += 1;
            step += 1;
            bar.inc(1);
            if step % args.curve_every == 0 || step == total {
                let val = if curve_ids.is_empty() {
                    f64::NAN
                } else {
                    mean_loss(&model, validation, &curve_ids, args.batch_size)?
                };
                let train_loss = run_sum / run_n.max(1) as f64;
                writeln!(csv, "{step},{epoch},{lr:.6},{train_loss:.5},{val:.5}")
                    .map_err(|e| e.to_string())?;
                bar.set_message(format!("train {train_loss:.4} val {val:.4}"));
                (run_sum, run_n) = (0.0, 0);
            }
        }
    }
    bar.finish_and_clear();
    let secs = started.elapsed().as_secs_f64();
    if !args.quiet {
        eprintln!(
            "trained {step} steps of {} in {secs:.0} s ({:.0} positions/s)",
            args.batch_size,
            (step * args.batch_size) as f64 / secs.max(1e-9)
        );
    }
    Ok(model)
}

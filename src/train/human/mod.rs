//! `rookery train-human`: trains the rating-conditioned human prior (`policy::network`)
//! with candle on the train split of `.rkh` games, validates on the validation split
//! only, and reports move-matching ([`eval`]). AdamW with a cosine learning rate, a
//! loss CSV, the net saved as safetensors. `--evaluate NET` only measures a net.

pub mod combiner;
pub mod data;
pub mod eval;
pub mod model;

pub use super::move_net::{mean_loss, save};

use std::path::PathBuf;
use std::time::Instant;

use candle_core::Device;
use rand::rngs::StdRng;

use self::data::PolicySet;
use self::model::PriorModel;
use super::move_net::{self, LoopSettings};
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
    #[arg(long, default_value = "nets/human-prior-v3.safetensors")]
    pub out: PathBuf,
    /// CSV of the losses (step, epoch, lr, train loss, validation loss).
    #[arg(long, default_value = "docs/nets/human-prior-v3.csv")]
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
    /// A net without the tactical row per move (`policy::tactics`), as
    /// human-prior-v2 was.
    #[arg(long)]
    pub no_tactics: bool,
    /// Also train on games rated on chess.com's and FIDE's scales, each scale with rating
    /// rows of its own (validation stays Lichess only; the engine asks the Lichess rows).
    #[arg(long)]
    pub all_scales: bool,
    /// Also train on the left–right mirror of each training position where neither side
    /// can castle (the same move, mirrored; validation is never mirrored).
    #[arg(long)]
    pub mirror: bool,
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
    let evaluated = args.evaluate.as_deref().map(PriorNet::load).transpose()?;
    let tactics = match &evaluated {
        Some(net) => net.shape.tactics,
        None => !args.no_tactics,
    };
    let games = data::read_games(&args.files)?;
    let options = data::PrepareOptions {
        keep: args.keep,
        tactics,
        all_scales: args.all_scales,
        mirror: args.mirror && evaluated.is_none(),
        progress: !args.quiet,
    };
    let (train_set, validation, stats) = data::prepare(&games, &options);
    drop(games);
    eprintln!(
        "{stats:?}: {} training positions, {} validation positions ({:.1} s)",
        train_set.len(),
        validation.len(),
        started.elapsed().as_secs_f64()
    );
    let net = match evaluated {
        Some(net) => net,
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

/// Trains a model on `train_set`; the loss curve uses the first `curve_positions` of
/// `validation` (never trained on).
pub fn train(
    args: &TrainHumanArgs,
    train_set: &PolicySet,
    validation: &PolicySet,
) -> Result<PriorModel, String> {
    args.check()?;
    let net_reads_tactics = !args.no_tactics;
    if train_set.with_tactics != net_reads_tactics {
        return Err(format!(
            "the training positions {} tactical rows but the net {}: prepare them with tactics = {}",
            if train_set.with_tactics { "carry" } else { "lack" },
            if args.no_tactics { "has none (--no-tactics)" } else { "reads them" },
            net_reads_tactics
        ));
    }
    if !args.all_scales && train_set.scale.iter().any(|&s| s != 0) {
        return Err(
            "the training positions hold other rating scales than Lichess's but the net has rows for Lichess only: train with --all-scales".into(),
        );
    }
    let shape = PriorShape {
        h1: args.h1,
        h2: args.h2,
        d: args.d,
        tactics: !args.no_tactics,
        scales: if args.all_scales {
            crate::policy::shape::RATING_SCALES.len()
        } else {
            1
        },
    };
    let settings = LoopSettings {
        seed: args.seed,
        epochs: args.epochs,
        batch_size: args.batch_size,
        lr: args.lr,
        weight_decay: args.weight_decay,
        max_steps: args.max_steps,
        curve_positions: args.curve_positions,
        curve_every: args.curve_every,
        csv: &args.csv,
        quiet: args.quiet,
        log_points: false,
    };
    let init = |rng: &mut StdRng| PriorModel::new(shape, rng, &Device::Cpu).map_err(ce);
    move_net::train(&settings, init, train_set, validation)
}

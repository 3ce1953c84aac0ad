//! `rookery train-policy`: trains the self-play move policy (`policy::policy_net`, the
//! MCTS prior) with candle on the moves the alpha-beta search played in `.vf` games.
//! Games are split into train and validation ([`data`]); the validation games are
//! never trained on and give the reported top-1/top-3 agreement ([`eval`]). AdamW with
//! a cosine learning rate, a loss CSV, the net saved as safetensors. `--evaluate NET`
//! only measures a net.

pub mod data;
pub mod eval;
pub mod model;

pub use super::move_net::{mean_loss, save};

use std::path::{Path, PathBuf};
use std::time::Instant;

use candle_core::Device;
use rand::rngs::StdRng;
use rand::SeedableRng;

use self::data::{PositionSet, Sampling};
use self::model::{Batch, PolicyModel};
use super::move_net::{self, LoopSettings};
use crate::policy::{PolicyNet, PolicyShape};

fn ce(e: candle_core::Error) -> String {
    format!("candle: {e}")
}

#[derive(clap::Args, Debug, Clone)]
pub struct TrainPolicyArgs {
    /// .vf self-play files (default: every .vf of the newest data/gen<N>/).
    pub files: Vec<PathBuf>,
    /// Where to save the net.
    #[arg(long, default_value = "nets/policy-sp1.safetensors")]
    pub out: PathBuf,
    /// CSV of the losses (step, epoch, lr, train loss, validation loss).
    #[arg(long, default_value = "docs/nets/policy-sp1.csv")]
    pub csv: PathBuf,
    /// Share of each game's positions sampled (0, 1].
    #[arg(long, default_value_t = 0.4)]
    pub sample: f64,
    /// Share of games held out for validation (0, 1).
    #[arg(long, default_value_t = 0.05)]
    pub validation_games: f64,
    /// Most training positions (0: all sampled).
    #[arg(long, default_value_t = 1_500_000)]
    pub max_positions: usize,
    #[arg(long, default_value_t = 1)]
    pub epochs: usize,
    #[arg(long, default_value_t = 1024)]
    pub batch_size: usize,
    /// Peak learning rate (cosine decay to 2 % of it).
    #[arg(long, default_value_t = 2e-3)]
    pub lr: f64,
    #[arg(long, default_value_t = 1e-4)]
    pub weight_decay: f64,
    /// Stop after this many optimiser steps (0: all epochs), for timing runs.
    #[arg(long, default_value_t = 0)]
    pub max_steps: usize,
    /// Validation positions in the loss curve (the final report uses all).
    #[arg(long, default_value_t = 8192)]
    pub curve_positions: usize,
    /// Steps between two points of the loss curve (and two log lines when stderr is
    /// not a terminal).
    #[arg(long, default_value_t = 100)]
    pub curve_every: usize,
    /// Hidden layer width.
    #[arg(long, default_value_t = 256)]
    pub hidden: usize,
    /// Position vector width (and move embedding width).
    #[arg(long, default_value_t = 64)]
    pub d: usize,
    /// A fresh net without the tactical row per move (`policy::tactics`), as the first
    /// nets were.
    #[arg(long)]
    pub no_tactics: bool,
    /// A fresh net whose board inputs say which pieces are attacked and defended
    /// (`policy::threat_features`); a net given by `--init` or `--evaluate` brings its
    /// own kind.
    #[arg(long)]
    pub threat_inputs: bool,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Measure this net on the validation split instead of training.
    #[arg(long)]
    pub evaluate: Option<PathBuf>,
    /// Also measure the hand-written MCTS prior on the same validation positions.
    #[arg(long)]
    pub baseline: bool,
    /// Train on these `.mcv` files of `datagen --mode mcts` instead: the target is the
    /// root's visit distribution (AlphaZero), top-1 is measured against the most
    /// visited move.
    #[arg(long, num_args = 1.., value_name = "FILES")]
    pub visits: Vec<PathBuf>,
    /// With `--visits`: share of the target put on the move played (0: visits only).
    #[arg(long, default_value_t = 0.0)]
    pub played_weight: f64,
    /// Start from this net (fine-tuning) instead of fresh weights; its widths replace
    /// `--hidden` and `--d`.
    #[arg(long)]
    pub init: Option<PathBuf>,
    /// No progress output (tests).
    #[arg(long)]
    pub quiet: bool,
}

impl TrainPolicyArgs {
    fn check(&self) -> Result<(), String> {
        if !(self.sample > 0.0 && self.sample <= 1.0) {
            return Err(format!("--sample must be in (0, 1], got {}", self.sample));
        }
        if !(self.validation_games > 0.0 && self.validation_games < 1.0) {
            return Err(format!(
                "--validation-games must be in (0, 1), got {}",
                self.validation_games
            ));
        }
        if self.batch_size == 0 || self.epochs == 0 {
            return Err("--batch-size and --epochs must be positive".into());
        }
        if self.hidden == 0 || self.d == 0 {
            return Err("layer widths must be positive".into());
        }
        if !(0.0..=1.0).contains(&self.played_weight) {
            return Err(format!(
                "--played-weight must be in [0, 1], got {}",
                self.played_weight
            ));
        }
        if !self.visits.is_empty() && !self.files.is_empty() {
            return Err("give either .vf files or --visits .mcv files, not both".into());
        }
        if self.init.as_ref().is_some_and(|init| init == &self.out) && self.evaluate.is_none() {
            return Err(format!(
                "--out {} is the --init net: name another file so the starting net stays",
                self.out.display()
            ));
        }
        Ok(())
    }

    /// Whether the net trained or measured reads threat inputs: the kind of the
    /// `--evaluate` or `--init` net, else `--threat-inputs`.
    fn reads_threats(&self) -> Result<bool, String> {
        match self.evaluate.as_ref().or(self.init.as_ref()) {
            Some(path) => Ok(PolicyNet::load(path)?.shape.threat_inputs),
            None => Ok(self.threat_inputs),
        }
    }

    fn sampling(&self) -> Result<Sampling, String> {
        Ok(Sampling {
            positions: self.sample,
            validation_games: self.validation_games,
            max_train: self.max_positions,
            seed: self.seed,
            threat_inputs: self.reads_threats()?,
        })
    }
}

/// What a run measured.
#[derive(Debug)]
pub struct PolicyReport {
    pub train_positions: usize,
    pub validation: eval::Agreement,
    pub train_seconds: f64,
    pub ns_per_evaluation: f64,
    /// Visit training: the fit before (the `--init` net, or the fresh weights) and
    /// after, on validation and on the first training positions.
    pub visits: Option<VisitReport>,
}

/// Before and after of a visit-target run.
#[derive(Debug)]
pub struct VisitReport {
    pub validation_before: VisitFit,
    pub validation_after: VisitFit,
    pub train_before: VisitFit,
    pub train_after: VisitFit,
}

/// How well a model fits visit targets.
#[derive(Clone, Copy, Debug, Default)]
pub struct VisitFit {
    pub positions: usize,
    /// Mean cross-entropy against the target distribution.
    pub loss: f64,
    /// Share of positions whose highest logit is the most visited move.
    pub top1: f64,
}

impl VisitFit {
    pub fn render(&self) -> String {
        format!(
            "{} positions, visit-target loss {:.4}, top-1 with the most visited move {:.1} %",
            self.positions,
            self.loss,
            100.0 * self.top1
        )
    }
}

/// The fit of `model` to the targets of positions `ids` of `set` (candle's forward pass,
/// so a fresh model needs no saving first).
pub fn visit_fit(
    model: &PolicyModel,
    set: &PositionSet,
    ids: &[usize],
    batch: usize,
) -> Result<VisitFit, String> {
    let dev = Device::Cpu;
    let mut hits = 0usize;
    for chunk in ids.chunks(batch.max(1)) {
        let b = Batch::new(set, chunk, &dev).map_err(ce)?;
        let logits = model
            .logits(&b)
            .and_then(|l| l.to_vec2::<f32>())
            .map_err(ce)?;
        for (row, &i) in logits.iter().zip(chunk) {
            let best = row
                .iter()
                .enumerate()
                .fold(
                    (0, f32::NEG_INFINITY),
                    |acc, (k, &l)| {
                        if l > acc.1 {
                            (k, l)
                        } else {
                            acc
                        }
                    },
                )
                .0;
            hits += (best == set.target[i] as usize) as usize;
        }
    }
    Ok(VisitFit {
        positions: ids.len(),
        loss: mean_loss(model, set, ids, batch)?,
        top1: hits as f64 / ids.len().max(1) as f64,
    })
}

/// Training positions in the before/after fit of a visit run (the first ones).
const TRAIN_FIT_POSITIONS: usize = 8192;

/// `--visits`: fine-tunes (or trains) on visit distributions and reports the fit before
/// and after.
fn run_visits(args: &TrainPolicyArgs) -> Result<PolicyReport, String> {
    let started = Instant::now();
    let (train_set, validation, stats) =
        data::prepare_visits(&args.visits, &args.sampling()?, args.played_weight as f32)?;
    if !args.quiet {
        eprintln!(
            "{stats:?}: {} training positions, {} validation positions ({:.1} s)",
            train_set.len(),
            validation.len(),
            started.elapsed().as_secs_f64()
        );
    }
    let validation_ids: Vec<usize> = (0..validation.len()).collect();
    let train_ids: Vec<usize> = (0..train_set.len().min(TRAIN_FIT_POSITIONS)).collect();
    let fit = |model: &PolicyModel| -> Result<(VisitFit, VisitFit), String> {
        Ok((
            visit_fit(model, &validation, &validation_ids, args.batch_size)?,
            visit_fit(model, &train_set, &train_ids, args.batch_size)?,
        ))
    };
    let before = match &args.evaluate {
        Some(path) => load_model(path)?,
        // The same draws as the training run's start.
        None => initial_model(args, &mut StdRng::seed_from_u64(args.seed))?,
    };
    let (validation_before, train_before) = fit(&before)?;
    println!("before: validation {}", validation_before.render());
    let t = Instant::now();
    let after = match &args.evaluate {
        Some(_) => before,
        None => {
            let model = train(args, &train_set, &validation)?;
            save(&model, &args.out)?;
            model
        }
    };
    let train_seconds = t.elapsed().as_secs_f64();
    let (validation_after, train_after) = fit(&after)?;
    println!("after:  validation {}", validation_after.render());
    println!(
        "training positions (first {}): loss {:.4} -> {:.4}, top-1 {:.1} % -> {:.1} %",
        train_ids.len(),
        train_before.loss,
        train_after.loss,
        100.0 * train_before.top1,
        100.0 * train_after.top1
    );
    Ok(PolicyReport {
        train_positions: train_set.len(),
        validation: eval::Agreement::default(),
        train_seconds,
        ns_per_evaluation: f64::NAN,
        visits: Some(VisitReport {
            validation_before,
            validation_after,
            train_before,
            train_after,
        }),
    })
}

/// A saved net as a trainable model.
pub fn load_model(path: &Path) -> Result<PolicyModel, String> {
    let tensors = candle_core::safetensors::load(path, &Device::Cpu)
        .map_err(|e| format!("cannot read policy net '{}': {e}", path.display()))?;
    PolicyModel::from_tensors(&tensors).map_err(|e| format!("policy net '{}': {e}", path.display()))
}

/// The model a run starts from: `--init`, or fresh weights drawn from `rng`.
fn initial_model(args: &TrainPolicyArgs, rng: &mut StdRng) -> Result<PolicyModel, String> {
    match &args.init {
        Some(path) => load_model(path),
        None => {
            let shape = PolicyShape {
                hidden: args.hidden,
                d: args.d,
                tactics: !args.no_tactics,
                threat_inputs: args.threat_inputs,
            };
            PolicyModel::new(shape, rng, &Device::Cpu).map_err(ce)
        }
    }
}

/// The subcommand.
pub fn run(args: TrainPolicyArgs) -> Result<PolicyReport, String> {
    args.check()?;
    super::keep_freed_memory();
    if !args.visits.is_empty() {
        return run_visits(&args);
    }
    let started = Instant::now();
    let files = if args.files.is_empty() {
        data::default_files()?
    } else {
        args.files.clone()
    };
    let (train_set, validation, stats) = data::prepare(&files, &args.sampling()?)?;
    if !args.quiet {
        eprintln!(
            "{stats:?}: {} training positions, {} validation positions ({:.1} s)",
            train_set.len(),
            validation.len(),
            started.elapsed().as_secs_f64()
        );
    }
    let t = Instant::now();
    let net = match &args.evaluate {
        Some(path) => PolicyNet::load(path)?,
        None => {
            let model = train(&args, &train_set, &validation)?;
            save(&model, &args.out)?;
            PolicyNet::load(&args.out)?
        }
    };
    let train_seconds = t.elapsed().as_secs_f64();
    let agreement = eval::agreement(&net, &validation);
    let board: cozy_chess::Board = eval::TIMING_FEN.parse().map_err(|e| format!("{e:?}"))?;
    let ns = eval::ns_per_evaluation(&net, &board, if args.quiet { 100 } else { 20_000 });
    println!("{}", agreement.render());
    if args.baseline {
        let boards = data::validation_boards(&files, &args.sampling()?)?;
        let hand = eval::prior_agreement(&crate::search::mcts::prior::HandWritten, &boards);
        println!("hand-written prior, {}", hand.render());
    }
    println!(
        "policy {}x{}: {ns:.0} ns per evaluation (middlegame, {} legal moves, one thread)",
        net.shape.hidden,
        net.shape.d,
        crate::policy::moves::legal_moves(&board).len()
    );
    Ok(PolicyReport {
        train_positions: train_set.len(),
        validation: agreement,
        train_seconds,
        ns_per_evaluation: ns,
        visits: None,
    })
}

/// Trains a model on `train_set`; the loss curve uses the first `curve_positions` of
/// `validation` (never trained on).
pub fn train(
    args: &TrainPolicyArgs,
    train_set: &PositionSet,
    validation: &PositionSet,
) -> Result<PolicyModel, String> {
    args.check()?;
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
        log_points: true,
    };
    let init = |rng: &mut StdRng| initial_model(args, rng);
    move_net::train(&settings, init, train_set, validation)
}

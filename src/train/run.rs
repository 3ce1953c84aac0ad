//! One training run, in named steps: check the arguments, load the sets, build the model
//! from its starting weights, make the optimiser (or restore it from a checkpoint), train
//! epoch after epoch, and save. The same arguments and data give the same net, whether
//! or not the run was stopped and resumed on the way.

use std::collections::HashMap;
use std::fs::File;
use std::io::Write;
use std::time::Instant;

use candle_core::{DType, Device, Var};
use candle_nn::{ParamsAdamW, VarBuilder, VarMap};
use indicatif::ProgressBar;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;

use super::checkpoint::{load_checkpoint, save_checkpoint, Position};
use super::data::{Dataset, LoadStats, SparseBufs};
use super::loss::{batch_loss, evaluate_loss};
use super::sets::{load_data, load_validation};
use super::weights::{
    init_weights, read_start_net, save, set_named_vars, set_vars, spread_output_buckets,
    tensors_to_save, widen_feature_transformer, NAMES,
};
use super::{ce, optim, TrainArgs, TrainSummary};
use crate::eval::model::{Model, WEIGHT_CLIP};
use crate::eval::network::Network;

/// Trains a network as described by `args` and saves it to `args.out`.
pub fn train(args: &TrainArgs) -> Result<TrainSummary, String> {
    args.check()?;
    let start = Instant::now();
    let (ds, stats) = load_training_set(args)?;
    let mut rng = StdRng::seed_from_u64(args.seed);
    let (train_ids, validation) = split_validation(args, &ds, &mut rng)?;
    let (model, vars) = build_model(args, &mut rng)?;
    let mut opt = optimiser(args, &vars)?;
    let resume_at = match &args.resume {
        Some(path) => {
            let at = load_checkpoint(path, &vars, &mut opt, args.markers())?;
            say(
                args,
                format!(
                    "resuming {path} at epoch {} step {} ({} steps done)",
                    at.epoch, at.in_epoch, at.step
                ),
            );
            at
        }
        None => Position::default(),
    };
    let (val_ds, val_ids) = match &validation {
        Validation::Fixed(v) => (v, (0..v.len()).collect()),
        Validation::HeldOut(ids) => (&ds, ids.clone()),
    };
    let mut run = Run {
        args,
        ds: &ds,
        clipped: ["ft.weight", "ft.bias", "l1.weight"]
            .iter()
            .filter_map(|n| vars.get(*n).cloned())
            .collect(),
        model,
        vars,
        opt,
        bufs: SparseBufs::default(),
        steps_per_epoch: train_ids.len().div_ceil(args.batch_size),
        total_steps: train_ids.len().div_ceil(args.batch_size) * args.epochs,
    };
    let mut report = Report::new(args, run.total_steps)?;
    say(
        args,
        format!(
            "training {} positions, validating on {}, {} epochs x {} steps of {}",
            train_ids.len(),
            val_ids.len(),
            args.epochs,
            run.steps_per_epoch,
            args.batch_size
        ),
    );
    report.bar.set_position(resume_at.step as u64);
    let summary = |run: &Run, train_loss: f64, val_loss: f64| -> Result<TrainSummary, String> {
        Ok(TrainSummary {
            positions: ds.len(),
            bad_lines: stats.bad,
            train_loss,
            val_loss,
            seconds: start.elapsed().as_secs_f64(),
            tensors: tensors_to_save(&run.vars, args.scale, args.markers())?,
        })
    };
    let (mut last_train, mut last_val) = (f64::NAN, f64::NAN);
    let train_start = Instant::now();
    let mut at = resume_at;
    for epoch in resume_at.epoch.max(1)..=args.epochs {
        let epoch_start = Instant::now();
        if epoch != resume_at.epoch {
            at = Position {
                epoch,
                in_epoch: 0,
                step: at.step,
                loss_sum: 0.0,
                loss_count: 0,
            };
        }
        let lr = match run.epoch(&train_ids, &mut at, &mut report)? {
            EpochEnd::Finished { lr } => lr,
            EpochEnd::Stopped => {
                report.bar.finish_and_clear();
                say(
                    args,
                    format!("stopped after {} steps (--stop-after-steps)", at.step),
                );
                let train_loss = at.loss_sum / at.loss_count.max(1) as f64;
                return summary(&run, train_loss, f64::NAN);
            }
        };
        last_train = at.loss_sum / at.loss_count.max(1) as f64;
        last_val = evaluate_loss(&run.model, val_ds, &val_ids, args)?;
        let secs = epoch_start.elapsed().as_secs_f64();
        report.epoch(epoch, last_train, last_val, lr, secs)?;
        run.end_of_epoch_checkpoints(epoch, at.step)?;
    }
    report.bar.finish_and_clear();
    save(&run.vars, args.scale, args.markers(), &args.out)?;
    // Make sure what was written loads and quantises as a playing network.
    let bytes =
        std::fs::read(&args.out).map_err(|e| format!("cannot re-read '{}': {e}", args.out))?;
    let net = Network::from_bytes(&bytes, &args.out)?;
    say(
        args,
        format!(
            "saved {} in {:.0}s: train loss {last_train:.6}, val loss {last_val:.6}",
            net.description(),
            train_start.elapsed().as_secs_f64()
        ),
    );
    summary(&run, last_train, last_val)
}

/// A progress line on stderr unless `--quiet`.
fn say(args: &TrainArgs, msg: String) {
    if !args.quiet {
        eprintln!("{msg}");
    }
}

/// Loads the `--data` files and says what they held.
fn load_training_set(args: &TrainArgs) -> Result<(Dataset, LoadStats), String> {
    let start = Instant::now();
    let (ds, stats) = load_data(args)?;
    say(
        args,
        format!(
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
        ),
    );
    if ds.len() < 2 {
        return Err(format!("not enough valid positions ({})", ds.len()));
    }
    Ok((ds, stats))
}

/// Where the validation loss comes from.
enum Validation {
    /// A set of its own (`--val-data`).
    Fixed(Dataset),
    /// These positions of the training data, held out of training (`--val-fraction`).
    HeldOut(Vec<usize>),
}

/// The training positions (sorted) and the validation set.
fn split_validation(
    args: &TrainArgs,
    ds: &Dataset,
    rng: &mut StdRng,
) -> Result<(Vec<usize>, Validation), String> {
    let mut ids: Vec<usize> = (0..ds.len()).collect();
    ids.shuffle(rng);
    let validation = if args.val_data.is_empty() {
        let n_val = ((ds.len() as f64 * args.val_fraction).round() as usize).min(ds.len() - 1);
        Validation::HeldOut(ids.split_off(ds.len() - n_val))
    } else {
        Validation::Fixed(load_validation(args)?)
    };
    ids.sort_unstable();
    Ok((ids, validation))
}

/// The model of `args`' shape with its starting weights: seeded random ones, then those of
/// `--init` (all; a narrower net's feature transformer widened to `--hidden`) or
/// `--init-ft` (the feature transformer) if given.
fn build_model(
    args: &TrainArgs,
    rng: &mut StdRng,
) -> Result<(Model, HashMap<String, Var>), String> {
    let varmap = VarMap::new();
    let vb = VarBuilder::from_varmap(&varmap, DType::F32, &Device::Cpu);
    let model = Model::new(
        vb,
        args.hidden,
        args.l1_width,
        args.output_buckets,
        args.screlu,
    )
    .map_err(ce)?;
    let vars: HashMap<String, Var> = varmap
        .data()
        .lock()
        .map_err(|_| "var map lock poisoned")?
        .clone();
    init_weights(&vars, 2 * args.hidden, args.l1_width, rng)?;
    if let Some(path) = &args.init {
        let map = read_start_net("--init", path, args.scale)?;
        let map = spread_output_buckets(map, args.output_buckets)?;
        let (map, narrower) = widen_feature_transformer(map, args.hidden, rng)?;
        set_vars(&map, &vars, args.markers(), &format!("--init '{path}'"))?;
        match narrower {
            Some(h) => say(
                args,
                format!(
                    "starting from the weights of {path}, its {h} feature transformer units widened to {}",
                    args.hidden
                ),
            ),
            None => say(args, format!("starting from the weights of {path}")),
        }
    }
    if let Some(path) = &args.init_ft {
        let map = read_start_net("--init-ft", path, args.scale)?;
        let what = format!("--init-ft '{path}'");
        let ft = ["ft.weight", "ft.bias"];
        set_named_vars(&map, &vars, args.markers(), &what, &ft)?;
        say(
            args,
            format!("feature transformer from {path}, head from random weights"),
        );
    }
    Ok((model, vars))
}

/// AdamW over every trained tensor.
fn optimiser(
    args: &TrainArgs,
    vars: &HashMap<String, Var>,
) -> Result<optim::ResumableAdamW, String> {
    let params = ParamsAdamW {
        lr: args.lr,
        weight_decay: args.weight_decay,
        ..Default::default()
    };
    let named: Vec<(String, Var)> = NAMES
        .iter()
        .map(|n| Ok((n.to_string(), vars.get(*n).ok_or("missing var")?.clone())))
        .collect::<Result<_, &str>>()?;
    optim::ResumableAdamW::new(named, params).map_err(ce)
}

/// Cosine decay from `--lr` at the first step to `lr * lr_final` at the last.
fn cosine_lr(args: &TrainArgs, step: usize, total: usize) -> f64 {
    let t = if total <= 1 {
        1.0
    } else {
        step as f64 / (total - 1) as f64
    };
    let lo = args.lr * args.lr_final;
    lo + 0.5 * (args.lr - lo) * (1.0 + (std::f64::consts::PI * t).cos())
}

/// How an epoch ended.
enum EpochEnd {
    /// Every batch trained; the learning rate of the last step.
    Finished { lr: f64 },
    /// `--stop-after-steps` reached (a resume checkpoint is written).
    Stopped,
}

/// What a run trains with.
struct Run<'a> {
    args: &'a TrainArgs,
    ds: &'a Dataset,
    model: Model,
    vars: HashMap<String, Var>,
    opt: optim::ResumableAdamW,
    /// The tensors kept within ±[`WEIGHT_CLIP`] so that they quantise.
    clipped: Vec<Var>,
    bufs: SparseBufs,
    steps_per_epoch: usize,
    total_steps: usize,
}

impl Run<'_> {
    /// Trains the batches of epoch `at.epoch` from batch `at.in_epoch` on, keeping `at`
    /// up to date.
    fn epoch(
        &mut self,
        train_ids: &[usize],
        at: &mut Position,
        report: &mut Report,
    ) -> Result<EpochEnd, String> {
        let args = self.args;
        let epoch_start = Instant::now();
        // Each epoch's order depends only on the seed and the epoch, so a resumed run
        // sees the batches the uninterrupted one would have.
        let mut order = train_ids.to_vec();
        order.shuffle(&mut StdRng::seed_from_u64(
            args.seed ^ (at.epoch as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
        ));
        let mut lr = args.lr;
        let skip = at.in_epoch;
        for (in_epoch, chunk) in order.chunks(args.batch_size).enumerate().skip(skip) {
            at.in_epoch = in_epoch;
            if args.stop_after_steps.is_some_and(|n| at.step >= n) {
                if let Some(dir) = &args.checkpoint_dir {
                    save_checkpoint(dir, &self.vars, &self.opt, args.scale, args.markers(), at)?;
                }
                return Ok(EpochEnd::Stopped);
            }
            lr = cosine_lr(args, at.step, self.total_steps);
            let loss = self.step(chunk, lr, at.step)?;
            at.loss_sum += loss * chunk.len() as f64;
            at.loss_count += chunk.len();
            at.step += 1;
            at.in_epoch = in_epoch + 1;
            if let Some(dir) = &args.checkpoint_dir {
                if args.checkpoint_every > 0 && at.step.is_multiple_of(args.checkpoint_every) {
                    save_checkpoint(dir, &self.vars, &self.opt, args.scale, args.markers(), at)?;
                }
            }
            let rate = at.loss_count as f64 / epoch_start.elapsed().as_secs_f64().max(1e-9);
            report.step(
                at.step,
                self.total_steps,
                format!(
                    "epoch {} loss {:.5} {:.0} pos/s",
                    at.epoch,
                    at.loss_sum / at.loss_count as f64,
                    rate
                ),
            );
        }
        Ok(EpochEnd::Finished { lr })
    }

    /// One optimiser step on the positions `chunk` at learning rate `lr`; returns the
    /// batch's loss.
    fn step(&mut self, chunk: &[usize], lr: f64, step: usize) -> Result<f64, String> {
        let args = self.args;
        self.opt.set_learning_rate(lr);
        self.ds
            .sparse_batch(chunk, args.wdl_lambda, args.scale, &mut self.bufs);
        let loss = batch_loss(&self.model, &self.bufs, chunk.len()).map_err(ce)?;
        self.opt.backward_step(&loss).map_err(ce)?;
        for var in &self.clipped {
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
        Ok(l)
    }

    /// `epoch-N.safetensors` and a resume checkpoint at the start of the next epoch, when
    /// `--checkpoint-dir` is given.
    fn end_of_epoch_checkpoints(&self, epoch: usize, step: usize) -> Result<(), String> {
        let args = self.args;
        let Some(dir) = &args.checkpoint_dir else {
            return Ok(());
        };
        let markers = args.markers();
        let path = format!("{dir}/epoch-{epoch}.safetensors");
        save(&self.vars, args.scale, markers, &path)?;
        let next = Position {
            epoch: epoch + 1,
            in_epoch: 0,
            step,
            loss_sum: 0.0,
            loss_count: 0,
        };
        save_checkpoint(dir, &self.vars, &self.opt, args.scale, markers, &next)
    }
}

/// Progress as a run goes: the bar (or a log line a minute without a terminal), a line
/// per epoch, and the `--csv` rows.
struct Report {
    quiet: bool,
    bar: ProgressBar,
    csv: Option<File>,
    last_log: Instant,
}

impl Report {
    fn new(args: &TrainArgs, total_steps: usize) -> Result<Report, String> {
        let bar = if args.quiet {
            ProgressBar::hidden()
        } else {
            ProgressBar::new(total_steps as u64)
        };
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30}] {pos}/{len} {msg}",
            )
            .map_err(|e| e.to_string())?
            .progress_chars("=> "),
        );
        let csv = match &args.csv {
            Some(path) => {
                let exists = std::path::Path::new(path).exists();
                let mut f = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .map_err(|e| format!("cannot open CSV '{path}': {e}"))?;
                if !exists {
                    writeln!(f, "epoch,train_loss,val_loss,lr,seconds")
                        .map_err(|e| e.to_string())?;
                }
                Some(f)
            }
            None => None,
        };
        Ok(Report {
            quiet: args.quiet,
            bar,
            csv,
            last_log: Instant::now(),
        })
    }

    fn step(&mut self, step: usize, total_steps: usize, msg: String) {
        // Without a terminal the bar is hidden: log a line a minute instead.
        if self.bar.is_hidden() && !self.quiet && self.last_log.elapsed().as_secs() >= 60 {
            eprintln!("step {step}/{total_steps} {msg}");
            self.last_log = Instant::now();
        }
        self.bar.set_message(msg);
        self.bar.inc(1);
    }

    fn epoch(
        &mut self,
        epoch: usize,
        train: f64,
        val: f64,
        lr: f64,
        secs: f64,
    ) -> Result<(), String> {
        let line = format!("epoch {epoch}: train {train:.6} val {val:.6} lr {lr:.2e} {secs:.0}s");
        if self.bar.is_hidden() && !self.quiet {
            eprintln!("{line}");
        } else if !self.quiet {
            self.bar.println(line);
        }
        if let Some(f) = self.csv.as_mut() {
            writeln!(f, "{epoch},{train:.6},{val:.6},{lr:.6e},{secs:.1}")
                .map_err(|e| format!("cannot write CSV: {e}"))?;
        }
        Ok(())
    }
}

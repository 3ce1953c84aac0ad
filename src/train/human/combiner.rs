//! `rookery train-combiner`: trains the human model's combiner (`human::combiner`) with
//! candle on positions labelled by `rookery human --label` (each legal move's search
//! scores at the model's depths), the prior's log-probabilities computed here with the
//! embedded prior (or `--prior`). The combiner starts as the prior itself (the prior's
//! weight 1, everything else 0), so training can only add what the search and the move
//! facts tell. Validation positions (from the validation split of the games) are never
//! trained on; the report compares the prior's and the combiner's top-1 on them.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use candle_core::{DType, Device, Tensor, Var, D};
use candle_nn::{AdamW, Optimizer, ParamsAdamW};
use indicatif::{ProgressBar, ProgressStyle};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

use crate::chess::{move_to_uci, parse_fen};
use crate::human::combiner::{conditioned, rating_input, Combiner, COMBINER_INPUTS};
use crate::human::features::{move_features, DEPTHS, MOVE_FEATURES};
use crate::human::label::parse_scores_column;
use crate::human::scores::MoveScores;
use crate::policy::network::PriorNet;
use crate::policy::shape::time_bucket;
use crate::policy::{default_prior, PriorQuery};

fn ce(e: candle_core::Error) -> String {
    format!("candle: {e}")
}

/// Logit of a padded move slot.
const MASKED: f32 = -1e9;

#[derive(clap::Args, Debug, Clone)]
pub struct TrainCombinerArgs {
    /// Labelled training positions (`rookery human --label` output, train split; `.gz`
    /// read directly).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Labelled validation positions (validation split; never trained on).
    #[arg(long)]
    pub validation: PathBuf,
    /// Prior net (default: the embedded one).
    #[arg(long)]
    pub prior: Option<PathBuf>,
    #[arg(long, default_value = "nets/human-combiner-v2.safetensors")]
    pub out: PathBuf,
    /// CSV of the losses (epoch, train loss, validation loss, validation top-1).
    #[arg(long, default_value = "docs/nets/human-combiner-v2.csv")]
    pub csv: PathBuf,
    #[arg(long, default_value_t = 16)]
    pub epochs: usize,
    #[arg(long, default_value_t = 256)]
    pub batch_size: usize,
    #[arg(long, default_value_t = 2e-3)]
    pub lr: f64,
    #[arg(long, default_value_t = 32)]
    pub hidden: usize,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[arg(long)]
    pub quiet: bool,
    /// Only measure this combiner on the validation positions (no training).
    #[arg(long)]
    pub evaluate: Option<PathBuf>,
}

/// Labelled positions, flat: position `i`'s moves are `feats[move_at[i]..move_at[i+1]]`.
#[derive(Default)]
pub struct CombinerSet {
    pub feats: Vec<[f32; MOVE_FEATURES]>,
    pub move_at: Vec<usize>,
    pub target: Vec<usize>,
    pub rating: Vec<f32>,
}

impl CombinerSet {
    pub fn len(&self) -> usize {
        self.target.len()
    }

    pub fn is_empty(&self) -> bool {
        self.target.is_empty()
    }

    pub fn moves(&self, i: usize) -> &[[f32; MOVE_FEATURES]] {
        &self.feats[self.move_at[i]..self.move_at[i + 1]]
    }
}

/// One labelled line as (mover's rating, move features, index of the played move).
pub fn parse_labelled(
    prior: &PriorNet,
    line: &str,
) -> Result<(u16, Vec<[f32; MOVE_FEATURES]>, usize), String> {
    let f: Vec<&str> = line.split('\t').collect();
    if f.len() != 9 {
        return Err(format!("expected 9 tab-separated fields, got {}", f.len()));
    }
    let board = parse_fen(f[0])?;
    let num = |s: &str| s.parse::<u16>().map_err(|_| format!("bad rating '{s}'"));
    let (mover, opponent) = (num(f[2])?, num(f[3])?);
    let tb = time_bucket(f[5]).unwrap_or(0);
    let scored = parse_scores_column(f[8])?;
    let probs = prior.probabilities(
        &board,
        &PriorQuery {
            mover_rating: mover,
            opponent_rating: opponent,
            time_bucket: tb,
        },
    );
    if probs.len() != scored.len() {
        return Err(format!(
            "{} legal moves but {} scored",
            probs.len(),
            scored.len()
        ));
    }
    let mut scores = MoveScores {
        moves: Vec::with_capacity(probs.len()),
        depths: DEPTHS.to_vec(),
        scores: Vec::with_capacity(probs.len()),
        nodes: 0,
    };
    for ((mv, _), (uci, s)) in probs.iter().zip(&scored) {
        if move_to_uci(&board, *mv, false) != *uci || s.len() != DEPTHS.len() {
            return Err(format!(
                "scores column does not match the legal moves at {uci}"
            ));
        }
        scores.moves.push(*mv);
        scores.scores.push(s.clone());
    }
    let target = scores
        .moves
        .iter()
        .position(|&m| move_to_uci(&board, m, false) == f[1])
        .ok_or_else(|| format!("played move {} is not legal", f[1]))?;
    let prior_log: Vec<f32> = probs.iter().map(|p| p.1.max(1e-12).ln()).collect();
    Ok((mover, move_features(&board, &prior_log, &scores), target))
}

/// Reads labelled files; positions with one legal move teach nothing and are left out.
pub fn read_set(prior: &PriorNet, files: &[PathBuf]) -> Result<CombinerSet, String> {
    let mut set = CombinerSet {
        move_at: vec![0],
        ..Default::default()
    };
    let mut bad = 0usize;
    for path in files {
        let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let reader: Box<dyn BufRead> = if path.extension().is_some_and(|e| e == "gz") {
            Box::new(std::io::BufReader::new(flate2::read::MultiGzDecoder::new(
                file,
            )))
        } else {
            Box::new(std::io::BufReader::new(file))
        };
        for (n, line) in reader.lines().enumerate() {
            let line = line.map_err(|e| format!("{}: {e}", path.display()))?;
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            match parse_labelled(prior, &line) {
                Ok((_, feats, _)) if feats.len() < 2 => {}
                Ok((rating, feats, target)) => {
                    set.feats.extend(feats);
                    set.move_at.push(set.feats.len());
                    set.target.push(target);
                    set.rating.push(rating as f32);
                }
                Err(e) => {
                    bad += 1;
                    if bad <= 5 {
                        eprintln!("{} line {}: {e} (skipped)", path.display(), n + 1);
                    }
                }
            }
        }
    }
    if bad > 0 {
        eprintln!("{bad} labelled lines skipped");
    }
    Ok(set)
}

/// The combiner as candle variables.
pub struct CombinerModel {
    pub vars: HashMap<&'static str, Var>,
    pub hidden: usize,
}

struct Batch {
    x: Tensor,
    mask: Tensor,
    target: Tensor,
    slots: usize,
}

impl Batch {
    fn new(set: &CombinerSet, ids: &[usize], dev: &Device) -> candle_core::Result<Batch> {
        let slots = ids.iter().map(|&i| set.moves(i).len()).max().unwrap_or(1);
        let mut x = vec![0f32; ids.len() * slots * COMBINER_INPUTS];
        let mut mask = vec![MASKED; ids.len() * slots];
        for (r, &i) in ids.iter().enumerate() {
            let rating = rating_input(set.rating[i]);
            for (k, feats) in set.moves(i).iter().enumerate() {
                let at = (r * slots + k) * COMBINER_INPUTS;
                x[at..at + COMBINER_INPUTS].copy_from_slice(&conditioned(feats, rating));
                mask[r * slots + k] = 0.0;
            }
        }
        let target: Vec<u32> = ids.iter().map(|&i| set.target[i] as u32).collect();
        Ok(Batch {
            x: Tensor::from_vec(x, (ids.len() * slots, COMBINER_INPUTS), dev)?,
            mask: Tensor::from_vec(mask, (ids.len(), slots), dev)?,
            target: Tensor::from_vec(target, ids.len(), dev)?,
            slots,
        })
    }
}

impl CombinerModel {
    /// The prior alone: the prior's log-probability passes through with weight 1.
    pub fn new(hidden: usize, rng: &mut StdRng, dev: &Device) -> candle_core::Result<Self> {
        let scale = (1.0 / COMBINER_INPUTS as f32).sqrt();
        let w: Vec<f32> = (0..COMBINER_INPUTS * hidden)
            .map(|_| rng.gen_range(-scale..scale))
            .collect();
        let mut skip = vec![0f32; COMBINER_INPUTS];
        skip[0] = 1.0;
        let mut vars = HashMap::new();
        let var =
            |v: Vec<f32>, shape: &[usize]| Var::from_tensor(&Tensor::from_vec(v, shape, dev)?);
        vars.insert("hidden.weight", var(w, &[COMBINER_INPUTS, hidden])?);
        vars.insert("hidden.bias", var(vec![0.0; hidden], &[hidden])?);
        vars.insert("out.weight", var(vec![0.0; hidden], &[hidden])?);
        vars.insert("skip.weight", var(skip, &[COMBINER_INPUTS])?);
        Ok(CombinerModel { vars, hidden })
    }

    fn v(&self, name: &str) -> &Tensor {
        self.vars[name].as_tensor()
    }

    fn logits(&self, b: &Batch) -> candle_core::Result<Tensor> {
        let h =
            b.x.matmul(self.v("hidden.weight"))?
                .broadcast_add(self.v("hidden.bias"))?
                .relu()?;
        let deep = h.matmul(&self.v("out.weight").reshape((self.hidden, 1))?)?;
        let direct =
            b.x.matmul(&self.v("skip.weight").reshape((COMBINER_INPUTS, 1))?)?;
        let n = b.mask.dim(0)?;
        (deep + direct)?.reshape((n, b.slots))?.add(&b.mask)
    }

    fn loss(&self, b: &Batch) -> candle_core::Result<(Tensor, Tensor)> {
        let logits = self.logits(b)?;
        let logp = candle_nn::ops::log_softmax(&logits, D::Minus1)?;
        let picked = logp.gather(&b.target.unsqueeze(1)?, 1)?;
        let hits = logits
            .argmax(D::Minus1)?
            .eq(&b.target)?
            .to_dtype(DType::F32)?
            .sum_all()?;
        Ok((picked.mean_all()?.neg()?, hits))
    }

    /// The tensors to save, with the depths the features were computed at.
    pub fn tensors(&self) -> candle_core::Result<HashMap<String, Tensor>> {
        let mut out: HashMap<String, Tensor> = self
            .vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.as_tensor().copy().expect("copy")))
            .collect();
        let depths: Vec<f32> = DEPTHS.iter().map(|&d| d as f32).collect();
        out.insert(
            "depths".into(),
            Tensor::from_vec(depths, DEPTHS.len(), &Device::Cpu)?,
        );
        Ok(out)
    }
}

/// Mean loss and top-1 of `model` on `set`.
fn measure(model: &CombinerModel, set: &CombinerSet, batch: usize) -> Result<(f64, f64), String> {
    let dev = Device::Cpu;
    let ids: Vec<usize> = (0..set.len()).collect();
    let (mut loss, mut hits) = (0.0, 0.0);
    for chunk in ids.chunks(batch) {
        let b = Batch::new(set, chunk, &dev).map_err(ce)?;
        let (l, h) = model.loss(&b).map_err(ce)?;
        loss += l.to_scalar::<f32>().map_err(ce)? as f64 * chunk.len() as f64;
        hits += h.to_scalar::<f32>().map_err(ce)? as f64;
    }
    let n = set.len().max(1) as f64;
    Ok((loss / n, hits / n))
}

/// Top-1 of the prior alone (feature 0) on `set`.
fn prior_top1(set: &CombinerSet) -> f64 {
    let hits = (0..set.len())
        .filter(|&i| {
            let moves = set.moves(i);
            let best = (0..moves.len())
                .max_by(|&a, &b| moves[a][0].total_cmp(&moves[b][0]))
                .unwrap_or(0);
            best == set.target[i]
        })
        .count();
    hits as f64 / set.len().max(1) as f64
}

/// The subcommand.
pub fn run(args: TrainCombinerArgs) -> Result<(), String> {
    let started = Instant::now();
    let loaded;
    let prior = match &args.prior {
        Some(p) => {
            loaded = PriorNet::load(p)?;
            &loaded
        }
        None => default_prior(),
    };
    let train_set = read_set(prior, &args.files)?;
    let validation = read_set(prior, std::slice::from_ref(&args.validation))?;
    if train_set.is_empty() || validation.is_empty() {
        return Err("no training or no validation positions".into());
    }
    eprintln!(
        "{} training positions, {} validation positions ({:.1} s to read)",
        train_set.len(),
        validation.len(),
        started.elapsed().as_secs_f64()
    );
    let net = match &args.evaluate {
        Some(path) => Combiner::load(path)?,
        None => {
            let model = train(&args, &train_set, &validation)?;
            save(&model, &args.out)?;
            eprintln!("saved {}", args.out.display());
            Combiner::load(&args.out)?
        }
    };
    println!(
        "validation ({} positions): prior top-1 {:.1} %",
        validation.len(),
        100.0 * prior_top1(&validation)
    );
    print!("{}", sampling_report(&net, &validation));
    Ok(())
}

/// Temperatures at which the levels' draw is measured.
const TEMPERATURES: [f32; 5] = [1.0, 0.7, 0.5, 0.35, 0.25];

/// How often a move drawn from the combiner matches the played one, by rating band:
/// the most likely move, and draws at each of [`TEMPERATURES`] (probabilities raised
/// to 1/T, the rare tail cut as the levels cut it), as expected values.
pub fn sampling_report(net: &Combiner, set: &CombinerSet) -> String {
    use crate::human::levels::sharpen;
    let bands: [(f32, f32); 4] = [
        (600.0, 1300.0),
        (1300.0, 1700.0),
        (1700.0, 2100.0),
        (2100.0, 3000.0),
    ];
    let mut out = format!("{:<14}{:>8}", "ratings", "top-1");
    for t in TEMPERATURES {
        out.push_str(&format!("{:>9}", format!("T={t}")));
    }
    out.push_str("   positions\n");
    for (lo, hi) in bands {
        let ids: Vec<usize> = (0..set.len())
            .filter(|&i| set.rating[i] >= lo && set.rating[i] < hi)
            .collect();
        let mut top = 0.0;
        let mut drawn = [0.0f64; TEMPERATURES.len()];
        for &i in &ids {
            let p = net.probabilities(set.moves(i), set.rating[i]);
            let best = (0..p.len())
                .max_by(|&a, &b| p[a].total_cmp(&p[b]))
                .unwrap_or(0);
            top += (best == set.target[i]) as u8 as f64;
            for (k, &t) in TEMPERATURES.iter().enumerate() {
                drawn[k] += sharpen(&p, t)[set.target[i]] as f64;
            }
        }
        let n = ids.len().max(1) as f64;
        out.push_str(&format!(
            "{:<14}{:>7.1}%",
            format!("{lo}-{hi}"),
            100.0 * top / n
        ));
        for d in drawn {
            out.push_str(&format!("{:>8.1}%", 100.0 * d / n));
        }
        out.push_str(&format!("   {}\n", ids.len()));
    }
    out
}

fn save(model: &CombinerModel, path: &Path) -> Result<(), String> {
    crate::train::save_tensors(&model.tensors().map_err(ce)?, path)
}

/// Trains on `train_set`; one CSV row per epoch with the validation loss and top-1.
pub fn train(
    args: &TrainCombinerArgs,
    train_set: &CombinerSet,
    validation: &CombinerSet,
) -> Result<CombinerModel, String> {
    let dev = Device::Cpu;
    let mut rng = StdRng::seed_from_u64(args.seed);
    let model = CombinerModel::new(args.hidden, &mut rng, &dev).map_err(ce)?;
    let mut names: Vec<&&str> = model.vars.keys().collect();
    names.sort();
    let vars = names.iter().map(|n| model.vars[**n].clone()).collect();
    let mut opt = AdamW::new(
        vars,
        ParamsAdamW {
            lr: args.lr,
            weight_decay: 1e-4,
            ..Default::default()
        },
    )
    .map_err(ce)?;
    if let Some(dir) = args.csv.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let mut csv = std::fs::File::create(&args.csv)
        .map_err(|e| format!("cannot create {}: {e}", args.csv.display()))?;
    writeln!(csv, "epoch,lr,train_loss,validation_loss,validation_top1")
        .map_err(|e| e.to_string())?;
    let (l0, t0) = measure(&model, validation, args.batch_size)?;
    writeln!(csv, "0,0,,{l0:.5},{t0:.5}").map_err(|e| e.to_string())?;
    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(args.epochs as u64)
    };
    if let Ok(style) =
        ProgressStyle::with_template("training {bar:30} {pos}/{len} epochs {eta} {msg}")
    {
        bar.set_style(style);
    }
    let mut ids: Vec<usize> = (0..train_set.len()).collect();
    for epoch in 1..=args.epochs {
        // Cosine decay to 5 % of the peak over the epochs.
        let t = (epoch - 1) as f64 / args.epochs.max(1) as f64;
        let lr = args.lr * (0.05 + 0.95 * 0.5 * (1.0 + (std::f64::consts::PI * t).cos()));
        opt.set_learning_rate(lr);
        ids.shuffle(&mut rng);
        let (mut sum, mut n) = (0.0, 0usize);
        for chunk in ids.chunks(args.batch_size) {
            let b = Batch::new(train_set, chunk, &dev).map_err(ce)?;
            let (loss, _) = model.loss(&b).map_err(ce)?;
            opt.backward_step(&loss).map_err(ce)?;
            let l = loss.to_scalar::<f32>().map_err(ce)? as f64;
            if !l.is_finite() {
                return Err(format!("training diverged in epoch {epoch} (loss {l})"));
            }
            sum += l * chunk.len() as f64;
            n += chunk.len();
        }
        let (vl, vt) = measure(&model, validation, args.batch_size)?;
        let tl = sum / n.max(1) as f64;
        writeln!(csv, "{epoch},{lr:.6},{tl:.5},{vl:.5},{vt:.5}").map_err(|e| e.to_string())?;
        bar.set_message(format!(
            "train {tl:.4} val {vl:.4} top-1 {:.1} %",
            100.0 * vt
        ));
        bar.inc(1);
        if !args.quiet && bar.is_hidden() {
            eprintln!(
                "epoch {epoch}: train {tl:.4} validation {vl:.4} top-1 {:.1} %",
                100.0 * vt
            );
        }
    }
    bar.finish_and_clear();
    Ok(model)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A random combiner, saved and loaded, gives the engine's kernel the same logits as
    /// the candle graph it was trained as.
    #[test]
    fn a_saved_combiner_equals_the_candle_graph() {
        let dev = Device::Cpu;
        let mut rng = StdRng::seed_from_u64(9);
        let model = CombinerModel::new(8, &mut rng, &dev).unwrap();
        // Move every weight off its starting value, as training would.
        for var in model.vars.values() {
            let shape = var.as_tensor().dims().to_vec();
            let n: usize = shape.iter().product();
            let v: Vec<f32> = (0..n).map(|_| rng.gen_range(-0.5..0.5)).collect();
            var.set(&Tensor::from_vec(v, shape, &dev).unwrap()).unwrap();
        }
        let mut set = CombinerSet {
            move_at: vec![0],
            ..Default::default()
        };
        for (moves, rating) in [(5usize, 900.0f32), (3, 2400.0)] {
            for _ in 0..moves {
                let mut f = [0f32; MOVE_FEATURES];
                f.iter_mut().for_each(|x| *x = rng.gen_range(-1.0..1.0));
                set.feats.push(f);
            }
            set.move_at.push(set.feats.len());
            set.target.push(0);
            set.rating.push(rating);
        }
        let batch = Batch::new(&set, &[0, 1], &dev).unwrap();
        let candle_logits: Vec<Vec<f32>> = model.logits(&batch).unwrap().to_vec2().unwrap();
        let path =
            std::env::temp_dir().join(format!("combiner-{}.safetensors", std::process::id()));
        save(&model, &path).unwrap();
        let net = Combiner::load(&path).unwrap();
        std::fs::remove_file(&path).ok();
        for (i, row) in candle_logits.iter().enumerate().take(set.len()) {
            let r = rating_input(set.rating[i]);
            for (k, f) in set.moves(i).iter().enumerate() {
                let kernel = net.logit(f, r);
                assert!(
                    (kernel - row[k]).abs() < 1e-4,
                    "position {i} move {k}: kernel {kernel}, candle {}",
                    row[k]
                );
            }
            // Padded slots stay out of the softmax.
            let padded = &row[set.moves(i).len()..batch.slots];
            assert!(padded.iter().all(|&l| l < -1e8));
        }
    }

    #[test]
    fn a_new_combiner_is_the_prior() {
        let dev = Device::Cpu;
        let model = CombinerModel::new(4, &mut StdRng::seed_from_u64(1), &dev).unwrap();
        let mut set = CombinerSet {
            move_at: vec![0],
            ..Default::default()
        };
        for p in [0.5f32, 0.3, 0.2] {
            let mut f = [0f32; MOVE_FEATURES];
            f[0] = p.ln();
            f[3] = 1.0;
            set.feats.push(f);
        }
        set.move_at.push(3);
        set.target.push(0);
        set.rating.push(1500.0);
        let (loss, _) = model.loss(&Batch::new(&set, &[0], &dev).unwrap()).unwrap();
        let loss = loss.to_scalar::<f32>().unwrap();
        assert!((loss + 0.5f32.ln()).abs() < 1e-5, "loss {loss}");
    }
}

//! The trainer's command line. Its defaults are the recipe of the embedded net
//! (`docs/net.md`, "Training"): `rookery train --data …` retrains it.

use crate::eval::model::{Markers, DEFAULT_SCALE};
use crate::eval::shape;

#[derive(clap::Args, Debug, Clone)]
pub struct TrainArgs {
    /// Training files: `FEN | score_cp_white | result_white` per line (plain or .gz), or
    /// self-play game files (`.vf`). `FILE@W` weighs the file's positions W in the loss
    /// (mixing data sets; default 1).
    #[arg(long, num_args = 1.., required_unless_present = "score_net")]
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
    #[arg(long, default_value_t = 8)]
    pub epochs: usize,
    #[arg(long, default_value_t = 8192)]
    pub batch_size: usize,
    /// Peak learning rate (AdamW); decays by cosine to `lr * lr_final`.
    #[arg(long, default_value_t = 4e-3)]
    pub lr: f64,
    /// Final learning rate as a fraction of `--lr`.
    #[arg(long, default_value_t = 0.05)]
    pub lr_final: f64,
    /// Blend: target = λ·result + (1−λ)·sigmoid(cp/scale).
    #[arg(long, default_value_t = 0.0)]
    pub wdl_lambda: f32,
    /// Centipawns per unit of network output (cp → win probability: sigmoid(cp/scale)).
    #[arg(long, default_value_t = DEFAULT_SCALE)]
    pub scale: f32,
    /// Fraction of positions held out for validation.
    #[arg(long, default_value_t = 0.02)]
    pub val_fraction: f64,
    /// Read at most this many positions (files in order).
    #[arg(long)]
    pub max_positions: Option<usize>,
    /// Accumulator size per perspective.
    #[arg(long, default_value_t = shape::HIDDEN)]
    pub hidden: usize,
    /// Outputs of the first head layer `l1`: 32, or 16 (half its cost per evaluation).
    #[arg(long = "l1", default_value_t = shape::L1_DEFAULT)]
    pub l1_width: usize,
    /// Output buckets by the number of pieces on the board (1 = a single output).
    #[arg(long, default_value_t = shape::OUTPUT_BUCKETS)]
    pub output_buckets: usize,
    /// Squared clipped ReLU (SCReLU) after the feature transformer, `clamp(a, 0, 1)²`, is
    /// on; `--no-screlu` trains the plain clipped ReLU.
    #[arg(long = "no-screlu", action = clap::ArgAction::SetFalse)]
    pub screlu: bool,
    /// Horizontal mirroring (a perspective whose king is on files a–d sees the board
    /// mirrored left to right; see `eval::features`) is on; `--no-mirror` turns it off.
    #[arg(long = "no-mirror", action = clap::ArgAction::SetFalse)]
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
    /// data): it must have the same `--l1`, `--output-buckets`, `--no-screlu` and
    /// `--no-mirror`, and its `scale` must equal `--scale`; a net with one output bucket may
    /// also start a run with more (each bucket a copy of its output row), and a net with a
    /// narrower feature transformer a run with a wider `--hidden` (the new units random,
    /// read with zero weights, so the run starts from the net's own outputs). The
    /// optimiser starts afresh.
    #[arg(long, conflicts_with = "resume")]
    pub init: Option<String>,
    /// Start the feature transformer (`ft.weight`, `ft.bias`) from this network and the
    /// head from random weights: for a run that changes the head's shape (`--l1`,
    /// `--output-buckets`) without learning the first layer again from nothing. The net
    /// must have the same `--hidden`, `--no-screlu`, `--no-mirror` and `scale`.
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

    /// The markers of the net this run trains (SCReLU, mirroring).
    pub fn markers(&self) -> Markers {
        Markers {
            squared: self.screlu,
            mirroring: self.mirror,
        }
    }

    /// An error naming the first flag whose value no run can use.
    pub fn check(&self) -> Result<(), String> {
        if self.hidden == 0 || self.hidden > shape::MAX_HIDDEN {
            return Err(format!(
                "--hidden must be in 1..={}, got {}",
                shape::MAX_HIDDEN,
                self.hidden
            ));
        }
        if !shape::L1_WIDTHS.contains(&self.l1_width) {
            return Err(format!(
                "--l1 must be one of {:?}, got {}",
                shape::L1_WIDTHS,
                self.l1_width
            ));
        }
        if !(1..=shape::MAX_BUCKETS).contains(&self.output_buckets) {
            return Err(format!(
                "--output-buckets must be in 1..={}, got {}",
                shape::MAX_BUCKETS,
                self.output_buckets
            ));
        }
        if self.batch_size == 0 || self.epochs == 0 {
            return Err("--batch-size and --epochs must be positive".into());
        }
        if !(0.0..=1.0).contains(&self.wdl_lambda) || self.scale <= 0.0 {
            return Err("--wdl-lambda must be in [0, 1] and --scale positive".into());
        }
        Ok(())
    }
}

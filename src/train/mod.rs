//! `rookery train`: trains the evaluation network with candle on labelled positions and
//! saves it as safetensors (see `docs/net.md` for the format, targets and loss). The
//! defaults ([`TrainArgs`]) are the recipe of the embedded net; flags change one part of
//! it. [`run`] is the subcommand; [`train`] the run itself, in named steps.

mod args;
mod checkpoint;
mod data;
pub mod human;
mod loss;
pub mod move_net;
mod optim;
pub mod policy;
mod run;
mod sets;
mod sparse;
mod weights;

use std::collections::HashMap;

use candle_core::Tensor;

pub use args::TrainArgs;
pub use loss::score_net;
pub use run::train;

fn ce(e: candle_core::Error) -> String {
    format!("candle: {e}")
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

/// `rookery train`: scores a net (`--score-net`) or trains one.
pub fn run(args: TrainArgs) -> Result<(), String> {
    keep_freed_memory();
    if let Some(net) = &args.score_net {
        let (loss, n) = score_net(&args, net)?;
        println!("{net}: loss {loss:.6} on {n} positions");
        return Ok(());
    }
    train(&args).map(|_| ())
}

/// candle allocates each step's tensors afresh, many of them megabytes. glibc's malloc
/// serves blocks that large with `mmap` and unmaps them when freed (or trims the heap),
/// so every step would fault its memory in again and the kernel zero it. Freed memory
/// stays in the heap for the next step instead. Raising the mmap threshold is not enough:
/// glibc caps it at 32 MiB, exactly the size of a [8192, 1024] f32 tensor (batch × both
/// perspectives at H = 512), so mmap is switched off altogether (`M_MMAP_MAX` 0).
pub(crate) fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets allocator thresholds; called before any training thread.
    unsafe {
        libc::mallopt(libc::M_MMAP_MAX, 0);
        libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX);
    }
}

/// Saves named tensors as safetensors, creating the folder (the move-policy trainers).
pub fn save_tensors(
    tensors: &HashMap<String, Tensor>,
    path: &std::path::Path,
) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    candle_core::safetensors::save(tensors, path)
        .map_err(|e| format!("cannot save '{}': {e}", path.display()))
}

//! Static evaluation behind one interface.
//!
//! The search talks only to [`Evaluator`]: it calls `reset` at the root, `push`/`push_null`
//! after making a move, `pop` after unmaking it, and `evaluate` at a node. Behind it sits
//! the neural network ([`network`]: the candle [`model`], its [`quantise`]d copy and the
//! integer [`inference`]) with its incrementally updated first layer ([`accumulator`]);
//! its sizes are in [`shape`]. This file also owns the global network slot: the embedded
//! default net, and [`load_eval_file`] to replace it (the UCI `EvalFile` option).

pub mod accumulator;
pub mod features;
pub mod inference;
pub mod model;
pub mod network;
pub mod quantise;
pub mod shape;
pub mod simd;

use std::sync::{Arc, RwLock};

use cozy_chess::{Board, Move};
use once_cell::sync::Lazy;

use accumulator::AccStack;
use network::Network;
use simd::Path;

/// Largest magnitude a static evaluation may return; keeps evals clear of mate scores.
pub const EVAL_LIMIT: i32 = 20_000;

/// Name of the embedded default network.
pub const DEFAULT_NET_NAME: &str = "rookery-gen18";
/// The embedded default network (safetensors).
pub static DEFAULT_NET: &[u8] = include_bytes!("../../nets/rookery-gen18.safetensors");

static CURRENT: Lazy<RwLock<Arc<Network>>> = Lazy::new(|| {
    let net = Network::from_bytes(DEFAULT_NET, DEFAULT_NET_NAME)
        .unwrap_or_else(|e| panic!("the embedded network is invalid: {e}"));
    RwLock::new(Arc::new(net))
});

/// The network new evaluators will use.
pub fn current_network() -> Arc<Network> {
    match CURRENT.read() {
        Ok(guard) => Arc::clone(&guard),
        Err(poisoned) => Arc::clone(&poisoned.into_inner()),
    }
}

fn set_network(net: Network) -> String {
    let description = net.description();
    let mut guard = match CURRENT.write() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    };
    *guard = Arc::new(net);
    description
}

/// Loads a safetensors network from `path` into the global slot and returns its
/// description. `""` or `"<default>"` restores the embedded net. On any error (missing
/// file, not safetensors, wrong tensor names or shapes, weights out of range) the previous
/// network stays in place and the error says why.
pub fn load_eval_file(path: &str) -> Result<String, String> {
    let path = path.trim();
    if path.is_empty() || path == "<default>" {
        let net = Network::from_bytes(DEFAULT_NET, DEFAULT_NET_NAME)?;
        return Ok(set_network(net));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read EvalFile '{path}': {e}"))?;
    let name = std::path::Path::new(path)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.to_string());
    let net = Network::from_bytes(&bytes, &name).map_err(|e| format!("EvalFile '{path}': {e}"))?;
    Ok(set_network(net))
}

/// Description (name, size, architecture) of the current network, for `info string`.
pub fn net_description() -> String {
    current_network().description()
}

/// Per-search-thread evaluation state (one per thread). Holds a snapshot of the global
/// network, refreshed at every `reset`, and a preallocated accumulator stack.
pub struct Evaluator {
    net: Arc<Network>,
    path: Path,
    stack: AccStack,
    scratch: inference::Scratch,
}

impl Default for Evaluator {
    fn default() -> Self {
        Self::new()
    }
}

impl Evaluator {
    pub fn new() -> Self {
        Self::with_network(current_network())
    }

    /// An evaluator using a specific network (tests, tools).
    pub fn with_network(net: Arc<Network>) -> Self {
        Self::with_path(net, Path::best())
    }

    /// An evaluator running a given kernel version (tests compare them). Falls back to
    /// the portable kernels when the CPU lacks `path`.
    pub fn with_path(net: Arc<Network>, path: Path) -> Self {
        let path = if path.available() {
            path
        } else {
            Path::Portable
        };
        let h = net.q.hidden;
        Evaluator {
            path,
            stack: AccStack::new(h, path, net.q.mirroring),
            scratch: net.q.scratch(),
            net,
        }
    }

    /// The kernel version in use.
    pub fn path(&self) -> Path {
        self.path
    }

    /// The network this evaluator uses.
    pub fn network(&self) -> &Arc<Network> {
        &self.net
    }

    /// Prepares for a search from `board` (full refresh). Also picks up a network loaded
    /// with [`load_eval_file`] since the last reset.
    pub fn reset(&mut self, board: &Board) {
        let latest = current_network();
        if !Arc::ptr_eq(&latest, &self.net) {
            *self = Self::with_path(latest, self.path);
        }
        self.stack.reset(&self.net.q, board);
    }

    /// Like `reset` but keeps this evaluator's network.
    pub fn reset_keep_network(&mut self, board: &Board) {
        self.stack.reset(&self.net.q, board);
    }

    /// Called after `mv` took `before` to `after`.
    #[inline]
    pub fn push(&mut self, before: &Board, mv: Move, after: &Board) {
        self.stack.push(before, mv, after);
    }

    /// Called after a null move took `before` to `after`.
    #[inline]
    pub fn push_null(&mut self, before: &Board, after: &Board) {
        self.stack.push_null(before, after);
    }

    /// Undoes the latest `push` / `push_null`.
    #[inline]
    pub fn pop(&mut self) {
        self.stack.pop();
    }

    /// Number of pushes not yet popped.
    pub fn ply(&self) -> usize {
        self.stack.ply()
    }

    /// Current (White, Black) accumulators (tests compare them with a full refresh).
    pub fn accumulators(&mut self) -> (&[i16], &[i16]) {
        self.stack.current(&self.net.q)
    }

    /// Raw network output for `board` (cp / scale), side to move's view, unclamped.
    #[inline]
    pub fn raw(&mut self, board: &Board) -> f32 {
        let (w, b) = self.stack.current(&self.net.q);
        let (us, them) = match board.side_to_move() {
            cozy_chess::Color::White => (w, b),
            cozy_chess::Color::Black => (b, w),
        };
        let pieces = board.occupied().len() as usize;
        self.net.q.forward(
            self.path,
            us,
            them,
            features::hmc(board),
            pieces,
            &mut self.scratch,
        )
    }

    /// Evaluation of `board` in centipawns from the side to move's point of view.
    /// `board` must be the position reached by the pushes since the last reset.
    #[inline]
    pub fn evaluate(&mut self, board: &Board) -> i32 {
        let cp = self.raw(board) * self.net.scale;
        (cp.round() as i32).clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }
}

/// Evaluation from White's point of view in centipawns (the `eval` command).
pub fn white_cp(board: &Board) -> i32 {
    let mut e = Evaluator::new();
    e.reset(board);
    e.evaluate(board) * crate::chess::sign(board.side_to_move())
}

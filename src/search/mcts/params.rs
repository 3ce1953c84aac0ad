//! Every tunable constant of the tree search, declared once.

// --- Selection (PUCT) ---

// The exploration constant, first-play urgency and the learnt prior's temperature (and
// the root's own exploration and temperature), the leaf depth and the time management
// are tunable (`MCTS_*` in `search/params.rs`: UCI options in a `--features tune` build,
// constants otherwise).
pub use crate::search::params::{
    MCTS_CPUCT, MCTS_FPU_REDUCTION, MCTS_LEAF_DEPTH, MCTS_PRIOR_TEMPERATURE, MCTS_ROOT_CPUCT_SCALE,
    MCTS_ROOT_PRIOR_TEMPERATURE, MCTS_TM_SCALE_SETTLED, MCTS_TM_SCALE_UNSETTLED,
    MCTS_TM_STOP_DECIDED,
};

/// c grows with the parent's visits: c · (1 + CPUCT_LOG_FACTOR · ln((N + base) / base))
/// (Lc0), so wide nodes keep exploring.
pub const CPUCT_LOG_FACTOR: f64 = 0.5;
pub const CPUCT_LOG_BASE: f64 = 8192.0;

// --- Leaf evaluation ---

/// Captures resolved at a leaf before the value net judges it (a small quiescence
/// search over SEE-safe captures): at most this many plies; 0 turns it off.
pub const LEAF_QSEARCH_PLIES: usize = 4;
/// Playouts never go deeper than this many plies below the root (the accumulator stack
/// must also hold the leaf's quiescence plies).
pub const MAX_PLAYOUT_DEPTH: usize = 100;

// --- Memory ---

/// A full tree is pruned to this share of `Hash`, keeping the children of the most
/// visited nodes, and grows on rather than stop (Monty recycles its tree in halves).
pub const PRUNED_TREE_SHARE: f64 = 0.5;

// --- Prior (hand-written logits, softmaxed) ---

pub const PRIOR_TEMPERATURE: f32 = 1.0;
pub const PRIOR_CHECK: f32 = 1.2;
pub const PRIOR_GOOD_CAPTURE: f32 = 1.0;
/// Added per pawn of the captured piece's value (MVV).
pub const PRIOR_CAPTURE_PER_PAWN: f32 = 0.3;
pub const PRIOR_BAD_CAPTURE: f32 = -0.5;
pub const PRIOR_UNSAFE_QUIET: f32 = -1.0;
pub const PRIOR_QUEEN_PROMOTION: f32 = 2.5;
pub const PRIOR_UNDERPROMOTION: f32 = -2.0;
pub const PRIOR_INTO_PAWN_ATTACK: f32 = -1.5;
pub const PRIOR_ESCAPE_PAWN_ATTACK: f32 = 1.0;
pub const PRIOR_CASTLE: f32 = 0.8;

// --- Reporting and time ---

/// The main thread checks the clock every this many playouts.
pub const TIME_CHECK_INTERVAL: u64 = 16;
/// An `info` line at least this often (ms), besides one whenever the mean depth rises.
pub const REPORT_INTERVAL_MS: u64 = 1000;

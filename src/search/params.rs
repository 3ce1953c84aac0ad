//! Search constants in one place, named for what they do.

/// Reverse futility pruning: a node whose static eval beats beta by this much per
/// remaining ply is assumed to fail high.
pub const RFP_MAX_DEPTH: i32 = 8;
pub const RFP_MARGIN: i32 = 75;

/// Null-move pruning, reduction `base + depth / divisor + min((eval − beta) / eval_divisor,
/// eval_max)`.
pub const NMP_MIN_DEPTH: i32 = 3;
pub const NMP_BASE_REDUCTION: i32 = 3;
pub const NMP_DEPTH_DIVISOR: i32 = 3;
pub const NMP_EVAL_DIVISOR: i32 = 200;
pub const NMP_EVAL_MAX_REDUCTION: i32 = 3;

/// Futility pruning of quiet moves near the leaves.
pub const FP_MAX_DEPTH: i32 = 8;
pub const FP_BASE: i32 = 90;
pub const FP_PER_DEPTH: i32 = 90;

/// Late-move pruning: quiet moves after (LMP_BASE + depth²) / 2 are skipped.
pub const LMP_MAX_DEPTH: i32 = 8;
pub const LMP_BASE: i32 = 3;

/// SEE pruning thresholds (per depth for quiets, per depth² for captures).
pub const SEE_QUIET_MARGIN: i32 = -60;
pub const SEE_CAPTURE_MARGIN: i32 = -25;
pub const SEE_MAX_DEPTH: i32 = 8;

/// Late-move reductions: r = LMR_BASE + ln(depth)·ln(moves) / LMR_DIVISOR (the table),
/// one ply less per LMR_HISTORY_DIVISOR of the move's history.
pub const LMR_BASE: f64 = 1.75;
pub const LMR_DIVISOR: f64 = 2.25;
pub const LMR_HISTORY_DIVISOR: i32 = 8192;

/// Internal iterative reduction: nodes without a TT move at this depth search one ply less.
pub const IIR_MIN_DEPTH: i32 = 4;

/// Singular extensions: at depth ≥ SE_MIN_DEPTH, with a TT entry at most
/// SE_TT_DEPTH_MARGIN plies shallower, the other moves are searched against
/// `tt_score − SE_MARGIN_PER_DEPTH · depth`.
pub const SE_MIN_DEPTH: i32 = 8;
pub const SE_TT_DEPTH_MARGIN: i32 = 3;
pub const SE_MARGIN_PER_DEPTH: i32 = 2;
/// A non-PV TT move whose alternatives all fail this far below the singular beta is
/// extended two plies, at most SE_MAX_DOUBLE_EXTENSIONS times on one line.
pub const SE_DOUBLE_MARGIN: i32 = 25;
pub const SE_MAX_DOUBLE_EXTENSIONS: u8 = 6;

/// Aspiration window half-width at the first try, and how much it grows after a fail.
pub const ASPIRATION_WINDOW: i32 = 25;
pub const ASPIRATION_GROWTH_PERCENT: i32 = 50;

/// Quiescence delta pruning margin.
pub const QS_DELTA: i32 = 200;

/// Static-eval correction history: an update weighs `min(depth + 1, max) / 256`.
pub const CORRECTION_MAX_WEIGHT: i32 = 16;

/// Time management: the base time is `left / moves_to_go + inc · TM_INC_PERCENT %`; the
/// soft limit (no new iteration after it) is TM_SOFT_PERCENT % of it, scaled by
/// STABILITY_SCALE[plies the best move has stayed the same]; the hard limit (the search
/// stops) is TM_HARD_FACTOR × base, at most TM_HARD_CAP_PERCENT % of the clock
/// (TM_LAST_MOVE_CAP_PERCENT % before a time control).
pub const TM_DEFAULT_MOVES_TO_GO: u64 = 25;
pub const TM_MAX_MOVES_TO_GO: u64 = 50;
pub const TM_INC_PERCENT: u64 = 75;
pub const TM_SOFT_PERCENT: u64 = 60;
pub const TM_HARD_FACTOR: u64 = 4;
pub const TM_HARD_CAP_PERCENT: u64 = 40;
pub const TM_LAST_MOVE_CAP_PERCENT: u64 = 80;
pub const STABILITY_SCALE: [f64; 6] = [2.2, 1.6, 1.3, 1.1, 1.0, 0.85];

/// History bonus for a move that caused a cutoff at `depth`.
pub fn history_bonus(depth: i32) -> i32 {
    (depth * depth * 16 + 32 * depth).min(1600)
}

// Defaults of the search settings that UCI options change (`uci/options.rs` declares the
// options with these values).
/// Transposition table size (MB).
pub const DEFAULT_HASH_MB: usize = 16;
/// Milliseconds kept back per move for GUI and network lag.
pub const DEFAULT_MOVE_OVERHEAD_MS: u64 = 30;
/// Principal variations reported.
pub const DEFAULT_MULTIPV: usize = 1;

/// Syzygy probing: the least depth at which positions with as many pieces as the largest
/// table are probed, and the most pieces probed at all (7 = every Syzygy table there is).
pub const DEFAULT_SYZYGY_PROBE_DEPTH: i32 = 1;
pub const DEFAULT_SYZYGY_PROBE_LIMIT: u32 = 7;
/// Wins that the fifty-move rule spoils count as draws (tournament rules).
pub const DEFAULT_SYZYGY_50_MOVE_RULE: bool = true;

//! Search constants in one place, named for what they do.

/// Reverse futility pruning: a node whose static eval beats beta by this much per
/// remaining ply is assumed to fail high.
pub const RFP_MAX_DEPTH: i32 = 8;
pub const RFP_MARGIN: i32 = 75;

/// Null-move pruning.
pub const NMP_MIN_DEPTH: i32 = 3;

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

/// Late-move reductions: r = LMR_BASE + ln(depth)·ln(moves) / LMR_DIVISOR.
pub const LMR_BASE: f64 = 1.75;
pub const LMR_DIVISOR: f64 = 2.25;

/// Internal iterative reduction: nodes without a TT move at this depth search one ply less.
pub const IIR_MIN_DEPTH: i32 = 4;

/// Singular extensions.
pub const SE_MIN_DEPTH: i32 = 8;

/// Aspiration window half-width at the first try.
pub const ASPIRATION_WINDOW: i32 = 25;

/// Quiescence delta pruning margin.
pub const QS_DELTA: i32 = 200;

/// History bonus for a move that caused a cutoff at `depth`.
pub fn history_bonus(depth: i32) -> i32 {
    (depth * depth * 16 + 32 * depth).min(1600)
}

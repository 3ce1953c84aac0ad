//! Search constants in one place, named for what they do and grouped by what they tune.
//! Plain numeric constants, so that a tuning build can expose them one by one.

// --- Pruning ---

/// Reverse futility pruning: deepest node where it applies.
pub const RFP_MAX_DEPTH: i32 = 8;
/// Reverse futility pruning: a node whose eval beats beta by this much per remaining
/// ply is assumed to fail high.
pub const RFP_MARGIN: i32 = 75;

/// Null-move pruning: shallowest node where it applies.
pub const NMP_MIN_DEPTH: i32 = 3;
/// Null-move reduction `base + depth / divisor + min((eval − beta) / eval_divisor,
/// eval_max)`: the constant part.
pub const NMP_BASE_REDUCTION: i32 = 3;
/// Null-move reduction: one more ply per this many plies of depth.
pub const NMP_DEPTH_DIVISOR: i32 = 3;
/// Null-move reduction: one more ply per this many centipawns the eval beats beta by.
pub const NMP_EVAL_DIVISOR: i32 = 200;
/// Null-move reduction: the most plies the eval margin adds.
pub const NMP_EVAL_MAX_REDUCTION: i32 = 3;

/// Futility pruning of quiet moves: deepest node where it applies.
pub const FP_MAX_DEPTH: i32 = 8;
/// Futility pruning: quiets are skipped when eval + base + per_depth · depth ≤ alpha.
pub const FP_BASE: i32 = 90;
/// Futility pruning: margin added per remaining ply.
pub const FP_PER_DEPTH: i32 = 90;

/// Late-move pruning: deepest node where it applies.
pub const LMP_MAX_DEPTH: i32 = 8;
/// Late-move pruning: quiet moves after (LMP_BASE + depth²) / 2 are skipped.
pub const LMP_BASE: i32 = 3;

/// SEE pruning: deepest node where it applies.
pub const SEE_MAX_DEPTH: i32 = 8;
/// SEE pruning: a quiet move losing more than this per ply of depth is skipped.
pub const SEE_QUIET_MARGIN: i32 = -60;
/// SEE pruning: a capture losing more than this per ply of depth² is skipped.
pub const SEE_CAPTURE_MARGIN: i32 = -25;

// --- Reductions ---

/// Late-move reductions: the table holds r = LMR_BASE + ln(depth)·ln(moves) / LMR_DIVISOR.
pub const LMR_BASE: f64 = 1.75;
/// Late-move reductions: divisor of the table's logarithmic term.
pub const LMR_DIVISOR: f64 = 2.25;
/// Late-move reductions: one ply less per this much of the move's history score.
pub const LMR_HISTORY_DIVISOR: i32 = 8192;
/// Late-move reductions: shallowest node where moves are reduced.
pub const LMR_MIN_DEPTH: i32 = 3;
/// Late-move reductions: moves searched unreduced before reductions start (one more
/// at PV nodes).
pub const LMR_UNREDUCED_MOVES: usize = 1;

/// Internal iterative reduction: nodes without a TT move at this depth search one ply less.
pub const IIR_MIN_DEPTH: i32 = 4;

// --- Extensions ---

/// Singular extensions: shallowest node where the TT move is tested for singularity.
pub const SE_MIN_DEPTH: i32 = 8;
/// Singular extensions: the TT entry may be at most this many plies shallower.
pub const SE_TT_DEPTH_MARGIN: i32 = 3;
/// Singular extensions: the other moves are searched against
/// `tt_score − SE_MARGIN_PER_DEPTH · depth`.
pub const SE_MARGIN_PER_DEPTH: i32 = 2;
/// A non-PV TT move whose alternatives all fail this far below the singular beta is
/// extended two plies.
pub const SE_DOUBLE_MARGIN: i32 = 25;
/// Most double extensions on one line from the root.
pub const SE_MAX_DOUBLE_EXTENSIONS: u8 = 6;

// --- Iterative deepening ---

/// Aspiration window half-width at the first try.
pub const ASPIRATION_WINDOW: i32 = 25;
/// How much the aspiration window grows after a fail, in percent of its half-width.
pub const ASPIRATION_GROWTH_PERCENT: i32 = 50;
/// Shallowest iteration searched inside an aspiration window (shallower ones search
/// the full window).
pub const ASPIRATION_MIN_DEPTH: i32 = 4;

// --- Quiescence ---

/// Quiescence delta pruning: a capture is skipped when even winning its victim (and
/// this margin) leaves the score below alpha.
pub const QS_DELTA: i32 = 200;

// --- Move ordering ---

/// Exchange values of pawn, knight, bishop, rook, queen, king (the king effectively
/// infinite), for static exchange evaluation, capture ordering and delta pruning.
pub const SEE_PIECE_VALUES: [i32; 6] = [100, 320, 330, 500, 950, 20_000];
/// Capture ordering (MVV-LVA): the victim's value is multiplied by this…
pub const MVV_VICTIM_FACTOR: i32 = 16;
/// …and the attacker's value, divided by this, is subtracted.
pub const LVA_ATTACKER_DIVISOR: i32 = 16;

// --- History ---

/// History bonus for a move that caused a cutoff at `depth` (and malus for the moves
/// tried before it): `min(depth² · quadratic + linear · depth, max)`.
pub const HISTORY_BONUS_QUADRATIC: i32 = 16;
/// History bonus: the part linear in depth.
pub const HISTORY_BONUS_LINEAR: i32 = 32;
/// History bonus: the largest bonus (and malus).
pub const HISTORY_BONUS_MAX: i32 = 1600;

/// History entries stay within ± this (at most `i16::MAX`: entries are `i16`); bonuses
/// shrink as an entry nears it.
pub const HISTORY_MAX: i32 = 16_384;

/// History bonus for a move that caused a cutoff at `depth`.
pub fn history_bonus(depth: i32) -> i32 {
    (depth * depth * HISTORY_BONUS_QUADRATIC + HISTORY_BONUS_LINEAR * depth).min(HISTORY_BONUS_MAX)
}

/// Static-eval correction history: an update moves an entry toward the measured error
/// by `min(depth + 1, CORRECTION_MAX_WEIGHT) / CORRECTION_WEIGHT_SCALE`.
pub const CORRECTION_MAX_WEIGHT: i32 = 16;
/// Correction history: denominator of an update's weight.
pub const CORRECTION_WEIGHT_SCALE: i32 = 256;
/// Correction history: the largest correction, in centipawns.
pub const CORRECTION_MAX_CP: i32 = 64;

// --- Transposition table ---

/// An entry for the same position from this search is kept over a new non-exact
/// result searched this many plies shallower (or more).
pub const TT_SAME_KEY_DEPTH_MARGIN: i32 = 4;
/// An entry for another position from this search is kept over a new non-exact result
/// searched more than this many plies shallower.
pub const TT_OTHER_KEY_DEPTH_MARGIN: i32 = 2;
/// A tablebase result is stored this many plies deeper than the node's depth (it is
/// exact however deep the search goes).
pub const TT_TABLEBASE_DEPTH_BONUS: i32 = 6;

// --- Time management ---

// The base time is `left / moves_to_go + inc · TM_INC_PERCENT %`; the soft limit (no
// new iteration after it) is TM_SOFT_PERCENT % of it, scaled by STABILITY_SCALE
// [iterations the best move has stayed the same]; the hard limit (the search stops) is
// TM_HARD_FACTOR × base, at most TM_HARD_CAP_PERCENT % of the clock
// (TM_LAST_MOVE_CAP_PERCENT % before a time control).

/// Moves left assumed when `go` gives no `movestogo`.
pub const TM_DEFAULT_MOVES_TO_GO: u64 = 25;
/// The most moves left assumed, whatever `movestogo` says.
pub const TM_MAX_MOVES_TO_GO: u64 = 50;
/// Percentage of the increment added to the base time.
pub const TM_INC_PERCENT: u64 = 75;
/// Soft limit, in percent of the base time.
pub const TM_SOFT_PERCENT: u64 = 60;
/// Hard limit, as a multiple of the base time.
pub const TM_HARD_FACTOR: u64 = 4;
/// Hard limit cap, in percent of the time left.
pub const TM_HARD_CAP_PERCENT: u64 = 40;
/// Hard limit cap before a time control (`movestogo 1`), in percent of the time left.
pub const TM_LAST_MOVE_CAP_PERCENT: u64 = 80;
/// Soft limit scale by how many iterations the best move has stayed the same (the
/// last entry for all longer runs).
pub const STABILITY_SCALE: [f64; 6] = [2.2, 1.6, 1.3, 1.1, 1.0, 0.85];
/// With a single legal move on a clock, the search stops after this iteration.
pub const TM_FORCED_MOVE_DEPTH: i32 = 6;

// Defaults of the search settings that UCI options change (`uci/options.rs` declares the
// options with these values).
/// Transposition table size (MB).
pub const DEFAULT_HASH_MB: usize = 16;
/// Milliseconds kept back per move for GUI and network lag.
pub const DEFAULT_MOVE_OVERHEAD_MS: u64 = 30;
/// Principal variations reported.
pub const DEFAULT_MULTIPV: usize = 1;

/// Syzygy probing: the least depth at which positions with as many pieces as the largest
/// table are probed.
pub const DEFAULT_SYZYGY_PROBE_DEPTH: i32 = 1;
/// Syzygy probing: the most pieces probed at all (7 = every Syzygy table there is).
pub const DEFAULT_SYZYGY_PROBE_LIMIT: u32 = 7;
/// Wins that the fifty-move rule spoils count as draws (tournament rules).
pub const DEFAULT_SYZYGY_50_MOVE_RULE: bool = true;

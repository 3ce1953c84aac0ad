//! Search constants in one place, named for what they do and grouped by what they tune.
//! The tunable ones are declared through [`tunables!`]: each is a function `NAME()`, a
//! constant in the default build and a UCI option in a `--features tune` build
//! (`docs/tuning.md`). Structural constants (tables, option defaults) stay plain.

use super::tunable::tunables;

// --- Move ordering ---

/// Exchange values of pawn, knight, bishop, rook, queen, king (the king effectively
/// infinite), for static exchange evaluation, capture ordering and delta pruning.
pub const SEE_PIECE_VALUES: [i32; 6] = [100, 320, 330, 500, 950, 20_000];

// --- History ---

/// History entries stay within ± this (at most `i16::MAX`: entries are `i16`); bonuses
/// shrink as an entry nears it.
pub const HISTORY_MAX: i32 = 16_384;

/// History bonus for a move that caused a cutoff at `depth`.
pub fn history_bonus(depth: i32) -> i32 {
    (depth * depth * HISTORY_BONUS_QUADRATIC() + HISTORY_BONUS_LINEAR() * depth)
        .min(HISTORY_BONUS_MAX())
}

// --- Transposition table ---

/// A tablebase result is stored this many plies deeper than the node's depth (it is
/// exact however deep the search goes).
pub const TT_TABLEBASE_DEPTH_BONUS: i32 = 6;

// --- Time management ---

/// Soft limit scale by how many iterations the best move has stayed the same (the
/// last entry for all longer runs).
pub const STABILITY_SCALE: [f64; 6] = [2.2, 1.6, 1.3, 1.1, 1.0, 0.85];

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

// Each tunable: `NAME: type = default, min..=max, c_end C, r_end R;` (SPSA's final
// perturbation C and learning rate R, as OpenBench takes them; min, max and C in the
// parameter's unit).
tunables! {
    // --- Pruning ---

    /// Reverse futility pruning: deepest node where it applies.
    RFP_MAX_DEPTH: i32 = 8, 4..=12, c_end 1, r_end 0.002;
    /// Reverse futility pruning: a node whose eval beats beta by this much per remaining
    /// ply is assumed to fail high.
    RFP_MARGIN: i32 = 75, 30..=150, c_end 8, r_end 0.002;

    /// Null-move pruning: shallowest node where it applies.
    NMP_MIN_DEPTH: i32 = 3, 1..=6, c_end 1, r_end 0.002;
    /// Null-move reduction `base + depth / divisor + min((eval − beta) / eval_divisor,
    /// eval_max)`: the constant part.
    NMP_BASE_REDUCTION: i32 = 3, 1..=6, c_end 1, r_end 0.002;
    /// Null-move reduction: one more ply per this many plies of depth.
    NMP_DEPTH_DIVISOR: i32 = 3, 2..=6, c_end 1, r_end 0.002;
    /// Null-move reduction: one more ply per this many centipawns the eval beats beta by.
    NMP_EVAL_DIVISOR: i32 = 200, 80..=400, c_end 20, r_end 0.002;
    /// Null-move reduction: the most plies the eval margin adds.
    NMP_EVAL_MAX_REDUCTION: i32 = 3, 0..=6, c_end 1, r_end 0.002;

    /// Futility pruning of quiet moves: deepest node where it applies.
    FP_MAX_DEPTH: i32 = 8, 4..=12, c_end 1, r_end 0.002;
    /// Futility pruning: quiets are skipped when eval + base + per_depth · depth ≤ alpha.
    FP_BASE: i32 = 90, 20..=200, c_end 10, r_end 0.002;
    /// Futility pruning: margin added per remaining ply.
    FP_PER_DEPTH: i32 = 90, 30..=200, c_end 10, r_end 0.002;

    /// Late-move pruning: deepest node where it applies.
    LMP_MAX_DEPTH: i32 = 8, 4..=12, c_end 1, r_end 0.002;
    /// Late-move pruning: quiet moves after (LMP_BASE + depth²) / 2 are skipped.
    LMP_BASE: i32 = 3, 0..=10, c_end 1, r_end 0.002;

    /// SEE pruning: deepest node where it applies.
    SEE_MAX_DEPTH: i32 = 8, 4..=12, c_end 1, r_end 0.002;
    /// SEE pruning: a quiet move losing more than this per ply of depth is skipped.
    SEE_QUIET_MARGIN: i32 = -60, -150..=-10, c_end 8, r_end 0.002;
    /// SEE pruning: a capture losing more than this per ply of depth² is skipped.
    SEE_CAPTURE_MARGIN: i32 = -25, -80..=-5, c_end 4, r_end 0.002;

    // --- Reductions ---

    /// Late-move reductions: the table holds r = LMR_BASE + ln(depth)·ln(moves) / LMR_DIVISOR.
    LMR_BASE: f64 = 1.75, 0.5..=3.0, c_end 0.1, r_end 0.002;
    /// Late-move reductions: divisor of the table's logarithmic term.
    LMR_DIVISOR: f64 = 2.25, 1.5..=4.0, c_end 0.1, r_end 0.002;
    /// Late-move reductions: one ply less per this much of the move's history score.
    LMR_HISTORY_DIVISOR: i32 = 8192, 2048..=16384, c_end 512, r_end 0.002;
    /// Late-move reductions: shallowest node where moves are reduced.
    LMR_MIN_DEPTH: i32 = 3, 1..=6, c_end 1, r_end 0.002;
    /// Late-move reductions: moves searched unreduced before reductions start (one more
    /// at PV nodes).
    LMR_UNREDUCED_MOVES: usize = 1, 0..=4, c_end 1, r_end 0.002;

    /// Policy move ordering: shallowest node whose quiet moves the move policy helps
    /// order (64: never; issue 57 item 3 measures it).
    POLICY_ORDER_MIN_DEPTH: i32 = 64, 2..=64, c_end 1, r_end 0.002;
    /// Policy move ordering: history points per unit of the policy's logit.
    POLICY_ORDER_SCALE: i32 = 4096, 256..=16384, c_end 256, r_end 0.002;

    /// Internal iterative reduction: nodes without a TT move at this depth search one ply less.
    IIR_MIN_DEPTH: i32 = 4, 2..=8, c_end 1, r_end 0.002;

    // --- Extensions ---

    /// Singular extensions: shallowest node where the TT move is tested for singularity.
    SE_MIN_DEPTH: i32 = 8, 4..=12, c_end 1, r_end 0.002;
    /// Singular extensions: the TT entry may be at most this many plies shallower.
    SE_TT_DEPTH_MARGIN: i32 = 3, 1..=6, c_end 1, r_end 0.002;
    /// Singular extensions: the other moves are searched against
    /// `tt_score − SE_MARGIN_PER_DEPTH · depth`.
    SE_MARGIN_PER_DEPTH: i32 = 2, 1..=6, c_end 1, r_end 0.002;
    /// A non-PV TT move whose alternatives all fail this far below the singular beta is
    /// extended two plies.
    SE_DOUBLE_MARGIN: i32 = 25, 5..=60, c_end 4, r_end 0.002;
    /// Most double extensions on one line from the root.
    SE_MAX_DOUBLE_EXTENSIONS: u8 = 6, 0..=12, c_end 1, r_end 0.002;

    // --- Iterative deepening ---

    /// Aspiration window half-width at the first try.
    ASPIRATION_WINDOW: i32 = 25, 8..=60, c_end 4, r_end 0.002;
    /// How much the aspiration window grows after a fail, in percent of its half-width.
    ASPIRATION_GROWTH_PERCENT: i32 = 50, 20..=200, c_end 10, r_end 0.002;
    /// Shallowest iteration searched inside an aspiration window (shallower ones search
    /// the full window).
    ASPIRATION_MIN_DEPTH: i32 = 4, 1..=8, c_end 1, r_end 0.002;

    // --- Quiescence ---

    /// Quiescence delta pruning: a capture is skipped when even winning its victim (and
    /// this margin) leaves the score below alpha.
    QS_DELTA: i32 = 200, 50..=400, c_end 20, r_end 0.002;

    // --- Move ordering ---

    /// Capture ordering (MVV-LVA): the victim's value is multiplied by this…
    MVV_VICTIM_FACTOR: i32 = 16, 4..=32, c_end 2, r_end 0.002;
    /// …and the attacker's value, divided by this, is subtracted.
    LVA_ATTACKER_DIVISOR: i32 = 16, 4..=64, c_end 4, r_end 0.002;

    // --- History ---

    /// History bonus for a move that caused a cutoff at `depth` (and malus for the moves
    /// tried before it): `min(depth² · quadratic + linear · depth, max)`.
    HISTORY_BONUS_QUADRATIC: i32 = 16, 4..=32, c_end 2, r_end 0.002;
    /// History bonus: the part linear in depth.
    HISTORY_BONUS_LINEAR: i32 = 32, 0..=96, c_end 6, r_end 0.002;
    /// History bonus: the largest bonus (and malus).
    HISTORY_BONUS_MAX: i32 = 1600, 400..=4000, c_end 150, r_end 0.002;

    /// Static-eval correction history: an update moves an entry toward the measured error
    /// by `min(depth + 1, CORRECTION_MAX_WEIGHT) / CORRECTION_WEIGHT_SCALE`.
    CORRECTION_MAX_WEIGHT: i32 = 16, 4..=32, c_end 2, r_end 0.002;
    /// Correction history: denominator of an update's weight.
    CORRECTION_WEIGHT_SCALE: i32 = 256, 128..=1024, c_end 32, r_end 0.002;
    /// Correction history: the largest correction, in centipawns.
    CORRECTION_MAX_CP: i32 = 64, 16..=128, c_end 8, r_end 0.002;

    // --- Transposition table ---

    /// An entry for the same position from this search is kept over a new non-exact
    /// result searched this many plies shallower (or more).
    TT_SAME_KEY_DEPTH_MARGIN: i32 = 4, 1..=8, c_end 1, r_end 0.002;
    /// An entry for another position from this search is kept over a new non-exact result
    /// searched more than this many plies shallower.
    TT_OTHER_KEY_DEPTH_MARGIN: i32 = 2, 0..=6, c_end 1, r_end 0.002;

    // --- Time management ---

    // The base time is `left / moves_to_go + inc · TM_INC_PERCENT %`; the soft limit (no
    // new iteration after it) is TM_SOFT_PERCENT % of it, scaled by STABILITY_SCALE
    // [iterations the best move has stayed the same]; the hard limit (the search stops) is
    // TM_HARD_FACTOR × base, at most TM_HARD_CAP_PERCENT % of the clock
    // (TM_LAST_MOVE_CAP_PERCENT % before a time control).

    /// Moves left assumed when `go` gives no `movestogo`.
    TM_DEFAULT_MOVES_TO_GO: u64 = 25, 10..=50, c_end 2, r_end 0.002;
    /// The most moves left assumed, whatever `movestogo` says.
    TM_MAX_MOVES_TO_GO: u64 = 50, 20..=80, c_end 4, r_end 0.002;
    /// Percentage of the increment added to the base time.
    TM_INC_PERCENT: u64 = 75, 30..=100, c_end 5, r_end 0.002;
    /// Soft limit, in percent of the base time.
    TM_SOFT_PERCENT: u64 = 60, 30..=100, c_end 5, r_end 0.002;
    /// Hard limit, as a multiple of the base time.
    TM_HARD_FACTOR: u64 = 4, 2..=8, c_end 1, r_end 0.002;
    /// Hard limit cap, in percent of the time left.
    TM_HARD_CAP_PERCENT: u64 = 40, 20..=60, c_end 3, r_end 0.002;
    /// Hard limit cap before a time control (`movestogo 1`), in percent of the time left.
    TM_LAST_MOVE_CAP_PERCENT: u64 = 80, 50..=95, c_end 3, r_end 0.002;
    /// With a single legal move on a clock, the search stops after this iteration.
    TM_FORCED_MOVE_DEPTH: i32 = 6, 1..=12, c_end 1, r_end 0.002;

    // --- Tree search (`SearchMode mcts`; its other constants are in `mcts/params.rs`) ---

    /// Exploration constant c in Q + c·P·√N / (1 + n) (fitted by games with the learnt
    /// prior at its temperature below: docs/mcts.md).
    MCTS_CPUCT: f64 = 1.2, 0.5..=4.0, c_end 0.1, r_end 0.002;
    /// First-play urgency: an unvisited child is worth the parent's own value less this ×
    /// √(prior mass of the children already visited) (Lc0's FPU reduction).
    MCTS_FPU_REDUCTION: f64 = 0.3, 0.0..=1.0, c_end 0.05, r_end 0.002;
    /// Softmax temperature of the learnt prior (`PolicyFile`): above 1 flattens the net's
    /// distribution, so that the search looks at more of the moves it ranks low.
    MCTS_PRIOR_TEMPERATURE: f64 = 1.8, 0.5..=3.0, c_end 0.1, r_end 0.002;
    /// The root's own exploration constant, as a multiple of MCTS_CPUCT: the root decides
    /// the move, the nodes below only have to back up a value.
    MCTS_ROOT_CPUCT_SCALE: f64 = 1.0, 0.5..=4.0, c_end 0.1, r_end 0.002;
    /// The root's own prior temperature: its children's priors are the others' raised to
    /// MCTS_PRIOR_TEMPERATURE / this (for the learnt prior: its softmax at this
    /// temperature).
    MCTS_ROOT_PRIOR_TEMPERATURE: f64 = 1.8, 0.5..=6.0, c_end 0.15, r_end 0.002;
    /// Depth of the alpha-beta search that judges a tree search's new leaf: 0 its
    /// quiescence search alone, −1 none (the value net after the tree search's own
    /// capture resolution, `mcts::params::LEAF_QSEARCH_PLIES`).
    MCTS_LEAF_DEPTH: i32 = 0, -1..=8, c_end 1, r_end 0.002;

    // A tree search on the clock scales its soft limit by how settled the root is: by
    // MCTS_TM_SCALE_UNSETTLED when the most-visited move has none of the root's visits,
    // down to MCTS_TM_SCALE_SETTLED when it has them all (linear in its share between), so
    // a clear choice banks time for an unclear one. Both 1.0: the plain soft limit.
    // Fitted by games (docs/mcts.md, "Time management").

    /// Soft-limit scale when the best move's visit share is 0.
    MCTS_TM_SCALE_UNSETTLED: f64 = 3.0, 0.5..=4.0, c_end 0.1, r_end 0.002;
    /// Soft-limit scale when the best move's visit share is 1.
    MCTS_TM_SCALE_SETTLED: f64 = 1.0, 0.2..=1.5, c_end 0.05, r_end 0.002;
    /// 1: a move on the clock also stops once the runner-up could not catch the best
    /// move's visits with every playout left until the scaled soft limit (Lc0's smart
    /// pruning); 0: never.
    MCTS_TM_STOP_DECIDED: i32 = 1, 0..=1, c_end 1, r_end 0.002;
}

//! Shape of the human prior network and the conditioning buckets (mover's rating,
//! opponent's rating, time class), one definition for the trainer and the engine.

/// Inputs: the 782 features of `eval::features` from the mover's perspective (the
/// halfmove-clock entry stays zero: the prior ignores it).
pub const INPUTS: usize = crate::eval::shape::INPUTS;
/// Lowest rating with its own bucket; lower ratings share it.
pub const RATING_MIN: u16 = 600;
/// Width of a rating bucket.
pub const RATING_STEP: u16 = 100;
/// Rating buckets: 600–699, …, 2800 and up (23).
pub const RATING_BUCKETS: usize = 23;
/// The lowest rating of the top bucket: what the prior calls the strongest players.
pub const TOP_RATING: u16 = RATING_MIN + (RATING_BUCKETS as u16 - 1) * RATING_STEP;
/// Time-class buckets: unknown, bullet (ultrabullet included), blitz, rapid, classical
/// and slower.
pub const TIME_BUCKETS: usize = 5;
/// Rating scales a net may be trained on, in the order of their rows in the rating
/// tables: Lichess (first, the one the engine asks about), chess.com, FIDE. Their
/// numbers differ by hundreds of points at the low end, so each has its own rows.
pub const RATING_SCALES: [&str; 3] = ["lichess", "chess.com", "fide"];

/// Index of a rating scale by its name (`data::human`'s `Scale::name`); `None` for a
/// scale the prior has no rows for.
pub fn scale_index(name: &str) -> Option<usize> {
    RATING_SCALES.iter().position(|&s| s == name)
}

/// Bucket of a rating (clamped to the table).
pub fn rating_bucket(rating: u16) -> usize {
    (rating.saturating_sub(RATING_MIN) / RATING_STEP).min(RATING_BUCKETS as u16 - 1) as usize
}

/// Row of the rating tables for a rating on scale `scale` (an index of
/// [`RATING_SCALES`]); Lichess ratings use the first rows.
pub fn rating_row(scale: usize, rating: u16) -> usize {
    scale * RATING_BUCKETS + rating_bucket(rating)
}

/// Bucket of a time class by its name (`data::human`'s `TimeClass::name`, which this
/// layer may not import); `None` for an unknown name.
pub fn time_bucket(class: &str) -> Option<usize> {
    match class {
        "unknown" => Some(0),
        "ultrabullet" | "bullet" => Some(1),
        "blitz" => Some(2),
        "rapid" => Some(3),
        "classical" | "correspondence" | "otb-standard" => Some(4),
        _ => None,
    }
}

/// Widths of the layers, read from a net file (`prior.shape`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PriorShape {
    /// First hidden layer (sparse inputs, ReLU).
    pub h1: usize,
    /// Second hidden layer, where the conditioning embeddings are added (ReLU).
    pub h2: usize,
    /// Position vector dotted with each move's embedding.
    pub d: usize,
    /// Whether each move also has a tactical row (`policy::tactics`); human-prior-v2
    /// does not.
    pub tactics: bool,
    /// Rating scales with rows in the rating tables: 1 (Lichess only, the shipped nets)
    /// or all of [`RATING_SCALES`].
    pub scales: usize,
}

impl PriorShape {
    /// Rows of each rating table (mover's, opponent's).
    pub fn rating_rows(&self) -> usize {
        self.scales * RATING_BUCKETS
    }

    /// Rows of the move embedding table.
    pub fn move_rows(&self) -> usize {
        super::moves::MOVE_ROWS
            + if self.tactics {
                super::tactics::TACTIC_ROWS
            } else {
                0
            }
    }
}

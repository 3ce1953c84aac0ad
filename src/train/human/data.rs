//! The prior's training and validation sets, prepared once from `.rkh` games: for each
//! position the mover's active features, the embedding rows of every legal move, the
//! index of the played one, and the conditioning (mover's and opponent's rating
//! buckets, time bucket), stored flat so that a batch is a few slices. By default only
//! the Lichess rating scale is used; with all scales, chess.com and FIDE games train
//! rows of the rating tables of their own (scales are never pooled), and validation
//! stays Lichess only. Positions with a single legal move teach nothing and are left
//! out.

use std::ops::Deref;
use std::path::{Path, PathBuf};

use cozy_chess::Board;
use indicatif::{ProgressBar, ProgressStyle};

use crate::data::human::{read_file, HumanGame, Scale, Split};
use crate::policy::shape::{rating_row, scale_index, time_bucket};
use crate::train::move_net::{mirror_left_right, MovePositions};

/// The shared positions ([`MovePositions`], which the set derefs to) and each one's
/// conditioning.
#[derive(Default)]
pub struct PolicySet {
    pub positions: MovePositions,
    pub mover_rating: Vec<u16>,
    pub opponent_rating: Vec<u16>,
    pub time: Vec<u8>,
    /// Plies played before the position.
    pub ply: Vec<u16>,
    /// The ratings' scale (`policy::shape::RATING_SCALES` index; 0 Lichess).
    pub scale: Vec<u8>,
}

impl Deref for PolicySet {
    type Target = MovePositions;

    fn deref(&self) -> &MovePositions {
        &self.positions
    }
}

impl PolicySet {
    /// Row of the mover's rating in the rating tables.
    pub fn mover_row(&self, i: usize) -> usize {
        rating_row(self.scale[i] as usize, self.mover_rating[i])
    }

    /// Row of the opponent's rating in the rating tables.
    pub fn opponent_row(&self, i: usize) -> usize {
        rating_row(self.scale[i] as usize, self.opponent_rating[i])
    }

    /// Adds a position; false when it is left out ([`MovePositions::push`]).
    fn push(
        &mut self,
        board: &Board,
        played: cozy_chess::Move,
        meta: (u16, u16, u8, u16, u8),
    ) -> bool {
        if !self.positions.push(board, played) {
            return false;
        }
        self.mover_rating.push(meta.0);
        self.opponent_rating.push(meta.1);
        self.time.push(meta.2);
        self.ply.push(meta.3);
        self.scale.push(meta.4);
        true
    }
}

/// What was read, for the run's log.
#[derive(Default, Debug)]
pub struct PrepareStats {
    pub games: usize,
    /// Games left out for their rating scale (all but Lichess's unless all scales are
    /// asked for; an unknown scale always).
    pub other_scale_games: usize,
    /// Validation games left out: validation holds the Lichess games of the sources
    /// with many players only (no other scale, no single-player archive), so that every
    /// net is measured on the same positions, whatever else it trains on.
    pub left_out_validation_games: usize,
    pub train_games: usize,
    pub validation_games: usize,
    /// Training positions added as mirrors of others (`PrepareOptions::mirror`).
    pub mirrored_positions: usize,
}

/// Reads the `.rkh` files (default: every `data/human/*.rkh`).
pub fn read_games(files: &[PathBuf]) -> Result<Vec<HumanGame>, String> {
    let files = if files.is_empty() {
        default_files()?
    } else {
        files.to_vec()
    };
    let mut games = Vec::new();
    for path in &files {
        games.extend(read_file(path)?);
    }
    Ok(games)
}

fn default_files() -> Result<Vec<PathBuf>, String> {
    crate::files::with_extension(Path::new("data/human"), "rkh").map_err(|e| {
        format!("no .rkh files given, and {e} (run from the repository root or name the files)")
    })
}

/// How [`prepare`] builds the sets.
#[derive(Clone, Debug)]
pub struct PrepareOptions {
    /// Share of training games kept, in (0, 1] (chosen by a hash of the game index, so
    /// the same share gives the same games); validation is always whole.
    pub keep: f64,
    /// Every move also carries its tactical row (for a net with the tactical block).
    pub tactics: bool,
    /// Every game on a scale the prior has rows for, not only Lichess's.
    pub all_scales: bool,
    /// Each training position without castling rights is also learnt in its left–right
    /// mirror ([`mirror_left_right`]); validation is never mirrored.
    pub mirror: bool,
    pub progress: bool,
}

impl Default for PrepareOptions {
    fn default() -> Self {
        PrepareOptions {
            keep: 1.0,
            tactics: true,
            all_scales: false,
            mirror: false,
            progress: false,
        }
    }
}

/// Prepares the train and validation sets from `games`: Lichess games only, or with
/// `all_scales` every game on a scale the prior has rows for. Validation holds the
/// Lichess games of many-player sources only ([`PrepareStats`]).
pub fn prepare(
    games: &[HumanGame],
    options: &PrepareOptions,
) -> (PolicySet, PolicySet, PrepareStats) {
    let mut stats = PrepareStats::default();
    let (mut train, mut validation) = (PolicySet::default(), PolicySet::default());
    train.positions.with_tactics = options.tactics;
    validation.positions.with_tactics = options.tactics;
    let bar = if options.progress {
        ProgressBar::new(games.len() as u64)
    } else {
        ProgressBar::hidden()
    };
    if let Ok(style) = ProgressStyle::with_template("preparing {bar:30} {pos}/{len} games {eta}") {
        bar.set_style(style);
    }
    for (i, game) in games.iter().enumerate() {
        bar.inc(1);
        stats.games += 1;
        let scale = match scale_index(game.scale.name()) {
            Some(s) if game.scale == Scale::Lichess || options.all_scales => s,
            _ => {
                stats.other_scale_games += 1;
                continue;
            }
        };
        let set = match game.split {
            Split::Validation if game.scale != Scale::Lichess || game.source.is_single_player() => {
                stats.left_out_validation_games += 1;
                continue;
            }
            Split::Validation => {
                stats.validation_games += 1;
                &mut validation
            }
            Split::Train => {
                let mixed = (i as u64 ^ 0x5DEE_CE66).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 11;
                if (mixed as f64 / (1u64 << 53) as f64) >= options.keep {
                    continue;
                }
                stats.train_games += 1;
                &mut train
            }
        };
        let mirror = options.mirror && game.split == Split::Train;
        let tb = time_bucket(game.time_control.class.name()).unwrap_or(0) as u8;
        for s in game.samples() {
            let meta = (s.mover_rating, s.opponent_rating, tb, s.ply, scale as u8);
            set.push(&s.board, s.played, meta);
            if let Some((board, played)) = mirror
                .then(|| mirror_left_right(&s.board, s.played))
                .flatten()
            {
                if set.push(&board, played, meta) {
                    stats.mirrored_positions += 1;
                }
            }
        }
    }
    bar.finish_and_clear();
    (train, validation, stats)
}

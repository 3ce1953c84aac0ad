//! The self-play policy's training and validation sets, taken once from `.vf` games:
//! for each sampled position the mover's active features, the embedding rows of every
//! legal move and the index of the move the alpha-beta search played, stored flat so
//! that a batch is a few slices. Games, not positions, are split: a validation game
//! never lends a position to training. Positions with one legal move teach nothing and
//! are left out.

use std::ops::Deref;
use std::path::{Path, PathBuf};

use cozy_chess::Board;

use crate::data::format::{read_games, Game};
use crate::data::visits::{self, VisitPly};
use crate::policy::moves::legal_moves;
use crate::train::move_net::MovePositions;

/// The shared positions ([`MovePositions`], which the set derefs to) and, for visit
/// data, the target distributions.
#[derive(Default)]
pub struct PositionSet {
    pub positions: MovePositions,
    /// Visit data only (else empty): each move slot's target probability, aligned with
    /// `moves` (the normalised visits, mixed with the played move by `--played-weight`).
    pub soft: Vec<f32>,
}

impl Deref for PositionSet {
    type Target = MovePositions;

    fn deref(&self) -> &MovePositions {
        &self.positions
    }
}

impl PositionSet {
    /// An empty set whose positions carry the tactical rows of their moves, and the
    /// threat variants of the board inputs when `threat_inputs`.
    pub fn new(threat_inputs: bool) -> PositionSet {
        let mut set = PositionSet::default();
        set.positions.with_tactics = true;
        set.positions.threat_inputs = threat_inputs;
        set
    }

    /// Whether the targets are visit distributions ([`PositionSet::soft_target`]).
    pub fn has_soft_targets(&self) -> bool {
        !self.soft.is_empty()
    }

    /// Position `i`'s target distribution over its legal moves (visit data only).
    pub fn soft_target(&self, i: usize) -> &[f32] {
        &self.soft[self.move_at[i] as usize..self.move_at[i + 1] as usize]
    }

    /// Adds `board` with the root's visits: the target is the visit distribution, mixed
    /// with `played_weight` of the move played. False when it is left out (one legal
    /// move, or visits that do not name legal moves).
    fn push_visits(&mut self, board: &Board, ply: &VisitPly, played_weight: f32) -> bool {
        let legal = legal_moves(board);
        let total = ply.total_visits() as f32;
        let best = ply.most_visited();
        let Some(target) = legal.iter().position(|&m| Some(m) == best) else {
            return false;
        };
        if legal.len() < 2 || target > u8::MAX as usize || total <= 0.0 {
            return false;
        }
        let mut soft = vec![0f32; legal.len()];
        for &(mv, n) in &ply.visits {
            let Some(k) = legal.iter().position(|&m| m == mv) else {
                return false;
            };
            soft[k] += (1.0 - played_weight) * n as f32 / total;
        }
        let Some(played) = legal.iter().position(|&m| m == ply.played) else {
            return false;
        };
        soft[played] += played_weight;
        if !self.positions.push(board, legal[target]) {
            return false;
        }
        self.soft.extend_from_slice(&soft);
        true
    }
}

/// How the games are turned into sets.
#[derive(Clone, Copy, Debug)]
pub struct Sampling {
    /// Share of a game's positions taken (0, 1]: neighbouring positions are alike, so
    /// fewer positions from more games teach more per position.
    pub positions: f64,
    /// Share of games held out for validation.
    pub validation_games: f64,
    /// Stop taking training positions after this many (0: no cap).
    pub max_train: usize,
    /// Mixed into the hashes that choose positions and games.
    pub seed: u64,
    /// Board inputs with threat variants (for a net that reads them).
    pub threat_inputs: bool,
}

/// What was read, for the run's log.
#[derive(Default, Debug)]
pub struct PrepareStats {
    pub files: usize,
    pub games: usize,
    pub train_games: usize,
    pub validation_games: usize,
    /// Games after the training cap was reached (unused, not validated either).
    pub unused_games: usize,
}

/// A uniform number in [0, 1) from a key: which game and position are taken depends on
/// the seed and their numbers only, never on the order of reading.
fn unit_hash(seed: u64, a: u64, b: u64) -> f64 {
    let mut x =
        seed ^ a.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ b.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    x ^= x >> 33;
    x = x.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    x ^= x >> 33;
    x = x.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    x ^= x >> 33;
    (x >> 11) as f64 / (1u64 << 53) as f64
}

/// Whether game `game` (counted over all files in order) is a validation game.
pub fn is_validation(sampling: &Sampling, game: u64) -> bool {
    unit_hash(sampling.seed, game, u64::MAX) < sampling.validation_games
}

/// The default inputs: the newest generation's games under `data/` (its strongest
/// search's moves).
pub fn default_files() -> Result<Vec<PathBuf>, String> {
    let mut newest: Option<(u32, PathBuf)> = None;
    let entries = std::fs::read_dir("data")
        .map_err(|e| format!("no .vf files given, and cannot list 'data' ({e}); run from the repository root or name the files"))?;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if let Some(g) = name.strip_prefix("gen").and_then(|g| g.parse::<u32>().ok()) {
            if newest.as_ref().is_none_or(|(n, _)| g > *n) {
                newest = Some((g, entry.path()));
            }
        }
    }
    let (_, dir) = newest.ok_or("no data/gen<N>/ folder; name the .vf files")?;
    crate::files::with_extension(&dir, "vf")
}

fn read_file(path: &Path) -> Result<Vec<Game>, String> {
    let bytes =
        std::fs::read(path).map_err(|e| format!("cannot read '{}': {e}", path.display()))?;
    match read_games(&bytes) {
        (games, None) => Ok(games),
        (_, Some(e)) => Err(format!("'{}' {e}", path.display())),
    }
}

/// The validation positions of [`prepare`] as boards with the move played (the same
/// games, positions and filter), for measuring priors that need the board.
pub fn validation_boards(
    files: &[PathBuf],
    sampling: &Sampling,
) -> Result<Vec<(Board, cozy_chess::Move)>, String> {
    let mut out = Vec::new();
    let mut number = 0u64;
    for path in files {
        for game in read_file(path)? {
            let held_out = is_validation(sampling, number);
            let mut board = game.start.clone();
            for (ply, &(mv, _score)) in game.moves.iter().enumerate() {
                let sampled = unit_hash(sampling.seed, number, ply as u64) < sampling.positions;
                if held_out && sampled && legal_moves(&board).len() >= 2 {
                    out.push((board.clone(), mv));
                }
                board.play_unchecked(mv);
            }
            number += 1;
        }
    }
    Ok(out)
}

/// The set game `number` goes to: validation when it is held out, else train until that
/// holds `max_train` positions, none after; counted in `stats`.
fn set_for_game<'s>(
    sampling: &Sampling,
    number: u64,
    train: &'s mut PositionSet,
    validation: &'s mut PositionSet,
    stats: &mut PrepareStats,
) -> Option<&'s mut PositionSet> {
    if is_validation(sampling, number) {
        stats.validation_games += 1;
        Some(validation)
    } else if sampling.max_train > 0 && train.len() >= sampling.max_train {
        stats.unused_games += 1;
        None
    } else {
        stats.train_games += 1;
        Some(train)
    }
}

/// Reads `files` and samples the train and validation sets.
pub fn prepare(
    files: &[PathBuf],
    sampling: &Sampling,
) -> Result<(PositionSet, PositionSet, PrepareStats), String> {
    let mut stats = PrepareStats::default();
    let (mut train, mut validation) = (
        PositionSet::new(sampling.threat_inputs),
        PositionSet::new(sampling.threat_inputs),
    );
    let mut game_number = 0u64;
    for path in files {
        stats.files += 1;
        for game in read_file(path)? {
            let number = game_number;
            game_number += 1;
            stats.games += 1;
            let Some(set) = set_for_game(sampling, number, &mut train, &mut validation, &mut stats)
            else {
                continue;
            };
            let mut board = game.start.clone();
            for (ply, &(mv, _score)) in game.moves.iter().enumerate() {
                if unit_hash(sampling.seed, number, ply as u64) < sampling.positions {
                    set.positions.push(&board, mv);
                }
                board.play_unchecked(mv);
            }
        }
    }
    Ok((train, validation, stats))
}

/// Reads `.mcv` visit files and samples the train and validation sets (split by game
/// as [`prepare`] does; game numbers count over all files in order). Targets: the
/// visit distributions mixed with `played_weight` of the move played; `target` is
/// the most visited move.
pub fn prepare_visits(
    files: &[PathBuf],
    sampling: &Sampling,
    played_weight: f32,
) -> Result<(PositionSet, PositionSet, PrepareStats), String> {
    let mut stats = PrepareStats::default();
    let (mut train, mut validation) = (
        PositionSet::new(sampling.threat_inputs),
        PositionSet::new(sampling.threat_inputs),
    );
    let mut game_number = 0u64;
    for path in files {
        stats.files += 1;
        for game in visits::read_file(path)? {
            let number = game_number;
            game_number += 1;
            stats.games += 1;
            let Some(set) = set_for_game(sampling, number, &mut train, &mut validation, &mut stats)
            else {
                continue;
            };
            for (ply, (board, record)) in game.positions().enumerate() {
                if unit_hash(sampling.seed, number, ply as u64) < sampling.positions {
                    set.push_visits(&board, record, played_weight);
                }
            }
        }
    }
    Ok((train, validation, stats))
}

//! `rookery datagen --mode mcts`: self-play with the MCTS search, whose root visit
//! distributions are written in the `.mcv` format ([`super::visits`]) as the next
//! policy's training targets (AlphaZero's loop; `rookery train-policy --visits`).
//!
//! Each move is a search of `--playouts` new playouts (the subtree of the move played
//! before is kept, so the root may hold more visits than that), one thread per game,
//! with Dirichlet noise on the root's priors ([`crate::search::mcts::noise`]). For the
//! first `--temperature-plies` plies the move is sampled in proportion to its visits,
//! after that it is the search's choice (the most visited, a proven mate overriding).
//! The opening, the end-of-game rules and the adjudication are alpha-beta datagen's
//! ([`super::datagen`]); so are the seeding (game `k` depends only on the seed and
//! `k`, so any thread count writes the same bytes), the appending with a cut-off of a
//! half-written game, and SIGINT/SIGTERM finishing the games in progress.

use std::io::{Seek, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use cozy_chess::Move;
use rand::rngs::StdRng;
use rand::Rng;

use super::datagen::{game_rng, opening, rules_result, Adjudication, DatagenArgs, Tally};
use super::game_runner;
use super::visits::{self, VisitGame, VisitPly};
use crate::chess::{legal_moves, sign};
use crate::policy::PolicyNet;
use crate::search::mcts::noise::{RootNoise, DIRICHLET_ALPHA, DIRICHLET_EPSILON};
use crate::search::{SearchLimits, SearchMode, SearchOptions, Searcher, Silent};

/// Which searcher plays the games.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DatagenMode {
    /// The alpha-beta search at `--nodes`: `.vf` games (the default).
    #[default]
    Alphabeta,
    /// The MCTS search at `--playouts`: `.mcv` games with the root's visit counts.
    Mcts,
}

/// The MCTS mode's settings (ignored by the alpha-beta mode).
#[derive(clap::Args, Debug, Clone)]
pub struct MctsSelfPlayArgs {
    /// MCTS: new playouts per move.
    #[arg(long, default_value_t = 400)]
    pub playouts: u64,
    /// MCTS: plies (from the game's start) whose move is sampled in proportion to the
    /// visits; later moves are the most visited.
    #[arg(long, default_value_t = 30)]
    pub temperature_plies: usize,
    /// MCTS: the prior's policy net (`.safetensors` from `rookery train-policy`), or
    /// `hand` for the hand-written prior; without it the embedded net.
    #[arg(long)]
    pub policy: Option<PathBuf>,
    /// MCTS: Dirichlet α of the root noise.
    #[arg(long, default_value_t = DIRICHLET_ALPHA)]
    pub dirichlet_alpha: f64,
    /// MCTS: share ε of the noise in the root's priors (0 turns the noise off).
    #[arg(long, default_value_t = DIRICHLET_EPSILON)]
    pub dirichlet_epsilon: f64,
}

impl Default for MctsSelfPlayArgs {
    fn default() -> Self {
        MctsSelfPlayArgs {
            playouts: 400,
            temperature_plies: 30,
            policy: None,
            dirichlet_alpha: DIRICHLET_ALPHA,
            dirichlet_epsilon: DIRICHLET_EPSILON,
        }
    }
}

impl MctsSelfPlayArgs {
    fn check(&self) -> Result<(), String> {
        if self.playouts == 0 {
            return Err("--playouts must be positive".into());
        }
        if self.dirichlet_alpha.is_nan() || self.dirichlet_alpha <= 0.0 {
            return Err(format!(
                "--dirichlet-alpha must be positive, got {}",
                self.dirichlet_alpha
            ));
        }
        if !(0.0..=1.0).contains(&self.dirichlet_epsilon) {
            return Err(format!(
                "--dirichlet-epsilon must be in [0, 1], got {}",
                self.dirichlet_epsilon
            ));
        }
        Ok(())
    }
}

/// A game and what its searches cost.
pub struct PlayedGame {
    pub game: VisitGame,
    pub playouts: u64,
}

/// A searcher in MCTS mode with the chosen prior (one search thread).
pub fn mcts_searcher(
    args: &DatagenArgs,
    policy: Option<&Arc<PolicyNet>>,
) -> Result<Searcher, String> {
    let mut searcher = Searcher::new(args.hash.max(1), 1);
    searcher.set_mcts_policy(policy.cloned());
    searcher.set_mode(SearchMode::Mcts)?;
    Ok(searcher)
}

/// Picks a move in proportion to its visits.
fn sample_by_visits(visits: &[(Move, u32)], rng: &mut StdRng) -> Option<Move> {
    let total: u64 = visits.iter().map(|&(_, n)| n as u64).sum();
    if total == 0 {
        return None;
    }
    let mut pick = rng.gen_range(0..total);
    for &(mv, n) in visits {
        if pick < n as u64 {
            return Some(mv);
        }
        pick -= n as u64;
    }
    None
}

/// Plays game `index` of the run with `searcher` (in MCTS mode).
pub fn play_game(args: &DatagenArgs, searcher: &mut Searcher, index: u64) -> PlayedGame {
    let settings = &args.mcts;
    let mut rng = game_rng(args.seed, index);
    let mut pos = opening(args, searcher, &mut rng);
    searcher.clear();
    let noise = (settings.dirichlet_epsilon > 0.0).then(|| {
        RootNoise::with(
            settings.dirichlet_alpha,
            settings.dirichlet_epsilon,
            rng.gen(),
        )
    });
    if let Some(tree) = searcher.mcts_mut() {
        tree.set_root_noise(noise);
    }
    let limits = SearchLimits {
        nodes: Some(settings.playouts),
        ..Default::default()
    };
    let start = pos.board.clone();
    let mut plies = Vec::new();
    let mut adjudication = Adjudication::default();
    let mut playouts = 0;
    let wdl = loop {
        if let Some(wdl) = rules_result(&pos, plies.len(), args.max_plies) {
            break wdl;
        }
        let found = searcher.search(&pos, &limits, &SearchOptions::default(), &Silent);
        playouts += found.nodes;
        let tree = searcher.mcts().expect("the searcher is in MCTS mode");
        let mut visits: Vec<(Move, u32)> = tree
            .root_child_visits()
            .into_iter()
            .filter(|&(_, n)| n > 0)
            .collect();
        let root_value = tree.root_value().unwrap_or(0.5) as f32;
        let best = found
            .best_move
            .unwrap_or_else(|| legal_moves(&pos.board)[0]);
        if visits.is_empty() {
            // A search that ran no playout (none happens with `go nodes` ≥ 1, but the
            // game record needs the ply): the move played stands as the only visit.
            visits.push((best, 1));
        }
        let sampled = plies.len() < settings.temperature_plies;
        let mv = if sampled {
            sample_by_visits(&visits, &mut rng).unwrap_or(best)
        } else {
            best
        };
        let white = found.score * sign(pos.board.side_to_move());
        plies.push(VisitPly {
            played: mv,
            root_value,
            sampled,
            visits,
        });
        pos.play(mv);
        if let Some(wdl) = adjudication.after_move(args, plies.len(), white) {
            break wdl;
        }
    };
    PlayedGame {
        game: VisitGame { start, wdl, plies },
        playouts,
    }
}

/// Opens `path` for appending: a new file gets the header, an `.mcv` file is cut after
/// its last whole game. Returns the file, its length and the games already in it.
fn open_output(path: &std::path::Path) -> Result<(std::fs::File, u64, u64), String> {
    let existing = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let header = visits::header();
    let header_prefix = existing.len() < header.len() && header.starts_with(&existing);
    if !header_prefix {
        visits::check_header(&existing)
            .map_err(|e| format!("{}: {e}; not appending to it", path.display()))?;
    }
    let whole = visits::whole_games_len(&existing);
    let games = if whole > 0 {
        visits::read_games(&existing[..whole])
            .map(|(games, _)| games.len() as u64)
            .unwrap_or(0)
    } else {
        0
    };
    if whole > 0 && whole < existing.len() {
        eprintln!(
            "{}: cutting off {} bytes of an unfinished game at byte {whole}",
            path.display(),
            existing.len() - whole
        );
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(false)
        .open(path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    let io = |e: std::io::Error| format!("{}: {e}", path.display());
    file.set_len(whole as u64).map_err(io)?;
    let mut written = file.seek(std::io::SeekFrom::End(0)).map_err(io)?;
    if whole == 0 {
        file.write_all(&header).map_err(io)?;
        written = header.len() as u64;
    }
    Ok((file, written, games))
}

/// Runs MCTS self-play; returns the tally of the games this run played (`nodes` =
/// playouts, `positions` = positions written).
pub fn run(args: &DatagenArgs) -> Result<Tally, String> {
    args.mcts.check()?;
    let policy = match &args.mcts.policy {
        Some(path) if path.as_os_str() == "hand" => None,
        Some(path) => Some(Arc::new(PolicyNet::load(path)?)),
        None => Some(crate::policy::default_policy()),
    };
    if let Some(net) = &args.net {
        let description = crate::eval::load_eval_file(&net.to_string_lossy())?;
        if !args.quiet {
            eprintln!("net: {description}");
        }
    }
    // Fail before any game on a tree that cannot be had.
    mcts_searcher(args, policy.as_ref())?;
    let path = &args.out;
    let (file, written, games_before) = open_output(path)?;
    let mut file = std::io::BufWriter::new(file);
    file.flush()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let first_index = args.first_game + games_before;
    let started = Instant::now();
    let Some(run) = game_runner::Run::for_args(args, file, written, first_index, started) else {
        return Ok(Tally::default());
    };
    let tally = game_runner::play(&MctsGames { args, policy }, run)?;
    let secs = started.elapsed().as_secs_f64().max(1e-9);
    println!(
        "datagen mcts: {} games, {} positions ({:.1} positions/s, {:.2} games/s; {:.0} \
         playouts/move, {:.0} playouts/s) W/D/L {}/{}/{} -> {}",
        tally.games,
        tally.positions,
        tally.positions as f64 / secs,
        tally.games as f64 / secs,
        tally.nodes as f64 / tally.moves.max(1) as f64,
        tally.nodes as f64 / secs,
        tally.white_wins,
        tally.draws,
        tally.black_wins,
        path.display()
    );
    Ok(tally)
}

/// MCTS self-play games, written in the `.mcv` format.
struct MctsGames<'a> {
    args: &'a DatagenArgs,
    policy: Option<Arc<PolicyNet>>,
}

impl game_runner::GameKind for MctsGames<'_> {
    type Player = Searcher;
    type Game = PlayedGame;

    fn player(&self) -> Option<Searcher> {
        mcts_searcher(self.args, self.policy.as_ref()).ok()
    }

    fn play(&self, searcher: &mut Searcher, index: u64) -> PlayedGame {
        play_game(self.args, searcher, index)
    }

    fn write(&self, buf: &mut Vec<u8>, played: &PlayedGame) -> Result<(), String> {
        visits::write_game(buf, &played.game)
    }

    fn count(&self, tally: &mut Tally, played: &PlayedGame) {
        let game = &played.game;
        tally.games += 1;
        tally.positions += game.plies.len() as u64;
        tally.moves += game.plies.len() as u64;
        tally.nodes += played.playouts;
        match game.wdl {
            2 => tally.white_wins += 1,
            0 => tally.black_wins += 1,
            _ => tally.draws += 1,
        }
    }

    fn progress(&self, tally: &Tally, secs: f64) -> String {
        format!(
            "{} positions ({:.1}/s, {:.0} playouts/s)  W/D/L {}/{}/{}",
            tally.positions,
            tally.positions as f64 / secs,
            tally.nodes as f64 / secs,
            tally.white_wins,
            tally.draws,
            tally.black_wins
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn sampling_follows_the_visits() {
        let moves = legal_moves(&cozy_chess::Board::default());
        let visits = vec![(moves[0], 90), (moves[1], 10), (moves[2], 0)];
        let mut rng = StdRng::seed_from_u64(1);
        let mut first = 0;
        for _ in 0..2000 {
            let mv = sample_by_visits(&visits, &mut rng).unwrap();
            assert_ne!(mv, moves[2], "a move without visits is never sampled");
            first += (mv == moves[0]) as u32;
        }
        assert!((1700..1900).contains(&first), "{first} of 2000");
        assert_eq!(sample_by_visits(&[], &mut rng), None);
    }
}

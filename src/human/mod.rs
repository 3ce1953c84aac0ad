//! `rookery human`: what a player of a given rating would play. The human model
//! ([`model`]) combines the prior net (`policy::network`, the position alone) with
//! Rookery's search of every legal move at several depths ([`scores`], [`features`])
//! through the combiner net ([`combiner`]); the human levels ([`levels`]) play from it.
//!
//! One position: the legal moves with the model's probabilities for the asked rating
//! and, side by side, for a few other ratings, and the prior's alone. Batch
//! (`--predict`), for measurement scripts: each input line `<elo>\t<opponent elo>\t<FEN>`
//! gives one output line `<uci move with the highest probability>\t<its probability>`,
//! in order (`--prior-only`: the prior's). `--label FILE` writes the combiner's
//! training set ([`label`]). The nets are the embedded ones unless `--net`/`--combiner`
//! name others.

pub mod combiner;
pub mod features;
pub mod guard;
pub mod label;
pub mod levels;
pub mod model;
pub mod scores;

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use cozy_chess::{Board, Move};

use crate::chess::{move_to_uci, parse_fen, Position};
use crate::policy::shape::time_bucket;
use crate::policy::{default_prior, PriorNet, PriorQuery};
use crate::search::Searcher;
use combiner::Combiner;
use model::{default_combiner, HumanModel};
use scores::score_moves;

#[derive(clap::Args, Debug)]
pub struct HumanArgs {
    /// The mover's rating (Lichess scale).
    #[arg(long)]
    pub elo: Option<u16>,
    /// The opponent's rating (default: the mover's).
    #[arg(long)]
    pub opponent_elo: Option<u16>,
    /// Position (default: the start position).
    #[arg(long)]
    pub fen: Option<String>,
    /// Time class: bullet, blitz, rapid, classical or unknown.
    #[arg(long, default_value = "blitz")]
    pub time_class: String,
    /// Prior net (safetensors) instead of the embedded one.
    #[arg(long)]
    pub net: Option<PathBuf>,
    /// Combiner net (safetensors) instead of the embedded one.
    #[arg(long)]
    pub combiner: Option<PathBuf>,
    /// The prior's probabilities alone (no search).
    #[arg(long)]
    pub prior_only: bool,
    /// Moves listed (most likely first).
    #[arg(long, default_value_t = 10)]
    pub top: usize,
    /// Ratings shown side by side.
    #[arg(long, value_delimiter = ',', default_value = "1100,1500,1900,2300")]
    pub compare: Vec<u16>,
    /// Batch mode: read `<elo>\t<opponent elo>\t<FEN>` lines from FILE (`-`: stdin),
    /// print `<uci move>\t<probability>` per line.
    #[arg(long)]
    pub predict: Option<PathBuf>,
    /// Label mode: read `rookery human-data samples` lines from FILE (`-`: stdin) and
    /// print each with every legal move's search scores (the combiner's training set).
    #[arg(long)]
    pub label: Option<PathBuf>,
    /// Search threads of `--label` (one position per thread).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
}

/// The subcommand.
pub fn run(args: &HumanArgs) -> Result<(), String> {
    let tb = time_bucket(&args.time_class).ok_or_else(|| {
        format!(
            "unknown time class '{}' (bullet, blitz, rapid, classical, unknown)",
            args.time_class
        )
    })?;
    if let Some(file) = &args.label {
        return label::label_file(file, args.threads);
    }
    let (loaded_prior, loaded_combiner);
    let prior = match &args.net {
        Some(path) => {
            loaded_prior = PriorNet::load(path)?;
            &loaded_prior
        }
        None => default_prior(),
    };
    let combiner = match &args.combiner {
        Some(path) => {
            loaded_combiner = Combiner::load(path)?;
            &loaded_combiner
        }
        None => default_combiner(),
    };
    let model = HumanModel { prior, combiner };
    match &args.predict {
        Some(file) => predict_file(&model, args.prior_only, file, tb),
        None => {
            let elo = args.elo.ok_or("--elo R is required (or --predict FILE)")?;
            let board = parse_fen(args.fen.as_deref().unwrap_or(crate::chess::STARTPOS_FEN))?;
            print!("{}", table(&model, &board, elo, args, tb));
            Ok(())
        }
    }
}

/// Table size of the searcher of `rookery human` (MB).
const HUMAN_HASH_MB: usize = 16;

fn query(elo: u16, opponent: u16, time_bucket: usize) -> PriorQuery {
    PriorQuery {
        mover_rating: elo,
        opponent_rating: opponent,
        time_bucket,
    }
}

/// The probabilities table of one position: the model's for each rating, then the
/// prior's alone for the asked one (`--prior-only`: the prior's for each rating).
pub fn table(model: &HumanModel, board: &Board, elo: u16, args: &HumanArgs, tb: usize) -> String {
    let opponent = |r: u16| args.opponent_elo.unwrap_or(r);
    let ratings: Vec<u16> = std::iter::once(elo)
        .chain(args.compare.iter().copied())
        .collect();
    let scores = if args.prior_only {
        None
    } else {
        let mut searcher = Searcher::new(HUMAN_HASH_MB, 1);
        Some(score_moves(
            &mut searcher,
            &Position::new(board.clone()),
            &features::DEPTHS,
        ))
    };
    let columns: Vec<Vec<(Move, f32)>> = ratings
        .iter()
        .map(|&r| {
            let q = query(r, opponent(r), tb);
            match &scores {
                None => model.prior.probabilities(board, &q),
                Some(s) => model
                    .predict_from_scores(board, &q, s.clone())
                    .map(|p| p.moves.into_iter().zip(p.probabilities).collect())
                    .unwrap_or_default(),
            }
        })
        .collect();
    let mine = &columns[0];
    if mine.is_empty() {
        return "no legal moves: the game is over\n".into();
    }
    let prior_mine = model
        .prior
        .probabilities(board, &query(elo, opponent(elo), tb));
    let mut order: Vec<usize> = (0..mine.len()).collect();
    order.sort_by(|&a, &b| mine[b].1.total_cmp(&mine[a].1));
    let what = if scores.is_some() { "model" } else { "prior" };
    let mut out = format!("{what}: probability that a player of each rating plays the move\n");
    out.push_str(&format!("{:<8}", "move"));
    for r in &ratings {
        out.push_str(&format!("{r:>8}"));
    }
    if scores.is_some() {
        out.push_str(&format!("{:>12}", format!("prior {elo}")));
    }
    out.push('\n');
    for &i in order.iter().take(args.top.max(1)) {
        out.push_str(&format!("{:<8}", move_to_uci(board, mine[i].0, false)));
        for c in &columns {
            out.push_str(&format!("{:>7.1}%", 100.0 * c[i].1));
        }
        if scores.is_some() {
            out.push_str(&format!("{:>11.1}%", 100.0 * prior_mine[i].1));
        }
        out.push('\n');
    }
    out
}

fn parse_line(line: &str) -> Result<(u16, u16, Board), String> {
    let fields: Vec<&str> = line.split('\t').collect();
    let [elo, opponent, fen] = fields[..] else {
        return Err(format!(
            "expected <elo>\\t<opponent elo>\\t<FEN>, got {} tab-separated fields",
            fields.len()
        ));
    };
    let num = |s: &str, what: &str| {
        s.trim()
            .parse::<u16>()
            .map_err(|_| format!("bad {what} '{s}'"))
    };
    Ok((
        num(elo, "elo")?,
        num(opponent, "opponent elo")?,
        parse_fen(fen.trim())?,
    ))
}

/// Batch mode: one output line per input line, in order; a malformed line stops with
/// an error naming it. A finished game gives `0000\t0`.
fn predict_file(
    model: &HumanModel,
    prior_only: bool,
    file: &Path,
    tb: usize,
) -> Result<(), String> {
    let mut searcher = Searcher::new(HUMAN_HASH_MB, 1);
    let reader: Box<dyn BufRead> = if file.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        let f = std::fs::File::open(file).map_err(|e| format!("{}: {e}", file.display()))?;
        Box::new(std::io::BufReader::new(f))
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let (started, mut n) = (Instant::now(), 0usize);
    for (i, line) in reader.lines().enumerate() {
        let line = line.map_err(|e| format!("{}: {e}", file.display()))?;
        if line.trim().is_empty() {
            continue;
        }
        let (elo, opponent, board) =
            parse_line(&line).map_err(|e| format!("{} line {}: {e}", file.display(), i + 1))?;
        let q = query(elo, opponent, tb);
        let probs: Vec<(Move, f32)> = if prior_only {
            model.prior.probabilities(&board, &q)
        } else {
            model
                .predict(&mut searcher, &Position::new(board.clone()), &q, None)
                .map(|p| p.moves.into_iter().zip(p.probabilities).collect())
                .unwrap_or_default()
        };
        let best = probs.iter().max_by(|a, b| a.1.total_cmp(&b.1));
        let text = match best {
            Some(&(mv, p)) => format!("{}\t{p:.6}", move_to_uci(&board, mv, false)),
            None => "0000\t0".to_string(),
        };
        writeln!(out, "{text}").map_err(|e| e.to_string())?;
        n += 1;
    }
    out.flush().map_err(|e| e.to_string())?;
    eprintln!(
        "{n} positions, {:.1} µs per position (parse, move generation, {}; one thread)",
        1e6 * started.elapsed().as_secs_f64() / n.max(1) as f64,
        if prior_only {
            "the prior's forward pass"
        } else {
            "the search of every move and both nets"
        }
    );
    Ok(())
}

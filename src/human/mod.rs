//! `rookery human`: what a player of a given rating would play, from the human prior
//! (`policy::network`). One position: the legal moves with their probabilities for
//! the asked rating and, side by side, for a few other ratings. Batch (`--predict`),
//! for measurement scripts: each input line `<elo>\t<opponent elo>\t<FEN>` gives one
//! output line `<uci move with the highest probability>\t<its probability>`, in order.
//! The net is the embedded default prior unless `--net FILE` names another.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use cozy_chess::{Board, Move};

use crate::chess::{move_to_uci, parse_fen};
use crate::policy::shape::time_bucket;
use crate::policy::{default_prior, PriorNet, PriorQuery};

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
}

/// The subcommand.
pub fn run(args: &HumanArgs) -> Result<(), String> {
    let tb = time_bucket(&args.time_class).ok_or_else(|| {
        format!(
            "unknown time class '{}' (bullet, blitz, rapid, classical, unknown)",
            args.time_class
        )
    })?;
    let loaded;
    let net = match &args.net {
        Some(path) => {
            loaded = PriorNet::load(path)?;
            &loaded
        }
        None => default_prior(),
    };
    match &args.predict {
        Some(file) => predict_file(net, file, tb),
        None => {
            let elo = args.elo.ok_or("--elo R is required (or --predict FILE)")?;
            let board = parse_fen(args.fen.as_deref().unwrap_or(crate::chess::STARTPOS_FEN))?;
            print!("{}", table(net, &board, elo, args, tb));
            Ok(())
        }
    }
}

fn query(elo: u16, opponent: u16, time_bucket: usize) -> PriorQuery {
    PriorQuery {
        mover_rating: elo,
        opponent_rating: opponent,
        time_bucket,
    }
}

/// The probabilities table of one position.
pub fn table(net: &PriorNet, board: &Board, elo: u16, args: &HumanArgs, tb: usize) -> String {
    let opponent = args.opponent_elo.unwrap_or(elo);
    let mine = net.probabilities(board, &query(elo, opponent, tb));
    if mine.is_empty() {
        return "no legal moves: the game is over\n".into();
    }
    let others: Vec<Vec<(Move, f32)>> = args
        .compare
        .iter()
        .map(|&r| net.probabilities(board, &query(r, args.opponent_elo.unwrap_or(r), tb)))
        .collect();
    let mut order: Vec<usize> = (0..mine.len()).collect();
    order.sort_by(|&a, &b| mine[b].1.total_cmp(&mine[a].1));
    let mut out = format!("{:<8}{:>8}", "move", elo);
    for r in &args.compare {
        out.push_str(&format!("{r:>8}"));
    }
    out.push('\n');
    for &i in order.iter().take(args.top.max(1)) {
        out.push_str(&format!(
            "{:<8}{:>7.1}%",
            move_to_uci(board, mine[i].0, false),
            100.0 * mine[i].1
        ));
        for o in &others {
            out.push_str(&format!("{:>7.1}%", 100.0 * o[i].1));
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
fn predict_file(net: &PriorNet, file: &Path, tb: usize) -> Result<(), String> {
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
        let probs = net.probabilities(&board, &query(elo, opponent, tb));
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
        "{n} positions, {:.1} µs per position (parse, move generation, forward pass; one thread)",
        1e6 * started.elapsed().as_secs_f64() / n.max(1) as f64
    );
    Ok(())
}

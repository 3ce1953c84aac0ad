//! `rookery human --label FILE`: the human model's training set. Each input line is a
//! sample line of `rookery human-data samples` (FEN, played move, ratings, scale, time
//! class, ply, game key); each output line is that line with one more column, every
//! legal move with Rookery's score at each of [`DEPTHS`]: `e2e4:31,25,28 d2d4:…`, in
//! cozy-chess's move order. Lines are searched by `threads` workers, each with its own
//! table, and written in input order.

use std::io::{BufRead, Write};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressStyle};

use super::features::DEPTHS;
use super::scores::{score_moves, MoveScores};
use crate::chess::{move_to_uci, parse_fen, Position};
use crate::search::Searcher;

/// Table size of each labelling worker (MB).
const LABEL_HASH_MB: usize = 16;

/// The scores column of one position.
pub fn scores_column(board: &cozy_chess::Board, s: &MoveScores) -> String {
    s.moves
        .iter()
        .zip(&s.scores)
        .map(|(&mv, sc)| {
            let v: Vec<String> = sc.iter().map(|x| x.to_string()).collect();
            format!("{}:{}", move_to_uci(board, mv, false), v.join(","))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Parses a scores column back: (uci move, scores per depth).
pub fn parse_scores_column(text: &str) -> Result<Vec<(String, Vec<i32>)>, String> {
    text.split_whitespace()
        .map(|item| {
            let (mv, values) = item
                .split_once(':')
                .ok_or_else(|| format!("bad move score '{item}'"))?;
            let v = values
                .split(',')
                .map(|x| {
                    x.parse::<i32>()
                        .map_err(|_| format!("bad score in '{item}'"))
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok((mv.to_string(), v))
        })
        .collect()
}

/// Labels every line of `input` (`-`: stdin) to stdout.
pub fn label_file(input: &Path, threads: usize) -> Result<(), String> {
    let reader: Box<dyn BufRead> = if input.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        let f = std::fs::File::open(input).map_err(|e| format!("{}: {e}", input.display()))?;
        Box::new(std::io::BufReader::new(f))
    };
    let lines: Vec<String> = reader
        .lines()
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("{}: {e}", input.display()))?
        .into_iter()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .collect();
    let bar = ProgressBar::new(lines.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("labelling {bar:40} {pos}/{len} {per_sec} eta {eta}")
            .expect("progress template"),
    );
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<String, String>>>> = Mutex::new(vec![None; lines.len()]);
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                let mut searcher = Searcher::new(LABEL_HASH_MB, 1);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(line) = lines.get(i) else { break };
                    let labelled =
                        label_line(&mut searcher, line).map_err(|e| format!("line {}: {e}", i + 1));
                    results.lock().expect("results lock")[i] = Some(labelled);
                    bar.inc(1);
                }
            });
        }
    });
    bar.finish();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut bad = 0usize;
    for r in results
        .into_inner()
        .expect("results lock")
        .into_iter()
        .flatten()
    {
        match r {
            Ok(text) => writeln!(out, "{text}").map_err(|e| e.to_string())?,
            Err(e) => {
                bad += 1;
                if bad <= 10 {
                    eprintln!("skipped {e}");
                }
            }
        }
    }
    if bad > 0 {
        eprintln!("{bad} lines skipped");
    }
    out.flush().map_err(|e| e.to_string())
}

fn label_line(searcher: &mut Searcher, line: &str) -> Result<String, String> {
    let fen = line.split('\t').next().unwrap_or("");
    let board = parse_fen(fen)?;
    searcher.clear();
    let scores = score_moves(searcher, &Position::new(board.clone()), &DEPTHS);
    if scores.moves.is_empty() {
        return Err("no legal moves".into());
    }
    Ok(format!("{line}\t{}", scores_column(&board, &scores)))
}

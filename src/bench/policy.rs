//! `rookery bench --policy [FILE]`: times a self-play policy net (the embedded MCTS prior,
//! or a file) as the MCTS search asks for it: the legal moves of a position scored and
//! turned into probabilities, over positions of random playouts.

use std::path::Path;
use std::sync::Arc;

use cozy_chess::{Board, Move};

use super::eval::{random_walk, show, time_it};
use crate::policy::policy_net::softmax_in_place;
use crate::policy::PolicyNet;

/// Positions timed (those with legal moves among the walk's first this many).
const POSITIONS: usize = 4_000;
/// Passes over the positions in one timing.
const ROUNDS: usize = 5;
/// Timings; the median is reported.
const REPEATS: usize = 5;

/// One way of asking the net about a position and its legal moves, writing into the
/// output vector.
type Query<'a> = &'a mut dyn FnMut(&Board, &[Move], &mut Vec<f32>);

/// Times `file`'s net (default: the embedded policy) over random playouts from `seed`.
pub fn run(file: Option<&str>, seed: u64) -> Result<(), String> {
    let (net, name) = match file {
        Some(path) => (
            Arc::new(PolicyNet::load(Path::new(path))?),
            path.to_string(),
        ),
        None => (
            crate::policy::default_policy(),
            crate::policy::DEFAULT_POLICY_NAME.to_string(),
        ),
    };
    let s = net.shape;
    println!(
        "policy: {name} ({} inputs -> {} -> {}{}{})",
        s.inputs(),
        s.hidden,
        s.d,
        if s.tactics { ", tactical rows" } else { "" },
        if s.threat_inputs {
            ", threat inputs"
        } else {
            ""
        }
    );
    let positions: Vec<(Board, Vec<Move>)> = random_walk(POSITIONS, seed)
        .into_iter()
        .map(|(_, _, after)| {
            let moves = crate::chess::legal_moves(&after);
            (after, moves)
        })
        .filter(|(_, moves)| !moves.is_empty())
        .collect();
    let moves: usize = positions.iter().map(|p| p.1.len()).sum();
    println!(
        "{} positions, {:.1} legal moves on average",
        positions.len(),
        moves as f64 / positions.len() as f64
    );
    let n = (ROUNDS * positions.len()) as f64;
    let mut logits = Vec::new();
    let mut sink = 0f32;
    let mut median = |label: &str, f: Query| {
        let mut runs: Vec<(f64, Option<f64>)> = (0..REPEATS)
            .map(|_| {
                time_it(n, || {
                    for _ in 0..ROUNDS {
                        for (board, moves) in &positions {
                            f(board, moves, &mut logits);
                            sink += logits.first().copied().unwrap_or(0.0);
                        }
                    }
                })
            })
            .collect();
        runs.sort_by(|a, b| a.1.unwrap_or(a.0).total_cmp(&b.1.unwrap_or(b.0)));
        show(label, runs[REPEATS / 2]);
    };
    median("position vector:", &mut |board, _, out| {
        let prepared = net.prepare(board);
        out.clear();
        out.push(prepared.position()[0]);
    });
    median("all legal moves' logits:", &mut |board, moves, out| {
        net.logits(board, moves, out)
    });
    median("+ softmax (the MCTS prior):", &mut |board, moves, out| {
        net.logits(board, moves, out);
        softmax_in_place(out, 1.0);
    });
    println!("(median of {REPEATS} timings; checksum {sink})");
    Ok(())
}

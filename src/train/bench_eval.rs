//! `rookery train --bench-eval`: times the search kernel (incremental push + evaluate +
//! pop) and candle's reference forward pass on the same positions.

use std::sync::Arc;
use std::time::Instant;

use cozy_chess::Board;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;

use super::TrainArgs;
use crate::eval::network::Network;
use crate::eval::Evaluator;

/// Random playouts from the start position: (before, move, after) triples.
pub fn random_walk(n: usize, seed: u64) -> Vec<(Board, cozy_chess::Move, Board)> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(n);
    let mut board = Board::default();
    while out.len() < n {
        let moves = crate::chess::legal_moves(&board);
        match moves.choose(&mut rng) {
            Some(&mv) if board.halfmove_clock() < 100 => {
                let mut after = board.clone();
                after.play_unchecked(mv);
                out.push((board.clone(), mv, after.clone()));
                board = after;
            }
            _ => board = Board::default(),
        }
    }
    out
}

pub fn run(args: &TrainArgs) -> Result<(), String> {
    let net = match &args.net {
        Some(path) => {
            let bytes = std::fs::read(path).map_err(|e| format!("cannot read '{path}': {e}"))?;
            Arc::new(Network::from_bytes(&bytes, path)?)
        }
        None => crate::eval::current_network(),
    };
    println!("network: {}", net.description());
    let walk = random_walk(20_000, args.seed);
    let mut ev = Evaluator::with_network(Arc::clone(&net));
    let root = Board::default();
    ev.reset_keep_network(&root);

    // Kernel: push + evaluate + pop per position (as at a search node).
    let mut sink = 0i64;
    let rounds = 20;
    let t = Instant::now();
    for _ in 0..rounds {
        for (before, mv, after) in &walk {
            ev.push(before, *mv, after);
            sink += ev.evaluate(after) as i64;
            ev.pop();
        }
    }
    let n = (rounds * walk.len()) as f64;
    let kernel_total = t.elapsed().as_secs_f64() * 1e9 / n;

    let t = Instant::now();
    for _ in 0..rounds {
        for (before, mv, after) in &walk {
            ev.push(before, *mv, after);
            ev.pop();
        }
    }
    let push_only = t.elapsed().as_secs_f64() * 1e9 / n;

    let t = Instant::now();
    for _ in 0..rounds {
        for (_, _, after) in &walk {
            sink += ev.evaluate(after) as i64;
        }
    }
    let eval_only = t.elapsed().as_secs_f64() * 1e9 / n;

    // Candle: one position per forward call (features built each time, as a search would).
    let m = 2000;
    let t = Instant::now();
    for (_, _, after) in walk.iter().take(m) {
        sink += net.reference_cp(after)? as i64;
    }
    let candle = t.elapsed().as_secs_f64() * 1e9 / m as f64;

    println!("kernel push+evaluate+pop: {kernel_total:.0} ns/eval");
    println!("  push+pop only:          {push_only:.0} ns");
    println!("  evaluate only:          {eval_only:.0} ns");
    println!("candle forward (1 pos):   {candle:.0} ns/eval");
    println!("(checksum {sink})");
    Ok(())
}

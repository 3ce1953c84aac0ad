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

/// On-CPU time of this thread in ns (Linux `/proc/thread-self/schedstat`), so timings
/// stay meaningful on a machine shared with other jobs; `None` elsewhere.
fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// Times `f` (which does `n` evaluations): (wall ns/eval, CPU ns/eval if known).
fn time_it(n: f64, mut f: impl FnMut()) -> (f64, Option<f64>) {
    let cpu0 = thread_cpu_ns();
    let t = Instant::now();
    f();
    let wall = t.elapsed().as_secs_f64() * 1e9 / n;
    let cpu = match (cpu0, thread_cpu_ns()) {
        (Some(a), Some(b)) => Some((b - a) as f64 / n),
        _ => None,
    };
    (wall, cpu)
}

fn show(label: &str, (wall, cpu): (f64, Option<f64>)) {
    match cpu {
        Some(c) => println!("{label:<28} {c:>9.0} ns CPU  ({wall:.0} ns wall)"),
        None => println!("{label:<28} {wall:>9.0} ns wall"),
    }
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
    let n = (rounds * walk.len()) as f64;
    let total = time_it(n, || {
        for _ in 0..rounds {
            for (before, mv, after) in &walk {
                ev.push(before, *mv, after);
                sink += ev.evaluate(after) as i64;
                ev.pop();
            }
        }
    });
    let push = time_it(n, || {
        for _ in 0..rounds {
            for (before, mv, after) in &walk {
                ev.push(before, *mv, after);
                ev.pop();
            }
        }
    });
    let eval = time_it(n, || {
        for _ in 0..rounds {
            for (_, _, after) in &walk {
                sink += ev.evaluate(after) as i64;
            }
        }
    });
    // Candle: one position per forward call (features built each time).
    let m = 2000;
    let mut failed = None;
    let candle = time_it(m as f64, || {
        for (_, _, after) in walk.iter().take(m) {
            match net.reference_cp(after) {
                Ok(cp) => sink += cp as i64,
                Err(e) => failed = Some(e),
            }
        }
    });
    if let Some(e) = failed {
        return Err(e);
    }
    show("kernel push+evaluate+pop:", total);
    show("  push+pop only:", push);
    show("  evaluate only:", eval);
    show("candle forward (1 pos):", candle);
    println!("(checksum {sink})");
    Ok(())
}
